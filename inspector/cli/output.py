"""Standard output of the headless commands.

On a terminal, whatever the format (table, CSV, JSON Lines, JSON, Markdown), control, escape,
bidirectional-override and zero-width characters from result files are shown as visible
stand-ins (:func:`inspector.views.visible.visible`), so a task id cannot clear the screen or write
to the clipboard. To a pipe or a file the exact bytes are written: ``report --json`` and
``--markdown`` stay AgentCompass's ``metrics.json`` and ``summary.md`` byte for byte.

A reader that goes away early (``inspector diff A B | head``) changes nothing but the output:
the rest is dropped and the command's exit status stays what its result says.

In a GitHub Actions log (``GITHUB_ACTIONS=true`` and stdout not a regular file) every line of
stdout is written inside GitHub's ``::stop-commands::<token>`` … ``::<token>::`` block, the
token random for each command, so that a task id like ``::add-mask::…`` or ``x\\r::error::…``
is printed, never run as a workflow command. Stdout redirected to a file is written exactly
as anywhere else (``report --json > m.json`` is metrics.json byte for byte); a program reading
stdout through a pipe in a workflow step sees the two marker lines (run that command with
``GITHUB_ACTIONS=false``, or write to a file). Workflow commands the inspector means (the
gate's ``::error`` annotations, :func:`workflow_command`) are written after the block ends, on
stdout: the runner reads stdout and stderr on separate threads and processes stderr's lines
first, so on stderr they could land inside the block and be ignored. Lines on stderr are never
inside a block, for the same reason: they are made inert one by one
(:func:`inspector.views.visible.inert_in_workflow_log`).
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import stat
import sys
from collections.abc import Iterator
from typing import TextIO

from inspector.views.visible import visible


class Stdout(io.TextIOBase):
    """``sys.stdout`` while a headless command runs."""

    def __init__(self, stream: TextIO, *, stop_commands: bool = False) -> None:
        super().__init__()
        self._stream = stream
        self.terminal = _isatty(stream)
        self.reader_gone = False
        self.stop_token = secrets.token_hex(16) if stop_commands else None
        """Set in a GitHub Actions log: what ends this command's ``::stop-commands::`` block."""
        self._in_block = False
        self._line_start = True

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.terminal

    def write(self, text: str) -> int:
        if not self.reader_gone and text:
            with self._pipe_guard():
                self._start_block()
                written = visible(text) if self.terminal else text
                self._stream.write(written)
                self._line_start = written.endswith(("\n", "\r"))
        return len(text)

    def write_exact(self, text: str) -> None:
        """``text`` as UTF-8 whatever the locale (visible stand-ins on a terminal)."""
        buffer = getattr(self._stream, "buffer", None)
        if self.terminal or buffer is None:  # buffer None: a text-only stream (tests)
            self.write(text)
            return
        if not self.reader_gone and text:
            with self._pipe_guard():
                self._start_block()
                self._stream.flush()
                buffer.write(text.encode("utf-8"))
                buffer.flush()
                self._line_start = text.endswith(("\n", "\r"))

    def _start_block(self) -> None:
        if self.stop_token is not None and not self._in_block:
            self._stream.write(f"::stop-commands::{self.stop_token}\n")
            self._in_block = True

    def end_block(self) -> None:
        """End the ``::stop-commands::`` block (the next write starts another), on a line of
        its own."""
        if self._in_block and not self.reader_gone:
            with self._pipe_guard():
                self._stream.write(("" if self._line_start else "\n") + f"::{self.stop_token}::\n")
                self._stream.flush()
        self._in_block, self._line_start = False, True

    def command_line(self, line: str) -> None:
        """A workflow command the inspector means, outside the block."""
        self.end_block()
        if not self.reader_gone:
            with self._pipe_guard():
                self._stream.write(line + "\n")
                self._stream.flush()

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


def in_workflow_log(stream: TextIO) -> bool:
    """``GITHUB_ACTIONS=true`` and ``stream`` is not a regular file (a pipe, a terminal: the
    runner's log); a file it is redirected to is left as it is."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return False
    try:
        return not stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):  # no file descriptor: not a file either
        return True


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def command_stdout() -> Iterator[Stdout]:
    """Route ``sys.stdout`` through :class:`Stdout` for one command (inside a
    ``::stop-commands::`` block in a GitHub Actions log)."""
    original = sys.stdout
    guarded = Stdout(original, stop_commands=in_workflow_log(original))
    sys.stdout = guarded
    try:
        yield guarded
        guarded.flush()
    finally:
        with contextlib.suppress(OSError, ValueError):
            guarded.end_block()
        sys.stdout = original


def write_exact(text: str) -> None:
    """Write ``text`` to stdout as UTF-8 whatever the locale: the bytes of AgentCompass's file."""
    out = sys.stdout
    (out if isinstance(out, Stdout) else Stdout(out)).write_exact(text)


def workflow_command(line: str) -> None:
    """``line``, a GitHub workflow command the inspector writes itself (its data escaped by
    the caller): on stdout after the ``::stop-commands::`` block when stdout is the log, else on
    stderr (stdout is a file)."""
    out = sys.stdout
    if isinstance(out, Stdout) and out.stop_token is not None:
        out.command_line(line)
        return
    with contextlib.suppress(BrokenPipeError):
        print(line, file=sys.stderr, flush=True)
