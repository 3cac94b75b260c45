"""Attempt payloads and retry records for the screens, parsed only when they are small enough.

A ``result.json`` can hold a trajectory of hundreds of megabytes. Parsing it whole would
cost several times its size in memory, so a file of :data:`STREAM_BYTES` or more in
AgentCompass's layout is read by :func:`inspector.results.stream.open_streamed`: everything
but the trajectory's steps parsed, the steps located (8 bytes a step) and parsed a page at a
time when shown. Another large file is parsed whole up to :data:`PARSE_LIMIT` bytes; a
larger one raises :class:`PayloadTooLarge`, and the diagnostics screen pages the raw file
from disk instead (its line index costs 8 bytes a line) and offers ``$PAGER``.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Any

from inspector.results.layout import relpath
from inspector.results.lazy import attempt_dir, read_attempt_payload
from inspector.results.problems import RULE_JSON, LoadProblem, ResultFileError
from inspector.results.reader import Run
from inspector.results.run_files import RunFiles
from inspector.results.stream import NotStreamable, StreamedAttempt, open_streamed
from inspector.results.tasks import TaskEntry

PARSE_LIMIT = 32 * 1024**2
"""The largest JSON file (bytes) the screens parse; larger ones are paged raw."""

STREAM_BYTES = 2 * 1024**2
"""From this size on, a result.json in AgentCompass's layout has its steps read a page at a time."""

MIB = 1024**2
_STREAMED: OrderedDict[tuple[str, int, int, int], StreamedAttempt] = OrderedDict()
"""The files opened last (the task screen's, then its diagnostics'), by path and stat."""
_STREAMED_KEEP = 4
_STREAMED_LOCK = threading.Lock()


class PayloadTooLarge(ResultFileError):
    """A JSON file larger than the screens parse; ``problem.path`` names it."""

    def __init__(self, path: str, size: int, limit: int) -> None:
        message = (
            f"{too_large_message(size, limit)}: the raw file is paged from disk;"
            " o opens it in $PAGER"
        )
        super().__init__(LoadProblem(path, message, RULE_JSON, False))
        self.size = size
        self.limit = limit


def too_large_message(size: int, limit: int) -> str:
    """``"203.9 MiB, more than the 32.0 MiB the inspector parses for display"``."""
    return f"{_size(size)}, more than the {_size(limit)} the inspector parses for display"


def _size(count: int) -> str:
    if count >= MIB:
        return f"{count / MIB:,.1f} MiB"
    return f"{count / 1024:,.1f} KiB"


def result_path(entry: TaskEntry, index: int) -> str:
    """The relative path of attempt ``index``'s ``result.json``."""
    return relpath(attempt_dir(entry, index), "result.json")


def check_size(run: Run, rel: str, limit: int | None = None) -> None:
    """Raise :class:`PayloadTooLarge` when ``rel`` is larger than ``limit`` bytes
    (default :data:`PARSE_LIMIT`).

    A missing or unreadable file passes: the reader reports it when it opens the file.
    """
    limit = PARSE_LIMIT if limit is None else limit
    files = RunFiles(run.path)
    if files.link_problem(rel, strict=False) is not None:
        return
    try:
        size = os.stat(files.path(rel)).st_size
    except OSError:
        return
    if size > limit:
        raise PayloadTooLarge(rel, size, limit)


def read_payload(
    run: Run, entry: TaskEntry, index: int, limit: int | None = None
) -> dict[str, Any]:
    """The parsed ``result.json`` of attempt ``index``, if it is at most ``limit`` bytes
    (default :data:`PARSE_LIMIT`). Without ``limit``, a large file in AgentCompass's layout
    comes with ``trajectory.steps`` a :class:`~inspector.results.stream.StepList` (its
    steps read from the file when asked for), whatever its size.

    Raises:
        PayloadTooLarge: The file is larger than ``limit``.
        ResultFileError: The file cannot be read or parsed (its ``LoadProblem``).
    """
    rel = result_path(entry, index)
    streamed = _streamed(run, rel) if limit is None else None
    if streamed is not None:
        return streamed.payload
    check_size(run, rel, limit)
    return read_attempt_payload(run, entry, index)


def _streamed(run: Run, rel: str) -> StreamedAttempt | None:
    """``rel`` opened by :func:`open_streamed` when it is large and laid out as AgentCompass
    writes it (None otherwise); the last few are kept, keyed by the file's stat."""
    files = RunFiles(run.path)
    if files.link_problem(rel, strict=False) is not None:
        return None
    try:
        info = os.stat(files.path(rel))
    except OSError:
        return None
    if info.st_size < STREAM_BYTES:
        return None
    key = (str(files.path(rel)), info.st_ino, info.st_size, info.st_mtime_ns)
    with _STREAMED_LOCK:
        if key in _STREAMED:
            _STREAMED.move_to_end(key)
            return _STREAMED[key]
    try:
        streamed = open_streamed(run.path, rel)
    except NotStreamable:
        return None
    with _STREAMED_LOCK:
        _STREAMED[key] = streamed
        while len(_STREAMED) > _STREAMED_KEEP:
            _STREAMED.popitem(last=False)
    return streamed
