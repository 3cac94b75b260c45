"""Helpers for the ``inspector serve`` tests: a real server process on a port the OS picks."""

from __future__ import annotations

import asyncio
import os
import re
import selectors
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp

from tests.conftest import ROOT

URL_LINE = re.compile(r"^http://(?P<netloc>\S+?)/\?token=(?P<token>[A-Za-z0-9_-]{32,})$")


@dataclass
class Served:
    """A running ``inspector serve`` and the URL it printed first."""

    process: subprocess.Popen[str]
    url: str
    netloc: str
    token: str

    @property
    def base(self) -> str:
        return f"http://{self.netloc}"

    @property
    def websocket(self) -> str:
        return f"ws://{self.netloc}/ws/{self.token}"

    @property
    def port(self) -> int:
        port = urlsplit(self.url).port
        assert port is not None
        return port


def start(path: Path, *options: str) -> subprocess.Popen[str]:
    """``inspector serve PATH OPTIONS`` as a child process (stdout and stderr piped)."""
    return subprocess.Popen(
        [sys.executable, "-m", "inspector", "serve", str(path), *options],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def first_line(process: subprocess.Popen[str], timeout: float = 30.0) -> str:
    """The first line the process writes to stdout ('' when it exits first)."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout):
            raise AssertionError(f"nothing on stdout within {timeout} s")
    return process.stdout.readline().rstrip("\n")


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


@contextmanager
def serving(path: Path, *options: str) -> Iterator[Served]:
    """A server on 127.0.0.1 (unless ``--host`` is given) and port 0, stopped afterwards."""
    if "--host" not in options:
        options = ("--host", "127.0.0.1", *options)
    process = start(path, "--port", "0", *options)
    try:
        line = first_line(process)
        match = URL_LINE.match(line)
        assert match, f"first stdout line is not the tokened URL: {line!r}"
        yield Served(process, line, match["netloc"], match["token"])
    finally:
        stop(process)


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    """Status, headers and body of a GET (errors included)."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read().decode("utf-8", "replace")
            return response.status, dict(response.headers), body
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode("utf-8", "replace")


async def _websocket(url: str, headers: dict[str, str], wait_bytes: int) -> tuple[int, bytes]:
    received = b""
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(
                url + "?width=80&height=24",
                headers=headers,
                timeout=aiohttp.ClientWSTimeout(ws_close=5),
            ) as websocket:
                deadline = time.monotonic() + 60
                while len(received) < wait_bytes and time.monotonic() < deadline:
                    message = await websocket.receive(timeout=max(0.1, deadline - time.monotonic()))
                    if message.type == aiohttp.WSMsgType.BINARY:
                        received += message.data
                    elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                        break
                return 101, received
        except aiohttp.WSServerHandshakeError as error:
            return error.status, received


def websocket(
    url: str, headers: dict[str, str] | None = None, wait_bytes: int = 1
) -> tuple[int, bytes]:
    """Open a websocket: (101 and the first app bytes) or (the refusal's HTTP status, b'')."""
    return asyncio.run(_websocket(url, headers or {}, wait_bytes))
