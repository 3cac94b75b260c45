"""Standard output of the headless commands.

On a terminal, whatever the format (table, CSV, JSON Lines, JSON, Markdown), control, escape,
bidirectional-override and zero-width characters from result files are shown as visible
stand-ins (:func:`inspector.views.visible.visible`), so a task id cannot clear the screen or write
to the clipboard. To a pipe or a file the exact bytes are written: ``report --json`` and
``--markdown`` stay AgentCompass's ``metrics.json`` and ``summary.md`` byte for byte.

A reader that goes away early (``inspector diff A B | head``) changes nothing but the output:
the rest is dropped and the command's exit status stays what its result says.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from typing import TextIO

from inspector.views.visible import visible


class Stdout(io.TextIOBase):
    """``sys.stdout`` while a headless command runs."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self._stream = stream
        self.terminal = _isatty(stream)
        self.reader_gone = False

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.terminal

    def write(self, text: str) -> int:
        if not self.reader_gone:
            with self._pipe_guard():
                self._stream.write(visible(text) if self.terminal else text)
        return len(text)

    def write_exact(self, text: str) -> None:
        """``text`` as UTF-8 whatever the locale (visible stand-ins on a terminal)."""
        buffer = getattr(self._stream, "buffer", None)
        if self.terminal or buffer is None:  # buffer None: a text-only stream (tests)
            self.write(text)
            return
        if not self.reader_gone:
            with self._pipe_guard():
                self._stream.flush()
                buffer.write(text.encode("utf-8"))
                buffer.flush()

    def flush(self) -> None:
        if not self.reader_gone:
            with self._pipe_guard():
                self._stream.flush()

    @contextlib.contextmanager
    def _pipe_guard(self) -> Iterator[None]:
        try:
            yield
        except BrokenPipeError:
            self.reader_gone = True
            # What is still buffered (and flushed at exit) goes nowhere, without a complaint.
            with contextlib.suppress(OSError, ValueError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, self._stream.fileno())
                os.close(devnull)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def command_stdout() -> Iterator[Stdout]:
    """Route ``sys.stdout`` through :class:`Stdout` for one command."""
    original = sys.stdout
    guarded = Stdout(original)
    sys.stdout = guarded
    try:
        yield guarded
        guarded.flush()
    finally:
        sys.stdout = original


def write_exact(text: str) -> None:
    """Write ``text`` to stdout as UTF-8 whatever the locale: the bytes of AgentCompass's file."""
    out = sys.stdout
    (out if isinstance(out, Stdout) else Stdout(out)).write_exact(text)
