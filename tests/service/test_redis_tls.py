"""Redis over TLS (`rediss://`) with its password from `REDIS_PASSWORD` (README "Deploy with Helm": a Secret).

A redis-server of the test's own with a TLS port only and `requirepass`, its certificate signed by a CA the test
makes with openssl; the app trusts that CA through the URL's `ssl_ca_certs`, as the chart's extraVolumes mount it.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from service.app import create_app
from tests.e2e.stack import free_port

PASSWORD = "a pass:word/with@url#characters"


def redis_servers() -> list[str]:
    """redis-server binaries to try: Debian's (built with TLS; .ci/run installs it when missing), then PATH's."""
    return [path for path in dict.fromkeys(["/usr/bin/redis-server", shutil.which("redis-server")]) if path]


def make_certificates(directory: Path) -> None:
    """ca.crt, and server.crt/server.key for 127.0.0.1 signed by it."""
    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True, timeout=60)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "1",
            "-subj", "/CN=cardroom-test-ca")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
            "-subj", "/CN=127.0.0.1")
    (directory / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.crt", "-days", "1", "-extfile", "san.ext")


@pytest.fixture
def tls_redis(tmp_path: Path) -> Iterator[str]:
    """The `rediss://` URL (no password in it) of a TLS-only redis-server that requires `PASSWORD`."""
    make_certificates(tmp_path)
    port = free_port()
    url = f"rediss://127.0.0.1:{port}/0?ssl_ca_certs={tmp_path / 'ca.crt'}"
    for binary in redis_servers():
        process = subprocess.Popen(
            [binary, "--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1",
             "--tls-cert-file", "server.crt", "--tls-key-file", "server.key", "--tls-ca-cert-file", "ca.crt",
             "--tls-auth-clients", "no", "--requirepass", PASSWORD, "--save", "", "--dir", str(tmp_path)],
            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(url, password=PASSWORD, socket_connect_timeout=0.5)
        for _ in range(100):
            if process.poll() is not None:
                break  # a build without TLS rejects --tls-port at once: try the next binary
            try:
                client.ping()
            except redis.ConnectionError:
                time.sleep(0.05)
                continue
            client.close()
            try:
                yield url
            finally:
                process.terminate()
                process.wait(timeout=10)
            return
        process.kill()
        process.wait(timeout=10)
    raise AssertionError(f"no redis-server with TLS among {redis_servers()}: apt-get install redis-server")


def app_on(url: str):  # type: ignore[no-untyped-def]
    return create_app({"REDIS_URL": url, "KEY_PREFIX": "tls", "RQ_QUEUE": "tls", "TESTING": True})


def test_the_app_plays_over_tls_with_the_password_from_its_own_variable(
    tls_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REDIS_PASSWORD", PASSWORD)
    app = app_on(tls_redis)
    client = app.test_client()
    assert client.get("/readyz").status_code == 200
    created = client.post("/v1/games", json={"game": "durak", "seats": [{"kind": "human"}, {"kind": "human"}]})
    assert created.status_code == 201, created.json
    assert client.get(f"/v1/games/{created.json['game_id']}").json["status"] == "waiting"
    app.extensions["cardroom"].store.client.close()


def test_without_the_password_the_app_is_not_ready(tls_redis: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_PASSWORD", raising=False)
    app = app_on(tls_redis)
    ready = app.test_client().get("/readyz")
    assert (ready.status_code, ready.json["error"]) == (503, "store_unavailable")
    app.extensions["cardroom"].store.client.close()
