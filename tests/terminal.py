"""Run a command on a real pseudo-terminal, as a person's shell would, and read what it wrote."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import termios
import time
from collections.abc import Sequence
from pathlib import Path


class OnTerminal:
    """A process whose stdin, stdout and stderr are one pseudo-terminal (``cols`` × ``rows``)."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path | str | None = None,
        env: dict[str, str] | None = None,
        cols: int = 100,
        rows: int = 30,
    ) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.master = master
        self.output = b""
        self.process = subprocess.Popen(
            list(argv),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env={**os.environ, "TERM": "xterm-256color", **(env or {})},
            start_new_session=True,
        )
        os.close(slave)

    def read_until(self, wanted: bytes, timeout: float = 60.0) -> bool:
        """Read until ``wanted`` has been written (True) or the time is up / the process ended."""
        deadline = time.monotonic() + timeout
        while wanted not in self.output:
            left = deadline - time.monotonic()
            if left <= 0 or (not self._read(min(left, 0.5)) and self.process.poll() is not None):
                return wanted in self.output
        return True

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True  # nothing yet, still open
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # the other side closed (Linux: EIO)
            return False
        self.output += chunk
        return bool(chunk)

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def finish(self, timeout: float = 30.0) -> int:
        """Read everything until the process exits; its exit status."""
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            self._read(0.2)
        while self._read(0.05) and select.select([self.master], [], [], 0)[0]:
            pass
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)
        return self.process.returncode


def run_on_terminal(argv: Sequence[str], **options: object) -> tuple[int, bytes]:
    """Run a command that ends by itself on a pseudo-terminal: (exit status, bytes written)."""
    term = OnTerminal(argv, **options)  # type: ignore[arg-type]
    code = term.finish()
    return code, term.output
