"""A local S3-compatible server (moto's server mode) on 127.0.0.1, counting its requests.

No test here reaches a real cloud: the endpoint, the credentials and the region are set
for every test (fake keys, ``FSSPEC_S3_ENDPOINT_URL`` and ``AWS_ENDPOINT_URL`` pointing at
the local server, the instance-metadata lookup disabled, no profile or config file).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from inspector.loading import remote
from tests.conftest import FIXTURE_RUNS

BUCKET = "results"


class CountingApp:
    """WSGI middleware: counts object GETs (transfers) and listings by path, and every
    request that could change the bucket (any method but GET and HEAD)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.gets: Counter[str] = Counter()
        self.lists = 0
        self.writes: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        query = environ.get("QUERY_STRING", "")
        method = environ["REQUEST_METHOD"]
        with self.lock:
            if method == "GET":
                if "list-type" in query or "prefix=" in query:
                    self.lists += 1
                else:
                    self.gets[environ.get("PATH_INFO", "")] += 1
            elif method != "HEAD":
                self.writes.append(f"{method} {environ.get('PATH_INFO', '')}?{query}")
        return self.app(environ, start_response)

    def reset(self) -> None:
        with self.lock:
            self.gets.clear()
            self.lists = 0
            self.writes.clear()


@dataclass
class S3:
    endpoint: str
    client: Any
    counter: CountingApp
    keys: list[str] = field(default_factory=list)

    def url(self, key: str = "") -> str:
        return f"s3://{BUCKET}/{key}" if key else f"s3://{BUCKET}"

    def upload_tree(self, local: Path, prefix: str) -> None:
        for path in sorted(local.rglob("*")):
            if path.is_file() and not path.is_symlink():
                self.put(f"{prefix}/{path.relative_to(local).as_posix()}", path.read_bytes())

    def put(self, key: str, data: bytes) -> None:
        self.client.put_object(Bucket=BUCKET, Key=key, Body=data)

    def delete(self, key: str) -> None:
        self.client.delete_object(Bucket=BUCKET, Key=key)

    @property
    def transfers(self) -> int:
        return sum(self.counter.gets.values())


def _set_env(mp: pytest.MonkeyPatch, endpoint: str) -> None:
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
        mp.delenv(name, raising=False)
    mp.setenv("AWS_ACCESS_KEY_ID", "testing")
    mp.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
    mp.setenv("AWS_CONFIG_FILE", "/nonexistent/aws-config")
    mp.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials")
    mp.setenv("AWS_EC2_METADATA_DISABLED", "true")
    mp.setenv("AWS_ENDPOINT_URL", endpoint)
    mp.setenv("FSSPEC_S3_ENDPOINT_URL", endpoint)
    mp.setenv("NO_PROXY", "127.0.0.1")
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        mp.delenv(name, raising=False)


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3]:
    import boto3
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import make_server

    class QuietHandler(MotoRequestHandler):  # type: ignore[misc]
        def log_request(self, *args: Any, **kwargs: Any) -> None:
            pass

    counter = CountingApp(DomainDispatcherApplication(create_backend_app))
    server = make_server("127.0.0.1", 0, counter, True, request_handler=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    with pytest.MonkeyPatch.context() as mp:
        _set_env(mp, endpoint)
        client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        s3 = S3(endpoint=endpoint, client=client, counter=counter)
        for run in sorted(FIXTURE_RUNS.iterdir()):
            if run.is_dir():
                s3.upload_tree(run, f"root/{run.name}")
        try:
            yield s3
        finally:
            server.shutdown()
            thread.join()


@pytest.fixture
def s3(s3_server: S3, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[S3]:
    """The server, with a fresh user cache (so each test sees its own transfers)."""
    _set_env(monkeypatch, s3_server.endpoint)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    remote.MIRRORED.clear()
    s3_server.counter.reset()
    yield s3_server
    remote.MIRRORED.clear()
