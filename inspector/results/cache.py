"""An optional cache of task folders, outside the result directory (issue 6).

Reopening an unchanged run should not re-parse every ``result.json``. Each published
task folder's scoring record is stored in the user's cache directory (never under the run),
keyed by the run's real path; each entry carries the signature — path, size and
modification time — of the ``task.json`` and every ``result.json`` it was read from. On
reopen a folder is reused only when every one of those files still has the same signature,
so a live run (new tasks, moved folders, rewritten results) is re-read where it changed.

Records are stored as plain tuples with :mod:`marshal` (fast, and only data: no code is
ever loaded from the cache). Set ``INSPECTOR_CACHE=0`` to disable the cache; the inspector
works the same without it.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
from pathlib import Path
from typing import Any

from inspector.engine.model import Attempt, Issue, TaskRecord
from inspector.results.problems import LoadProblem

FORMAT = 2
Signature = tuple[tuple[str, int, int, int], ...]


def enabled() -> bool:
    return os.environ.get("INSPECTOR_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "agentcompass-inspector" / "runs"


def cache_file(run_root: Path) -> Path:
    key = hashlib.sha256(os.path.realpath(run_root).encode("utf-8", "surrogateescape")).hexdigest()
    return cache_dir() / f"{key[:32]}.marshal"


def signature(root: str, rels: list[str]) -> Signature | None:
    """``(rel, mode, size, mtime_ns)`` of each path (not following a final symbolic link),
    or None when one cannot be stat'ed."""
    out = []
    stat = os.lstat
    for rel in rels:
        try:
            info = stat(f"{root}/{rel}")
        except OSError:
            return None
        out.append((rel, info.st_mode, info.st_size, info.st_mtime_ns))
    return tuple(out)


ABSENT = (0, 0, 0)
"""The ``(mode, size, mtime_ns)`` recorded for a file that does not exist."""


def stat_or_absent(path: str) -> tuple[int, int, int] | None:
    """``(mode, size, mtime_ns)`` of ``path`` (not following a final link), :data:`ABSENT`
    when it does not exist, None when it cannot be stat'ed."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return ABSENT
    except OSError:
        return None
    return (info.st_mode, info.st_size, info.st_mtime_ns)


def unchanged(root: str, signatures: list[Signature]) -> list[bool]:
    """For each signature, whether its files still have it (a worker process's share)."""
    return [signature(root, [item[0] for item in sig]) == sig for sig in signatures]


def known_signature(stats: dict[str, tuple[int, int, int]], rels: list[str]) -> Signature | None:
    """The signature of ``rels`` from what the reader saw as it read them (the folder's
    lstat and each file's fstat), or None when one of them was not seen."""
    try:
        return tuple((rel, *stats[rel]) for rel in rels)
    except KeyError:
        return None


def encode_entry(entry: Any) -> tuple[Any, ...]:
    """A TaskEntry as plain data (tuples, dicts, str, int, float, bool, None)."""
    record = entry.record
    encoded_record = None
    if record is not None:
        encoded_record = (
            record.task_id,
            record.category,
            record.plan_k,
            record.plan_strategy,
            tuple(
                (
                    a.index,
                    a.status,
                    dict(a.metrics),
                    tuple((i.severity, i.phase, i.code, i.message) for i in a.issues),
                    dict(a.scoring_artifacts),
                )
                for a in record.attempts.values()
            ),
            tuple(record.retry_counts.items()),
            record.ground_truth,
            record.source,
        )
    return (
        entry.task_id,
        entry.folder,
        entry.state,
        entry.published,
        encoded_record,
        tuple(entry.attempt_dirs.items()),
        tuple((p.path, p.message, p.rule, p.blocking) for p in entry.problems),
        entry.schema_version,
    )


def decode_entry(data: tuple[Any, ...]) -> Any:
    from inspector.results.tasks import TaskEntry

    task_id, folder, state, published, rec, dirs, problems, schema = data
    record = None
    if rec is not None:
        tid, category, k, strategy, attempts, retries, truth, source = rec
        record = TaskRecord(
            task_id=tid,
            category=category,
            plan_k=k,
            plan_strategy=strategy,
            attempts={
                index: Attempt(index, status, metrics, tuple(Issue(*i) for i in issues), artifacts)
                for index, status, metrics, issues, artifacts in attempts
            },
            retry_counts=dict(retries),
            ground_truth=truth,
            source=source,
        )
    return TaskEntry(
        task_id=task_id,
        folder=folder,
        state=state,
        published=published,
        record=record,
        attempt_dirs=dict(dirs),
        problems=[LoadProblem(*p) for p in problems],
        schema_version=schema,
    )


def entry_files(entry: Any) -> list[str]:
    """What an entry was read from: its folder (a new attempt folder or a symbolic link
    changes it), its task.json and each attempt's result.json."""
    files = [entry.folder, entry.task_file]
    files += [f"{folder}/result.json" for _, folder in sorted(entry.attempt_dirs.items())]
    return files


class TaskCache:
    """Load once, look up folders, save once. Never raises: a broken cache is a miss."""

    def __init__(self, run_root: Path) -> None:
        self.root = str(run_root)
        self.path = cache_file(run_root)
        self.entries: dict[str, tuple[Signature, str, tuple[Any, ...]]] = {}
        self.fresh: dict[str, tuple[Signature, str, tuple[Any, ...]]] = {}
        self.hits = 0
        try:
            with open(self.path, "rb") as handle:
                data = marshal.loads(handle.read())
            if isinstance(data, tuple) and data[:2] == (FORMAT, self.root):
                self.entries = data[2]
        except (OSError, EOFError, ValueError, TypeError, IndexError):
            self.entries = {}

    def candidate(self, folder: str, state: str, first_location: str) -> Signature | None:
        """The signature to check before the cached entry of ``folder`` may be used (None:
        nothing usable is cached). :func:`unchanged` checks it, maybe in another process.

        ``first_location`` (where AgentCompass finds this folder name first) is part of
        the key: a same-named folder appearing in another state folder changes the entry.
        """
        cached = self.entries.get(folder)
        if cached is None:
            return None
        sig, first, data = cached
        if first != first_location or data[2] != state:
            return None
        return sig

    def accept(self, folder: str) -> Any:
        """The cached entry of ``folder``, whose signature was just found unchanged."""
        cached = self.entries[folder]
        self.hits += 1
        self.fresh[folder] = cached
        return decode_entry(cached[2])

    def put(self, entry: Any, first_location: str, seen: Signature | None = None) -> None:
        """Remember an entry that was just read."""
        self.put_encoded(entry, encode_entry(entry), first_location, seen)

    def put_encoded(
        self,
        entry: Any,
        data: tuple[Any, ...],
        first_location: str,
        seen: Signature | None = None,
    ) -> None:
        """``seen``: the signature the reader took while reading; else stat the files now."""
        sig = seen if seen is not None else signature(self.root, entry_files(entry))
        if sig is not None:
            self.fresh[entry.folder] = (sig, first_location, data)

    def save(self) -> None:
        """Write the entries seen in this read (atomically, in the cache directory)."""
        if self.fresh == self.entries:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as handle:
                marshal.dump((FORMAT, self.root, self.fresh), handle)
            os.replace(tmp, self.path)
        except (OSError, ValueError):
            pass
