"""``serve``: the same app in a web browser, through textual-serve.

Bound to 127.0.0.1 by default. Anyone who can reach the address and knows the token printed
at launch can browse every run the user can read, so binding elsewhere prints a warning
first (as AgentCompass's own viewer does). The first line on stdout is the address to open,
token included (as Jupyter prints it), written once the socket is bound.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

from inspector.app.web_server import CannotListen, InspectorServer, is_loopback, url_host

DEFAULT_MAX_SESSIONS = 4

__all__ = ["DEFAULT_MAX_SESSIONS", "app_argv", "build_server", "is_loopback", "serve", "url_host"]


def app_argv(path: Path | str | None) -> list[str]:
    """The command textual-serve runs for each browser session."""
    argv = [sys.executable, "-m", "inspector.app"]
    if path is not None:
        argv.append(str(Path(path).resolve()))
    return argv


def build_server(
    path: Path | str | None,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
) -> InspectorServer:
    """The server for the app on ``path`` (port 0: one the system picks when it binds)."""
    return InspectorServer(app_argv(path), host, port, max_sessions=max_sessions)


def serve(
    path: Path | str | None,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
) -> int:
    """Serve the app until SIGINT/SIGTERM; the exit code (2: cannot serve, said in one line).

    Args:
        path: A run directory or results root (None: as ``inspector`` with no argument).
        host: The address to bind; anything but loopback exposes local files.
        port: The port (0: one the system picks).
        max_sessions: How many browser sessions (each a full app) may run at once.
    """
    if max_sessions < 1:
        print(
            f"inspector serve: --max-sessions must be at least 1, not {max_sessions}",
            file=sys.stderr,
        )
        return 2
    server = build_server(path, host, port, max_sessions=max_sessions)
    logging.basicConfig(level=logging.WARNING, format="inspector serve: %(message)s")

    def announce(url: str) -> None:
        print(url, flush=True)
        if not is_loopback(host):
            print(
                f"WARNING: serving on {host} exposes every run directory this user can read "
                "to anyone who can reach that address and has the token. Use 127.0.0.1 "
                "unless you mean it.",
                file=sys.stderr,
            )
        print(
            f"inspector serve: open the address above in a browser; at most {max_sessions} "
            "sessions at once (Ctrl+C to stop)",
            file=sys.stderr,
            flush=True,
        )

    try:
        asyncio.run(server.run(announce))
    except CannotListen as exc:
        print(
            f"inspector serve: cannot listen on {url_host(host)}:{port}: {exc}",
            file=sys.stderr,
        )
        return 2
    return 0
