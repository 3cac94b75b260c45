"""``inspector serve``: the tokened URL, Host/Origin checks, the session bound, offline page."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import time
from html.parser import HTMLParser

import aiohttp
import pytest

from inspector.app.web import app_argv, build_server, is_loopback
from tests.app.serving import URL_LINE, first_line, get, serving, start, stop, websocket


def test_loopback_detection() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")


def test_app_command_runs_the_app_module(run_path) -> None:  # type: ignore[no-untyped-def]
    argv = app_argv(run_path("k1_micro"))
    assert argv[1:3] == ["-m", "inspector.app"] and argv[-1].endswith("k1_micro")


def test_each_launch_has_its_own_long_token() -> None:
    tokens = {build_server(None).token for _ in range(3)}
    assert len(tokens) == 3 and all(len(t) >= 40 for t in tokens)


def test_only_the_served_address_is_accepted_as_host() -> None:
    server = build_server(None, "127.0.0.1", 8765)
    assert server.allows_netloc("127.0.0.1:8765") and server.allows_netloc("localhost:8765")
    for foreign in ("127.0.0.1:8766", "127.0.0.1", "evil.example:8765", "127.0.0.2:8765", ""):
        assert not server.allows_netloc(foreign), foreign
    v6 = build_server(None, "::1", 8765)
    assert v6.public_url == "http://[::1]:8765" and v6.allows_netloc("[::1]:8765")
    assert not v6.allows_netloc("127.0.0.1:8765")
    anywhere = build_server(None, "0.0.0.0", 8765)  # any address of this machine, no DNS names
    assert anywhere.allows_netloc("192.168.1.5:8765") and anywhere.allows_netloc("[::1]:8765")
    assert not anywhere.allows_netloc("rebind.evil.example:8765")
    on_80 = build_server(None, "127.0.0.1", 80)  # browsers send no port for 80
    assert on_80.allows_netloc("127.0.0.1") and not on_80.allows_netloc("127.0.0.1:8080")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [v for k, v in attrs if k in ("href", "src") and v]


def test_first_stdout_line_is_the_tokened_url_and_the_page_needs_it(run_path) -> None:  # type: ignore[no-untyped-def]
    with serving(run_path("k1_micro")) as served:
        assert served.netloc.startswith("127.0.0.1:")
        status, headers, page = get(served.url)
        assert status == 200 and "AgentCompass Inspector" in page
        assert f'data-session-websocket-url="{served.websocket}"' in page
        assert "default-src 'none'" in headers["Content-Security-Policy"]
        # The page's addresses follow the one the browser used.
        _, headers, page = get(served.url, {"Host": f"localhost:{served.port}"})
        assert f'data-session-websocket-url="ws://localhost:{served.port}/ws/' in page
        assert f"ws://localhost:{served.port}" in headers["Content-Security-Policy"]
        other = "y" if served.token.startswith("x") else "x"  # one character off, never equal
        for wrong in (served.base + "/", served.base + "/?token=" + other + served.token[1:]):
            status, _, body = get(wrong)
            assert status == 403 and "token" in body, wrong


def test_the_page_names_no_url_outside_the_server_and_its_fonts_are_served(run_path) -> None:  # type: ignore[no-untyped-def]
    with serving(run_path("k1_micro")) as served:
        _, _, page = get(served.url)
        links = _Links()
        links.feed(page)
        urls = links.urls + re.findall(r"url\(\"?([^\")]+)", page)
        urls += re.findall(r"\b(?:https?|wss?)://[^\s\"'<>)]+", page)
        outside = [
            u
            for u in urls
            if not u.startswith((served.base + "/", f"ws://{served.netloc}/"))
            and u != "http://www.w3.org/2000/svg"  # the logo's XML namespace, never fetched
        ]
        assert not outside
        fonts = [u for u in urls if u.endswith(".ttf")]
        assert len(set(fonts)) == 2
        for font in set(fonts):
            status, _, body = get(font)
            assert status == 200 and len(body) > 10_000, font


def test_no_directory_listing_under_static(run_path) -> None:  # type: ignore[no-untyped-def]
    with serving(run_path("k1_micro")) as served:
        for folder in ("/static/", "/static/fonts/", "/static/js/"):
            status, _, body = get(served.base + folder)
            assert status in (403, 404) and ".ttf" not in body and ".js" not in body, folder
        status, _, _ = get(served.base + "/static/js/textual.js")
        assert status == 200


def test_a_foreign_host_is_refused_for_page_static_and_websocket(run_path) -> None:  # type: ignore[no-untyped-def]
    with serving(run_path("k1_micro")) as served:
        for host in ("evil.example", f"evil.example:{served.port}", f"127.0.0.1:{served.port + 1}"):
            status, _, body = get(served.url, {"Host": host})
            assert status == 403 and "answers only at" in body, host
            assert get(served.base + "/static/js/textual.js", {"Host": host})[0] == 403
            assert websocket(served.websocket, {"Host": host})[0] == 403


def test_a_websocket_from_a_foreign_origin_or_without_the_token_is_refused(run_path) -> None:  # type: ignore[no-untyped-def]
    with serving(run_path("k1_micro")) as served:
        for origin in ("http://evil.example", f"http://evil.example:{served.port}", "null"):
            assert websocket(served.websocket, {"Origin": origin})[0] == 403, origin
            assert get(served.url, {"Origin": origin})[0] == 403
        assert websocket(f"ws://{served.netloc}/ws")[0] == 404
        assert websocket(f"ws://{served.netloc}/ws/{served.token[:-1]}")[0] == 403
        status, received = websocket(served.websocket, {"Origin": served.base}, wait_bytes=200)
        assert status == 101 and len(received) >= 200  # the app draws its screen


async def _limit(served, run_seconds: float = 60) -> None:  # type: ignore[no-untyped-def]
    async with aiohttp.ClientSession() as session:
        first = await session.ws_connect(served.websocket + "?width=80&height=24")
        assert (await first.receive(timeout=run_seconds)).type == aiohttp.WSMsgType.BINARY
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(served.websocket)
        assert refused.value.status == 503
        async with session.get(served.url) as page:
            assert page.status == 503 and "most this server allows" in await page.text()
        await first.close()
        deadline = time.monotonic() + 10
        while True:  # the slot is given back once the first session's app has ended
            try:
                second = await session.ws_connect(served.websocket + "?width=80&height=24")
                break
            except aiohttp.WSServerHandshakeError:
                assert time.monotonic() < deadline, "the slot was not given back"
                await asyncio.sleep(0.2)
        await second.close()


def test_sessions_beyond_the_bound_are_refused_clearly(run_path) -> None:  # type: ignore[no-untyped-def]
    with serving(run_path("k1_micro"), "--max-sessions", "1") as served:
        asyncio.run(_limit(served))


def test_ipv6_loopback_urls_are_bracketed(run_path) -> None:  # type: ignore[no-untyped-def]
    try:
        socket.create_server(("::1", 0), family=socket.AF_INET6).close()
    except OSError:
        pytest.skip("this machine has no IPv6 loopback")
    with serving(run_path("k1_micro"), "--host", "::1") as served:
        assert served.netloc.startswith("[::1]:")
        _, _, page = get(served.url)
        assert f'data-session-websocket-url="ws://[::1]:{served.port}/ws/' in page
        status, received = websocket(served.websocket, wait_bytes=200)
        assert status == 101 and len(received) >= 200


def _fails(path, *options: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    process = start(path, *options)
    try:
        out, err = process.communicate(timeout=30)
    finally:
        stop(process)  # a server that did start (the test fails) is not left running
    return process.returncode, out, err


def test_a_port_in_use_is_one_line_on_stderr_and_exit_2(run_path) -> None:  # type: ignore[no-untyped-def]
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code, out, err = _fails(run_path("k1_micro"), "--host", "127.0.0.1", "--port", str(port))
    assert code == 2 and out == ""
    assert err == f"inspector serve: cannot listen on 127.0.0.1:{port}: Address already in use\n"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--host", "203.0.113.5"), "cannot listen on 203.0.113.5:0: "),  # not this machine's
        (("--host", "127.0.0.1", "--max-sessions", "0"), "--max-sessions must be at least 1"),
    ],
)
def test_what_cannot_be_served_is_one_line_and_exit_2(run_path, options, message) -> None:  # type: ignore[no-untyped-def]
    code, out, err = _fails(run_path("k1_micro"), "--port", "0", *options)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_serve_warns_when_not_loopback(run_path) -> None:  # type: ignore[no-untyped-def]
    process = start(run_path("k1_micro"), "--host", "0.0.0.0", "--port", "0")
    try:
        match = URL_LINE.match(first_line(process))  # stdout: still the URL first
        assert match and match["netloc"].startswith(socket.gethostname() + ":")
        assert process.stderr is not None
        assert "WARNING" in (line := process.stderr.readline()) and "exposes" in line
        port = match["netloc"].rsplit(":", 1)[1]
        url = f"http://127.0.0.1:{port}/?token={match['token']}"
        assert get(url)[0] == 200  # any address of this machine
        assert get(url, {"Host": f"rebind.evil.example:{port}"})[0] == 403
    finally:
        stop(process)


def _session_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[3])


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _processes_in_session(sid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if _session_of(int(entry)) == sid:
                    found.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return found


def _app_pids(marker: str) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                argv = cmdline.read()
            if b"inspector.app" in argv and marker.encode() in argv:
                pids.append(int(entry))
        except (OSError, ValueError):
            pass
    return pids


def _semaphores(pids: list[int]) -> set[str]:
    """The named semaphores (``/dev/shm/sem.mp-*``) these processes have mapped and not
    unlinked: those of a reader pool started by a fork server."""
    names = set()
    for pid in pids:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/maps") as maps:
            names |= {m.group(1) for m in re.finditer(r"/dev/shm/(sem\.mp-\S+)$", maps.read(), re.M)}
    return names


async def _app_with_its_readers(marker: str) -> tuple[int, set[str]]:
    """The session's app process, once its reader pool is up, and the pool's semaphores."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        apps = _app_pids(marker)
        if len(apps) == 1 and (names := _semaphores(_processes_in_session(apps[0]))):
            return apps[0], names
        await asyncio.sleep(0.1)
    raise AssertionError("the app's reader pool did not start")


def _left_in_shm(names: set[str]) -> set[str]:
    deadline = time.monotonic() + 5  # the tracker unlinks them as soon as its pipe closes
    while (left := {n for n in names if os.path.exists(f"/dev/shm/{n}")}) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.1)
    return left


async def _connected_then_terminated(served, marker: str, frozen: bool) -> tuple[float, list[int], set[str]]:  # type: ignore[no-untyped-def]
    async with aiohttp.ClientSession() as session:
        client = await session.ws_connect(served.websocket + "?width=80&height=24")
        assert (await client.receive(timeout=60)).type == aiohttp.WSMsgType.BINARY
        app, semaphores = await _app_with_its_readers(marker)
        tree = _processes_in_session(app)
        if frozen:  # an app that cannot answer "quit"
            os.kill(app, signal.SIGSTOP)
        started = time.monotonic()
        served.process.terminate()
        await asyncio.to_thread(served.process.wait, 15)
        return time.monotonic() - started, tree, semaphores


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc (Linux)")
@pytest.mark.parametrize("frozen", [False, True], ids=["app-answers", "app-frozen"])
def test_sigterm_with_a_client_connected_ends_server_and_app_tree_promptly(
    run_path, tmp_path, frozen
) -> None:  # type: ignore[no-untyped-def]
    run = tmp_path / "shutdown_marker_run"
    subprocess.run(["cp", "-r", str(run_path("k1_micro")), str(run)], check=True)
    try:
        with serving(run) as served:
            seconds, tree, semaphores = asyncio.run(
                _connected_then_terminated(served, str(run), frozen)
            )
            assert served.process.returncode == 0
        assert seconds < 3.0, f"SIGTERM took {seconds:.1f} s"
        assert tree, "the app's processes were not found"
        deadline = time.monotonic() + 2  # killed at once; the system reaps them soon after
        while (alive := [pid for pid in tree if _running(pid)]) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive
        assert not _left_in_shm(semaphores)  # the reader pool's semaphores went with it
    finally:  # when the test fails, leave no app behind
        for app in _app_pids(str(run)):
            with contextlib.suppress(OSError):
                os.killpg(app, signal.SIGKILL)


async def _connected_then_closed(served, marker: str) -> tuple[list[int], set[str]]:  # type: ignore[no-untyped-def]
    async with aiohttp.ClientSession() as session:
        client = await session.ws_connect(served.websocket + "?width=80&height=24")
        assert (await client.receive(timeout=60)).type == aiohttp.WSMsgType.BINARY
        app, semaphores = await _app_with_its_readers(marker)
        tree = _processes_in_session(app)
        await client.close()  # the browser tab closed
    return tree, semaphores


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc (Linux)")
def test_a_closed_session_leaves_no_process_and_no_semaphore(run_path, tmp_path) -> None:  # type: ignore[no-untyped-def]
    run = tmp_path / "closed_marker_run"
    subprocess.run(["cp", "-r", str(run_path("k1_micro")), str(run)], check=True)
    try:
        with serving(run) as served:
            tree, semaphores = asyncio.run(_connected_then_closed(served, str(run)))
            deadline = time.monotonic() + 5  # the app's grace, then its group's
            while (alive := [p for p in tree if _running(p)]) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not alive
            assert not _left_in_shm(semaphores)
            assert served.process.poll() is None  # still serving
    finally:
        for app in _app_pids(str(run)):
            with contextlib.suppress(OSError):
                os.killpg(app, signal.SIGKILL)
