"""The run-level files a report depends on and a run's task folder listing as it is now
(:func:`~inspector.results.run_files.task_folders`). Light on purpose: reopening an
unchanged run needs only this."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from inspector.results.problems import LoadProblem
from inspector.results.run_files import RunFiles, listing_key, task_folders

RUN_FILES = ("run_info.json", "params.json", "metrics.json", "summary.md")
"""The run-level files a report depends on."""


def running_files(folder: str) -> list[str]:
    """What an unpublished ``running/`` entry is read from (for its problems)."""
    return [folder, f"{folder}/task.json"]


def list_task_folders(root: Path) -> tuple[Any, ...]:
    """:func:`listing_key` of a run directory as it is now."""
    problems: list[LoadProblem] = []
    candidates, running = task_folders(RunFiles(root), problems)
    return listing_key(candidates, running, problems)


def repr_pieces(listing: Any) -> Iterator[str]:
    """``repr(listing)`` in pieces (a tuple's tuples of 2 items or more taken apart): a
    digest of a large run's listing without its whole repr (100 MB at a million folders)."""
    if type(listing) is not tuple or len(listing) < 2:
        yield repr(listing)
        return
    for number, part in enumerate(listing):
        yield ", " if number else "("
        if type(part) is not tuple or len(part) < 2:
            yield repr(part)
            continue
        for at in range(0, len(part), 4096):
            yield (", " if at else "(") + ", ".join(map(repr, part[at : at + 4096]))
        yield ")"
    yield ")"
