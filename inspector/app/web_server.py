"""The guarded textual-serve server behind ``inspector serve``.

textual-serve's ``Server`` serves any caller, opens an app per websocket without limit and
links a public font stylesheet. ``InspectorServer`` keeps its page, websocket protocol and
downloads, and adds:

- a random token per launch, required for the page (``/?token=…``) and the websocket
  (``/ws/<token>``: textual.js appends its own query string to the websocket address);
- ``Host`` and ``Origin`` checks on every request (cross-site websocket hijacking, DNS
  rebinding);
- at most ``max_sessions`` app sessions at once;
- the page with the fonts shipped in textual-serve's own static folder, and a
  Content-Security-Policy that lets it reach nothing but this server;
- no directory listings, and a shutdown that ends every app's process group at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import secrets
import shlex
import signal
import socket
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import aiohttp_jinja2
import jinja2
from aiohttp import web
from rich.console import Console
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

log = logging.getLogger("textual-serve")

TITLE = "AgentCompass Inspector"
# The one line of textual-serve 1.1.3's page that leaves the server.
FONT_LINK = (
    '<link\n      rel="stylesheet"\n'
    '      href="https://fonts.googleapis.com/css?family=Roboto%20Mono"\n    />'
)
LOCAL_FONTS = """<link rel="preload" href="{{ config.static.url }}fonts/RobotoMono-VariableFont_wght.ttf"
      as="font" type="font/ttf" crossorigin />
    <style>
      @font-face {
        font-family: "Roboto Mono"; font-style: normal; font-weight: 100 700;
        src: url("{{ config.static.url }}fonts/RobotoMono-VariableFont_wght.ttf") format("truetype");
      }
      @font-face {
        font-family: "Roboto Mono"; font-style: italic; font-weight: 100 700;
        src: url("{{ config.static.url }}fonts/RobotoMono-Italic-VariableFont_wght.ttf") format("truetype");
      }
    </style>"""
WILDCARDS = frozenset({"", "0.0.0.0", "::"})
LOOPBACK_ALIASES = ("localhost",)
APP_GRACE_SECONDS = 0.5  # an app asked to quit gets this long before its process group ends
END_WAIT_SECONDS = 1.0  # a process group sent SIGTERM gets this long before SIGKILL


LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback(host: str) -> bool:
    """True when ``host`` only accepts connections from this machine."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    """``host`` as it appears in a URL (IPv6 literals in brackets)."""
    return f"[{host}]" if ":" in host else host


class CannotListen(Exception):
    """The address cannot be bound; ``str()`` says why."""


class LocalFontsLoader(jinja2.FileSystemLoader):
    """textual-serve's templates with the public font stylesheet replaced by local fonts."""

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        source, filename, uptodate = super().get_source(environment, template)
        if template == "app_index.html":
            if FONT_LINK not in source:
                raise RuntimeError(f"{filename}: the font link to replace is not there")
            source = source.replace(FONT_LINK, LOCAL_FONTS)
        return source, filename, uptodate


class AppProcess(AppService):
    """One browser session's app, in a process group of its own so it can be ended whole."""

    def __init__(self, argv: list[str], **kwargs: Any) -> None:
        super().__init__(shlex.join(argv), **kwargs)
        self.argv = argv

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width=width, height=height),
            start_new_session=True,
        )
        self._stdin = process.stdin
        return process

    async def end(self, wait: float = END_WAIT_SECONDS) -> None:
        """End the app and every process it started (reader processes keep its pipes open):
        SIGTERM to its process group (with SIGCONT, for a stopped app), then SIGKILL to what
        is left after ``wait`` seconds. multiprocessing's resource tracker ignores SIGTERM:
        it outlives the others by a moment, sees its pipe close and removes the reader
        pool's named semaphores from /dev/shm. A SIGKILL to the whole group at once left
        five there per session."""
        if self._process is None:
            return
        group = self._process.pid
        for signum in (signal.SIGTERM, signal.SIGCONT):
            if not _signal_group(group, signum):
                return
        deadline = _loop_time() + wait
        while _loop_time() < deadline and _signal_group(group, 0):
            await asyncio.sleep(0.02)
        _signal_group(group, signal.SIGKILL)

    async def stop(self, grace: float = APP_GRACE_SECONDS) -> None:
        """Ask the app to quit; after ``grace`` seconds end its process group."""
        task, self._task = self._task, None
        if task is None:
            return
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        await self.send_meta({"type": "quit"})
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(task), grace)
        await self.end()
        await task


def _loop_time() -> float:
    return asyncio.get_running_loop().time()


def _signal_group(group: int, signum: int) -> bool:
    """Send ``signum`` to the process group; False when no process is left in it."""
    try:
        os.killpg(group, signum)
    except ProcessLookupError:
        return False
    except PermissionError:  # not ours to signal: as good as alive
        pass
    return True


class InspectorServer(Server):
    """textual-serve's server with a token, Host/Origin checks and a bound on sessions."""

    def __init__(self, argv: list[str], host: str, port: int, *, max_sessions: int) -> None:
        super().__init__(shlex.join(argv), host=host, port=port, title=TITLE)
        self.argv = argv
        self.max_sessions = max_sessions
        self.token = secrets.token_urlsafe(32)
        self.sessions: dict[AppProcess, web.WebSocketResponse] = {}
        self.console = Console(stderr=True)  # stdout carries only the URL
        self._set_port(port)

    def _set_port(self, port: int) -> None:
        self.port = port
        # A wildcard bind is announced under this machine's name (as Jupyter does).
        name = socket.gethostname() if self.host in WILDCARDS else self.host
        self.public_url = f"http://{url_host(name)}:{port}"

    @property
    def url(self) -> str:
        """The address to open in a browser, with this launch's token."""
        return f"{self.public_url}/?token={self.token}"

    # Who may talk to this server.
    def allows_netloc(self, netloc: str) -> bool:
        """True when ``netloc`` (a Host header, or an Origin's) names this server."""
        parts = urlsplit(f"//{netloc}")
        try:
            port = parts.port
        except ValueError:
            return False
        name = (parts.hostname or "").lower()
        if (port or 80) != self.port or not name:  # browsers leave out port 80
            return False
        if self.host in WILDCARDS:  # any address of this machine, never a DNS name
            return _is_ip_literal(name) or name in {
                *LOOPBACK_ALIASES,
                socket.gethostname().lower(),
                socket.getfqdn().lower(),
            }
        return name == self.host.lower() or (is_loopback(self.host) and name in LOOPBACK_ALIASES)

    def refusal(self, request: web.Request) -> str | None:
        """Why ``request`` is refused (None: it is not)."""
        if not self.allows_netloc(request.headers.get("Host", "")):
            return f"this server answers only at {self.public_url}"
        origin = request.headers.get("Origin")
        if origin is not None:
            parts = urlsplit(origin)
            if parts.scheme != "http" or not self.allows_netloc(parts.netloc):
                return f"a page from {origin} may not use this server"
        return None

    def token_ok(self, token: str | None) -> bool:
        return token is not None and secrets.compare_digest(token, self.token)

    def full(self) -> str | None:
        if len(self.sessions) < self.max_sessions:
            return None
        return (
            f"{len(self.sessions)} sessions are open, the most this server allows "
            f"(inspector serve --max-sessions); close a browser tab of it and try again"
        )

    @web.middleware
    async def guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        reason = self.refusal(request)
        if reason is not None:
            log.warning("refused a request: %s", reason)
            raise web.HTTPForbidden(text=f"inspector serve: {reason}\n")
        response = await handler(request)
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response

    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self.guard])
        aiohttp_jinja2.setup(app, loader=LocalFontsLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws/{token}", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, show_index=False, name="static"),
            ]
        )
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def handle_index(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        if not self.token_ok(request.query.get("token")):
            raise web.HTTPForbidden(
                text="inspector serve: open the address with its token, as printed by "
                "`inspector serve` (…/?token=…)\n"
            )
        if (reason := self.full()) is not None:
            raise web.HTTPServiceUnavailable(text=f"inspector serve: {reason}\n")
        # The page's addresses follow the one the browser used (the guard has checked it).
        static = f"http://{request.host}/static/"
        context = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": f"ws://{request.host}/ws/{self.token}",
            "config": {"static": {"url": static}},
            "application": {"name": self.title},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Content-Security-Policy"] = content_security_policy(request.host)
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        if not self.token_ok(request.match_info["token"]):
            raise web.HTTPForbidden(text="inspector serve: wrong token\n")
        if (reason := self.full()) is not None:
            raise web.HTTPServiceUnavailable(text=f"inspector serve: {reason}\n")
        websocket = web.WebSocketResponse(heartbeat=15)
        app = AppProcess(
            self.argv,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
        )
        self.sessions[app] = websocket  # counted before the first await
        try:
            await websocket.prepare(request)
            await app.start(
                to_int(request.query.get("width", "80"), 80),
                to_int(request.query.get("height", "24"), 24),
            )
            await self._process_messages(websocket, app)
        except asyncio.CancelledError:
            pass
        except Exception as error:  # a broken message: end this session, keep serving
            log.warning("session ended: %r", error)
        finally:
            await app.stop()
            self.sessions.pop(app, None)
            await websocket.close()
        return websocket

    async def on_shutdown(self, app: web.Application) -> None:
        """End every session now: its app's process group, then its websocket."""
        sessions = list(self.sessions.items())
        await asyncio.gather(*(process.end() for process, _ in sessions))
        await asyncio.gather(
            *(websocket.close(code=1001, message=b"server stopped") for _, websocket in sessions),
            return_exceptions=True,
        )

    async def run(self, announce: Callable[[str], None]) -> None:
        """Bind (``CannotListen`` when it cannot), ``announce(url)``, serve until SIGINT/SIGTERM."""
        runner = web.AppRunner(await self._make_app(), access_log=None, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise CannotListen(_reason(exc)) from None
        self._set_port(int(runner.addresses[0][1]))
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        announce(self.url)
        try:
            await stop.wait()
        finally:
            await runner.cleanup()


def content_security_policy(netloc: str) -> str:
    """The page loads from this server only (its inline parts are textual-serve's)."""
    return (
        "default-src 'none'; script-src 'self' 'unsafe-inline'; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; "
        f"connect-src 'self' ws://{netloc}; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


def _reason(error: OSError) -> str:
    """Why a bind failed, in the system's words (asyncio wraps them in a longer sentence)."""
    if isinstance(error, socket.gaierror) or not error.errno:
        return error.strerror or str(error)
    return os.strerror(error.errno)


def _is_ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True
