"""Redis's `maxmemory-policy`, checked at start (web and worker) and by `/readyz`: only `noeviction` keeps games.

Flask-free: the worker checks it too.
"""

from __future__ import annotations

import redis
from redis.cluster import RedisCluster

from service.redis_clients import is_cluster
from service.refusals import RETRY_AFTER_SECONDS, Refusal


class UnsafeEviction(Refusal):
    """Redis's `maxmemory-policy` may evict game keys (docs/operations/production.md): `check_eviction_policy`.

    Answered 503 `store_unavailable` by `/readyz`, with the policy in its message.
    """

    status = 503
    error = "store_unavailable"
    retry_after = RETRY_AFTER_SECONDS


SAFE_EVICTION_POLICY = "noeviction"


def check_eviction_policy(client: redis.Redis, allowed: bool) -> str:
    """Redis's `maxmemory-policy` (from INFO, which managed services that hide CONFIG still answer).

    On a Redis Cluster (`client` a `RedisCluster`) every node's: the first unsafe one, else `noeviction`.

    Every policy but `noeviction` may evict game keys when memory runs out, the `volatile-*` ones too (every key
    of a game has a lifetime), and a game would then vanish without a trace, seconds after its 201.

    Raises:
        UnsafeEviction: the policy is not `noeviction` and `allowed` (`REDIS_EVICTION_ALLOWED`) is false.
        redis.RedisError: Redis did not answer.
    """
    if is_cluster(client):  # every node, replicas too: one may be promoted
        infos = list(client.info("memory", target_nodes=RedisCluster.ALL_NODES).values())
    else:
        infos = [client.info("memory")]
    policies = {info.get("maxmemory_policy", SAFE_EVICTION_POLICY) for info in infos}
    policy = next((name for name in sorted(policies) if name != SAFE_EVICTION_POLICY), SAFE_EVICTION_POLICY)
    if policy != SAFE_EVICTION_POLICY and not allowed:
        raise UnsafeEviction(
            f"Redis's maxmemory-policy is {policy}: when memory runs out it may evict game keys and games would "
            f"silently vanish. Set maxmemory-policy {SAFE_EVICTION_POLICY} (docs/operations/production.md), or "
            "REDIS_EVICTION_ALLOWED=1 to run anyway."
        )
    return policy
