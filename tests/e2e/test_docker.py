"""The image built from the Dockerfile and run as users run it (README "Docker": air-gapped builds).

No registry is reachable here, so the base is made from Debian's packages (`debootstrap bookworm` with `python3`,
then `docker import`) and passed as the `BASE` build argument; the dependencies come from a wheelhouse that pip
builds on the host first and a loopback HTTP server hands to the build (`PIP_NO_INDEX`, `PIP_FIND_LINKS`). The
test runs a Docker daemon of its own (Debian's `docker.io`; no bridge, no iptables: every container uses the host's
network, so all traffic stays on the loopback), a redis-server of its own, then web and worker containers as users
would: non-root, read-only root file system with a tmpfs /tmp, the image's own healthcheck, a whole game against
the AI over HTTP, and `docker stop` answering a held long-poll before the web container exits 0.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.e2e.stack import REPO, free_port
from tests.redis_server import RedisServer

pytestmark = pytest.mark.e2e

DEBIAN_MIRROR = "http://deb.debian.org/debian"
BASE_PACKAGES = "python3,python3-venv,python-is-python3"
# The debootstrapped base is kept between runs (it takes minutes to make and never changes for a package set).
BASE_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cardroom" / "bookworm-python3.tar"
# Hang guards, in seconds: a build or a game here takes a fraction of these.
BUILD_SECONDS, READY_SECONDS, GAME_SECONDS = 900, 120, 180


def tools() -> dict[str, str]:
    found = {name: shutil.which(name) for name in ("docker", "dockerd", "debootstrap")}
    missing = sorted(name for name, path in found.items() if path is None)
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install -y docker.io debootstrap; .ci/run does)")
    return {name: str(path) for name, path in found.items()}


class Docker:
    """A dockerd of the test's own (its own data root and socket), and `run` for docker commands against it."""

    def __init__(self, binaries: dict[str, str], root: Path) -> None:
        self.binaries, self.root = binaries, root
        self.socket = root / "docker.sock"
        self.env = {**os.environ, "DOCKER_HOST": f"unix://{self.socket}"}
        self.log = root / "dockerd.log"
        with open(self.log, "wb") as log:
            self.daemon = subprocess.Popen(
                [binaries["dockerd"], "--data-root", str(root / "data"), "--exec-root", str(root / "exec"),
                 "--pidfile", str(root / "dockerd.pid"), "--host", f"unix://{self.socket}",
                 "--bridge=none", "--iptables=false", "--ip6tables=false"],
                stdout=log, stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + READY_SECONDS
        while self.run("version", check=False).returncode != 0:
            assert self.daemon.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.5)

    def run(self, *args: str, check: bool = True, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
        done = subprocess.run([self.binaries["docker"], *args], env=self.env, capture_output=True, text=True,
                              timeout=timeout, **kwargs)
        assert not check or done.returncode == 0, f"docker {' '.join(args)}: {done.stdout[-4000:]}{done.stderr[-4000:]}"
        return done

    def stop(self) -> None:
        self.daemon.terminate()
        try:
            self.daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.daemon.kill()
            self.daemon.wait()
        # dockerd leaves its network namespace mounted under --exec-root, which pytest then cannot delete
        mounts = Path("/proc/self/mounts").read_text().splitlines()
        for target in [line.split()[1] for line in mounts if line.split()[1].startswith(str(self.root))]:
            subprocess.run(["umount", "--lazy", target], check=False, capture_output=True)


def debian_base(debootstrap: str) -> Path:
    """A tarball of a minimal Debian bookworm with Python 3.11 (`python`, venv), made once and cached."""
    if BASE_CACHE.exists():
        return BASE_CACHE
    BASE_CACHE.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cardroom-rootfs-") as work:
        rootfs = Path(work) / "rootfs"
        made = subprocess.run([debootstrap, "--variant=minbase", f"--include={BASE_PACKAGES}", "bookworm",
                               str(rootfs), DEBIAN_MIRROR], capture_output=True, text=True, timeout=BUILD_SECONDS)
        assert made.returncode == 0, made.stdout[-5000:] + made.stderr[-5000:]
        partial = BASE_CACHE.with_suffix(".partial")
        with tarfile.open(partial, "w") as archive:
            archive.add(rootfs, arcname=".")
        partial.rename(BASE_CACHE)
    return BASE_CACHE


def wheelhouse(docker: Docker, base: str, directory: Path) -> Path:
    """Wheels of the project and every dependency, resolved by the base image's own Python.

    Its pip runs in a container of the base on the host's network, with the host's CA bundle: the Python of the
    image decides the environment markers (Debian's 3.11.2 needs `async-timeout` for redis, 3.11.7 does not).
    """
    sources = " ".join(f"/src/{name}" for name in ("pyproject.toml", "README.md", "engine", "service", "worker"))
    script = (f"mkdir /tmp/src && cp -r {sources} /tmp/src && python -m venv /tmp/venv"
              " && /tmp/venv/bin/pip wheel --quiet --wheel-dir /wheels /tmp/src")
    certificates = Path(os.environ.get("PIP_CERT", "/etc/ssl/certs/ca-certificates.crt"))
    trust = ["-v", f"{certificates}:/etc/ssl/certs/host-ca.crt:ro", "-e", "PIP_CERT=/etc/ssl/certs/host-ca.crt"] \
        if certificates.exists() else []
    docker.run("run", "--rm", "--network", "host", "-v", f"{REPO}:/src:ro", "-v", f"{directory}:/wheels", *trust,
               base, "sh", "-c", script, timeout=BUILD_SECONDS)
    return directory


def serve_directory(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """A loopback HTTP server listing `directory` (pip's `--find-links` reads the listing)."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(directory))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Docker, str]]:
    """The project's image, built with the Dockerfile on the Debian base; the daemon it lives in."""
    binaries = tools()
    work = tmp_path_factory.mktemp("docker")
    base = debian_base(binaries["debootstrap"])
    docker = Docker(binaries, work)
    (work / "wheels").mkdir()
    server, url = serve_directory(work / "wheels")
    tag = f"cardroom-test:{uuid.uuid4().hex[:8]}"
    try:
        with open(base, "rb") as archive:
            docker.run("import", "-", "cardroom-test-base:bookworm", stdin=archive, timeout=BUILD_SECONDS)
        wheelhouse(docker, "cardroom-test-base:bookworm", work / "wheels")
        docker.run("build", "--network", "host", "--build-arg", "BASE=cardroom-test-base:bookworm",
                   "--build-arg", "PIP_NO_INDEX=1", "--build-arg", f"PIP_FIND_LINKS={url}", "-t", tag, str(REPO),
                   timeout=BUILD_SECONDS)
        yield docker, tag
    finally:
        server.shutdown()
        server.server_close()
        docker.stop()


def test_the_image_runs_web_and_worker_as_users_would(image: tuple[Docker, str], own_redis: RedisServer) -> None:
    docker, tag = image
    port = free_port()
    settings = ["-e", f"REDIS_URL={own_redis.url}", "-e", f"CARDROOM_BIND=127.0.0.1:{port}"]
    # the image's own healthcheck command, checked every second instead of every 30 s so the test need not wait
    common = ["run", "-d", "--network", "host", "--read-only", "--tmpfs", "/tmp", *settings]
    web = docker.run(*common, "--health-interval", "1s", "--health-start-period", "60s", tag).stdout.strip()
    worker = docker.run(*common, "--no-healthcheck", tag, "python", "-m", "worker").stdout.strip()
    try:
        deadline = time.monotonic() + READY_SECONDS
        while docker.run("inspect", "-f", "{{.State.Health.Status}}", web).stdout.strip() != "healthy":
            assert time.monotonic() < deadline, docker.run("logs", web).stdout + docker.run("logs", web).stderr
            time.sleep(0.5)
        assert docker.run("exec", web, "id", "-u").stdout.strip() == "10001"
        assert docker.run("exec", worker, "id", "-u").stdout.strip() == "10001"
        written = docker.run("exec", web, "touch", "/app/written", check=False)
        assert written.returncode != 0 and "Read-only file system" in written.stderr

        base_url = f"http://127.0.0.1:{port}"
        bot = subprocess.run([sys.executable, str(REPO / "examples" / "bot.py"), base_url], capture_output=True,
                             text=True, timeout=GAME_SECONDS)
        assert bot.returncode == 0 and "finished" in bot.stdout, bot.stdout + bot.stderr

        created = requests.post(f"{base_url}/v1/games", timeout=10, json={
            "game": "tadmur", "seats": [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}],
            "seed": 4}).json()
        answers: list[int] = []

        def long_poll() -> None:
            url = f"{base_url}/v1/games/{created['game_id']}"
            params = {"after_version": created["version"], "wait": 25}
            answers.append(requests.get(url, params=params, timeout=40).status_code)

        waiting = threading.Thread(target=long_poll)
        waiting.start()
        time.sleep(1)  # the long-poll is held now (our turn: no version comes by itself)
        docker.run("stop", "--time", "20", web, timeout=60)
        waiting.join(timeout=40)
        assert answers == [304]  # answered by the draining server, not cut off
        assert docker.run("inspect", "-f", "{{.State.ExitCode}}", web).stdout.strip() == "0"
    finally:
        docker.run("rm", "-f", web, worker, check=False)
