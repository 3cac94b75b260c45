"""``serve``: the same app in a web browser, through textual-serve.

Bound to 127.0.0.1 by default. Anyone who can reach the address can browse every run the
user can read, so binding elsewhere prints a warning first (as AgentCompass's own viewer
does).
"""

from __future__ import annotations

import ipaddress
import shlex
import socket
import sys
from pathlib import Path

from textual_serve.server import Server

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback(host: str) -> bool:
    """True when ``host`` only accepts connections from this machine."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def free_port(host: str) -> int:
    """A port nobody listens on at ``host`` right now."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def app_command(path: Path | str | None) -> str:
    """The shell command textual-serve runs for each browser session."""
    parts = [sys.executable, "-m", "inspector.app"]
    if path is not None:
        parts.append(str(Path(path).resolve()))
    return shlex.join(parts)


def build_server(path: Path | str | None, host: str = "127.0.0.1", port: int = 0) -> Server:
    """A textual-serve server for the app on ``path`` (port 0: a free port)."""
    if port == 0:
        port = free_port(host)
    return Server(app_command(path), host=host, port=port, title="AgentCompass Inspector")


def serve(path: Path | str | None, host: str = "127.0.0.1", port: int = 0) -> None:
    """Serve the app on ``http://host:port`` until interrupted.

    Args:
        path: A run directory or results root (None: as ``inspector`` with no argument).
        host: The address to bind; anything but loopback exposes local files.
        port: The port (0: the first free one).
    """
    if not is_loopback(host):
        print(
            f"WARNING: serving on {host} exposes every run directory this user can read to "
            "anyone who can reach that address. Use 127.0.0.1 unless you mean it.",
            file=sys.stderr,
        )
    server = build_server(path, host, port)
    print(
        f"Serving the inspector on {server.public_url} (Ctrl+C to stop)",
        file=sys.stderr,
        flush=True,
    )
    server.serve()
