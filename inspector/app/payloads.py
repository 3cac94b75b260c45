"""Attempt payloads and retry records for the screens, parsed only when they are small enough.

A ``result.json`` can hold a trajectory of hundreds of megabytes. Parsing it whole would
cost several times its size in memory, so the task and diagnostics screens parse at most
:data:`PARSE_LIMIT` bytes; a larger file raises :class:`PayloadTooLarge`, and the
diagnostics screen pages the raw file from disk instead (its line index costs 8 bytes a
line) and offers ``$PAGER``.
"""

from __future__ import annotations

import os
from typing import Any

from inspector.results.layout import relpath
from inspector.results.lazy import attempt_dir, read_attempt_payload
from inspector.results.problems import RULE_JSON, LoadProblem, ResultFileError
from inspector.results.reader import Run
from inspector.results.run_files import RunFiles
from inspector.results.tasks import TaskEntry

PARSE_LIMIT = 32 * 1024**2
"""The largest JSON file (bytes) the screens parse; larger ones are paged raw."""

MIB = 1024**2


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
    (default :data:`PARSE_LIMIT`).

    Raises:
        PayloadTooLarge: The file is larger than ``limit``.
        ResultFileError: The file cannot be read or parsed (its ``LoadProblem``).
    """
    check_size(run, result_path(entry, index), limit)
    return read_attempt_payload(run, entry, index)
