"""``serve``: a free loopback port answers HTTP with the app's page."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from inspector.app.web import app_command, is_loopback
from tests.conftest import ROOT


def test_loopback_detection() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")


def test_app_command_runs_the_app_module(run_path) -> None:  # type: ignore[no-untyped-def]
    command = app_command(run_path("k1_micro"))
    assert "-m inspector.app" in command and command.endswith("k1_micro")


def _serve(path: Path, host: str) -> subprocess.Popen[str]:
    code = f"from inspector.app import serve; serve({str(path)!r}, host={host!r}, port=0)"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )


def _url(process: subprocess.Popen[str], deadline: float) -> tuple[str, list[str]]:
    assert process.stderr is not None
    lines: list[str] = []
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        lines.append(line)
        match = re.search(r"Serving the inspector on (http://\S+)", line)
        if match:
            return match.group(1), lines
    raise AssertionError("no URL announced: " + "".join(lines))


def test_serve_answers_with_the_app_page(run_path) -> None:  # type: ignore[no-untyped-def]
    process = _serve(run_path("k1_micro"), "127.0.0.1")
    try:
        deadline = time.monotonic() + 30
        url, lines = _url(process, deadline)
        assert url.startswith("http://127.0.0.1:")
        assert not any("WARNING" in line for line in lines)
        page = ""
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    assert response.status == 200
                    page = response.read().decode("utf-8")
                break
            except OSError:
                time.sleep(0.2)
        assert "AgentCompass Inspector" in page
        assert "/ws" in page  # the websocket that drives the app
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def test_serve_warns_when_not_loopback(run_path) -> None:  # type: ignore[no-untyped-def]
    process = _serve(run_path("k1_micro"), "0.0.0.0")
    try:
        _, lines = _url(process, time.monotonic() + 30)
        assert any("WARNING" in line and "exposes" in line for line in lines)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
