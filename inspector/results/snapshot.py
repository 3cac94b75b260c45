"""Has a run changed since it was read? A cheap check for reopening it (issue 6).

A :class:`Snapshot` names every file a run's report depends on — the run-level files, each
task folder, its ``task.json`` and its attempts' ``result.json`` (and the task folders under
``running/``) — with ``(mode, size, mtime_ns)`` as the reader saw them while reading, plus
the task folder listing. Checking it again costs one listing and one ``lstat`` per file and
parses nothing. AgentCompass replaces every file it writes (temp file + ``os.replace``), so
a rewritten file has a new modification time; so does a file edited in place.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.results.cache import ABSENT, entry_files

if TYPE_CHECKING:  # pragma: no cover
    from inspector.results.reader import Run
from inspector.results.listing import RUN_FILES, list_task_folders, running_files

Stat = tuple[int, int, int]


@dataclass(frozen=True)
class Snapshot:
    """The files a report was computed from, and what they looked like."""

    listing: tuple[Any, ...]
    rels: tuple[str, ...]
    stats: tuple[Stat, ...]

    def as_data(self) -> tuple[Any, ...]:
        """Plain data (for :mod:`marshal`)."""
        return (self.listing, self.rels, self.stats)

    @classmethod
    def from_data(cls, data: Any) -> Snapshot | None:
        try:
            listing, rels, stats = data
        except (TypeError, ValueError):
            return None
        if not (isinstance(rels, tuple) and isinstance(stats, tuple) and len(rels) == len(stats)):
            return None
        return cls(listing, rels, stats)


def take(run: Run) -> Snapshot | None:
    """The snapshot of a run just read (with the cache on), or None when some file could
    not be stat'ed (then nothing is cached)."""
    if run.seen is None or run.listing is None:
        return None
    rels = list(RUN_FILES)
    for entry in run.entries:
        rels += running_files(entry.folder) if entry.state == "running" else entry_files(entry)
    stats = []
    for rel in rels:
        stat = run.seen.get(rel)
        if stat is None:
            return None
        stats.append(stat)
    return Snapshot(run.listing, tuple(rels), tuple(stats))


# From this many files on, a single-threaded caller checks half of them in a forked child.
FORK_MIN = 20_000


def unchanged(root: Path, snapshot: Snapshot) -> bool:
    """True when the run directory still lists the same task folders and every file of
    the snapshot has the same ``(mode, size, mtime_ns)`` (or is still absent)."""
    base = os.path.abspath(root)
    if list_task_folders(Path(base)) != snapshot.listing:
        return False
    pairs = list(zip(snapshot.rels, snapshot.stats, strict=True))
    if len(pairs) < FORK_MIN or threading.active_count() != 1 or not hasattr(os, "fork"):
        return _same(base, pairs)
    # lstat costs a few microseconds in the kernel; two cores halve it. Forking is safe
    # here only because this process has one thread (the command line, not the app).
    half = len(pairs) // 2
    try:
        pid = os.fork()
    except OSError:
        return _same(base, pairs)
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        try:
            os._exit(0 if _same(base, pairs[half:]) else 1)
        finally:
            os._exit(2)
    mine = _same(base, pairs[:half])
    _, status = os.waitpid(pid, 0)
    return mine and os.waitstatus_to_exitcode(status) == 0


def _same(base: str, pairs: list[tuple[str, Stat]]) -> bool:
    lstat = os.lstat
    for rel, expected in pairs:
        try:
            info = lstat(f"{base}/{rel}")
        except FileNotFoundError:
            if expected != ABSENT:
                return False
            continue
        except OSError:
            return False
        if (info.st_mode, info.st_size, info.st_mtime_ns) != expected:
            return False
    return True
