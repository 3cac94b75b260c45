"""A run served by a plain HTTP server (directory listings, no ETag, no size in the
listing) on 127.0.0.1 reads as its local copy; every open fetches again (no version to
key on), which is slower, never different."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from inspector.cli.main import main
from inspector.loading import remote
from tests.conftest import FIXTURE_RUNS


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def http_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    handler = functools.partial(Quiet, directory=str(FIXTURE_RUNS))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    remote.MIRRORED.clear()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        remote.MIRRORED.clear()
        server.shutdown()
        thread.join()


@pytest.mark.parametrize("name", ["k1_micro", "k3_avg_hierarchy"])
def test_report_over_http_is_byte_identical(
    name: str, http_root: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert main(["report", f"{http_root}/{name}/", "--json"]) == 0
    assert capsysbinary.readouterr().out == (FIXTURE_RUNS / name / "metrics.json").read_bytes()
    assert main(["check", f"{http_root}/{name}"]) == 0
