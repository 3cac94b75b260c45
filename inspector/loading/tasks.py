"""A run's task store: each task folder's entry, and its reductions under a plan.

Reopening an unchanged run should not parse every ``result.json`` again. Each task folder
read is kept in the run's store (never under the run) with the key of every file it was
read from (its folder, ``task.json`` and each attempt's ``result.json``, as git's index
keys files) and where AgentCompass finds its name first. A folder is taken from the store
only when every one of those files still has its key, so a live run is read again where
it changed. Beside each entry, its task's reductions under the plan it was last scored
with (a pure function of the record and the plan): a reopen after N changed folders
reduces N tasks. A folder with a file written too recently to tell (racy) is left out.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from inspector.loading import store
from inspector.loading.records import OPTIONS, EntryRec, IssueRec, entry_record, task_entry
from inspector.results.file_io import stat_key
from inspector.results.layout import AttemptDirs

Signature = tuple[tuple[Any, ...], ...]
"""Per file ``(rel, device, inode, mode, size, mtime_ns, ctime_ns)``."""
DELTA_MIN = 64
DELTA_SHARE = 8
"""The delta file holds at most one folder in this many (or :data:`DELTA_MIN`)."""


class KeptEntry(msgspec.Struct, **OPTIONS):
    """A task folder in the task store: the key of each of its files as read (``rel`` and
    the :data:`Stat`), where AgentCompass finds its name first, its entry, and its
    reductions under the plan it was last scored with."""

    files: tuple[tuple[str, int, int, int, int, int, int], ...]
    first: str
    entry: EntryRec
    reductions: Reductions | None = None


class ReasonRec(msgspec.Struct, **OPTIONS):
    code: str
    text: str
    attempts: tuple[int, ...]
    issue: IssueRec | None


class ReductionRec(msgspec.Struct, **OPTIONS):
    value: float | int | None
    state: str
    has_error: bool
    coverage: tuple[int, int, int, int]
    missing_attempts: int
    invalidated: bool
    early_stopped: bool
    reasons: tuple[ReasonRec, ...]


class Reductions(msgspec.Struct, **OPTIONS):
    """One task's reductions (one per series, in order) under the plan named ``plan``."""

    plan: str
    series: tuple[ReductionRec, ...]


class TaskStore(msgspec.Struct, **OPTIONS):
    """A run's task store (or its delta: a folder gone or no longer kept is None)."""

    root: str
    entries: dict[str, KeptEntry | None]


def reduction_records(plan: str, reductions: Any) -> Reductions:
    """One task's reductions (engine objects) as a record."""
    return Reductions(
        plan,
        tuple(
            [
                ReductionRec(
                    r.value,
                    r.state,
                    r.has_error,
                    (r.coverage.requested, r.coverage.observed, r.coverage.valid, r.coverage.error),
                    r.missing_attempts,
                    r.invalidated,
                    r.early_stopped,
                    tuple(
                        [
                            ReasonRec(
                                x.code,
                                x.text,
                                tuple(x.attempts),
                                None
                                if x.issue is None
                                else IssueRec(
                                    x.issue.severity, x.issue.phase, x.issue.code, x.issue.message
                                ),
                            )
                            for x in r.reasons
                        ]
                    ),
                )
                for r in reductions
            ]
        ),
    )


class ReductionMaker:
    """Engine reductions from records; equal coverages and reason lists (most tasks of a
    run share a handful) are made once and shared, as they are immutable."""

    def __init__(self, series: tuple[str, ...]) -> None:
        from inspector.engine.vocabulary import STATES

        self.series = series
        self.states = frozenset(STATES)
        self.coverages: dict[Any, Any] = {}
        self.reasons: dict[Any, Any] = {(): ()}

    def make(self, rec: Reductions, task_id: str) -> list[Any] | None:
        """The task's reductions, None when they are not one per series in valid states."""
        from inspector.engine.model import Issue
        from inspector.engine.reduction import Coverage, Reason, TaskReduction

        if len(rec.series) != len(self.series):
            return None
        out = []
        for series_id, r in zip(self.series, rec.series, strict=True):
            if r.state not in self.states:
                return None
            coverage = self.coverages.get(r.coverage)
            if coverage is None:
                coverage = self.coverages[r.coverage] = Coverage(*r.coverage)
            reasons = self.reasons.get(r.reasons)
            if reasons is None:
                reasons = self.reasons[r.reasons] = tuple(
                    [
                        Reason(
                            x.code,
                            x.text,
                            x.attempts,
                            None
                            if x.issue is None
                            else Issue(
                                x.issue.severity, x.issue.phase, x.issue.code, x.issue.message
                            ),
                        )
                        for x in r.reasons
                    ]
                )
            out.append(
                TaskReduction(
                    task_id,
                    series_id,
                    r.value,
                    r.state,
                    r.has_error,
                    coverage,
                    r.missing_attempts,
                    r.invalidated,
                    r.early_stopped,
                    reasons,
                )
            )
        return out


def store_file(run_root: Path, folder: Path | None = None) -> Path:
    """Where the task store of a run is kept (``folder``: the runs folder, else the user's)."""
    return store.run_folder(run_root, folder) / "tasks"


def delta_file(path: Path) -> Path:
    """Beside a run's task store: the folders changed since it was written."""
    return path.with_name(path.name + ".delta")


def signature(root: str, rels: list[str]) -> Signature | None:
    """``(rel, *stat_key)`` of each path (not following a final link), None when one cannot
    be stat'ed."""
    out = []
    lstat = os.lstat
    for rel in rels:
        try:
            info = lstat(f"{root}/{rel}")
        except OSError:
            return None
        out.append((rel, *stat_key(info)))
    return tuple(out)


def unchanged(root: str, signatures: list[Signature]) -> list[bool]:
    """For each signature, whether its files still have it (a worker process's share)."""
    return [signature(root, [item[0] for item in sig]) == sig for sig in signatures]


def known_signature(stats: dict[str, Any], rels: list[str]) -> Signature | None:
    """The signature of ``rels`` from what the reader saw as it read them (the folder's
    lstat and each file's fstat), None when one of them was not seen."""
    try:
        return tuple((rel, *stats[rel]) for rel in rels)
    except KeyError:
        return None


def signature_is_racy(sig: Signature, fence_ns: int) -> bool:
    """Whether any file of ``sig`` is racy (:func:`~inspector.loading.store.is_racy`); a
    folder whose newest stamp is older than the coarse granularity is answered at once."""
    newest = max([max(item[5], item[6]) for item in sig], default=0)
    if newest < fence_ns - store.COARSE_GRANULARITY_NS:
        return False
    return any(store.is_racy(item[1:], fence_ns) for item in sig)


def entry_files(entry: Any) -> list[str]:
    """What an entry was read from: its folder (a new attempt folder or a symbolic link
    changes it), its task.json and each attempt's result.json."""
    dirs = entry.attempt_dirs
    if type(dirs) is AttemptDirs:  # the usual attempt-N folders: their paths from the numbers
        tail = [f"{dirs.folder}/attempt-{number}/result.json" for number in sorted(dirs.numbers)]
        return [entry.folder, entry.task_file, *tail]
    files = [entry.folder, entry.task_file]
    return files + [f"{folder}/result.json" for _, folder in sorted(dirs.items())]


class TaskCache:
    """Load once, look up folders, save once. Never raises: a broken store is a miss.

    Args:
        run_root: The run directory.
        reuse: False takes nothing from the store (every folder is read again; what is
            read is still kept for next time).
    """

    def __init__(self, run_root: Path, *, reuse: bool = True) -> None:
        self.root = str(run_root)
        self.path = store_file(run_root)
        self.fence = time.time_ns()  # before any task file is read: see store.is_racy
        self.entries: dict[str, KeptEntry | None] = {}
        # Per folder read or taken from the store: its signature, where AgentCompass finds
        # it first, and its record (None until :meth:`save`: see :attr:`unencoded`).
        self.fresh: dict[str, tuple[Signature, str, Any]] = {}
        self.unencoded: dict[str, Any] = {}
        self.kept: dict[str, Any] = {}  # folder -> its stored reductions
        self.attached: dict[str, Any] = {}  # folder -> its reductions to store
        self.hits = 0
        self.delta: dict[str, KeptEntry | None] = {}
        base = self._stored(self.path) if reuse else None
        if base is not None:
            self.entries = base
            delta = self._stored(delta_file(self.path))
            if delta:
                self.delta = delta
                base.update(delta)

    def _stored(self, path: Path) -> dict[str, KeptEntry | None] | None:
        found = store.load(path, TaskStore)
        return found.entries if found is not None and found.root == self.root else None

    def candidate(self, folder: str, state: str, first_location: str) -> Signature | None:
        """The signature to check before the stored entry of ``folder`` may be used (None:
        nothing usable is kept). ``first_location`` is part of the key: a same-named folder
        appearing in another state folder changes the entry."""
        kept = self.entries.get(folder)
        if kept is None or kept.first != first_location or kept.entry.state != state:
            return None
        return kept.files

    def accept(self, folder: str) -> Any:
        """The stored entry of ``folder``, whose signature was just found unchanged (None:
        it is not an entry of this folder, and the folder is read)."""
        kept = self.entries[folder]
        assert kept is not None
        entry = task_entry(kept.entry, folder)
        if entry is None or kept.entry.folder != folder:
            return None
        self.hits += 1
        self.fresh[folder] = (kept.files, kept.first, kept.entry)
        if kept.reductions is not None:
            self.kept[folder] = kept.reductions
        return entry

    def put(self, entry: Any, first_location: str, seen: Signature | None = None) -> None:
        """Remember an entry just read; its record is made only when the store is saved."""
        self.put_encoded(entry, None, first_location, seen)

    def put_encoded(
        self, entry: Any, record: Any, first_location: str, seen: Signature | None = None
    ) -> None:
        """``record``: the entry's record, when a reader process sent it so. ``seen``: the
        signature the reader took while reading; else stat the files now. A folder with
        a racy file is not remembered."""
        sig = seen if seen is not None else signature(self.root, entry_files(entry))
        if sig is not None and not signature_is_racy(sig, self.fence):
            self.fresh[entry.folder] = (sig, first_location, record)
            if record is None:
                self.unencoded[entry.folder] = entry

    def save(self) -> None:
        """Write the entries seen in this read (atomically). When few folders changed since
        the base file was written, only they go to the delta file (a folder gone as None);
        the base is written whole again once the delta grows past :data:`DELTA_SHARE` of
        it. Every entry is checked against its files before use, so any base and delta
        combined (one written, the other not) give misses, never a wrong entry."""
        attached, entries, unencoded = self.attached, self.entries, self.unencoded
        try:
            out = {
                folder: KeptEntry(
                    sig,
                    first,
                    entry_record(unencoded[folder]) if rec is None else rec,
                    attached.get(folder),
                )
                for folder, (sig, first, rec) in self.fresh.items()
            }
        except (TypeError, ValueError, OverflowError):
            return
        changed = {folder: value for folder, value in out.items() if entries.get(folder) != value}
        gone = [
            folder for folder, value in entries.items() if value is not None and folder not in out
        ]
        if not changed and not gone:
            return
        delta = {**self.delta, **changed, **dict.fromkeys(gone)}
        if entries and len(delta) <= max(DELTA_MIN, len(out) // DELTA_SHARE):
            store.write_atomically(delta_file(self.path), TaskStore(self.root, delta))
        elif store.write_atomically(self.path, TaskStore(self.root, out)):  # type: ignore[arg-type]
            with contextlib.suppress(OSError):
                os.unlink(delta_file(self.path))


def plan_key(stream: Any) -> str:
    """The plan a reduction stream reduces under, as one key."""
    contract, k, strategy = stream.key
    text = repr((list(contract.metrics.items()), k, strategy))
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


class ReductionCache:
    """The reductions of one run's tasks under one plan, kept beside each task's entry (so
    they are valid exactly as long as the entry is): looked up as the tasks arrive,
    attached for storing once the run is scored."""

    def __init__(self, cache: TaskCache, stream: Any) -> None:
        self.cache = cache
        self.stream = stream
        self.series = tuple(stream.series_ids)
        self.key = plan_key(stream)
        self.maker = ReductionMaker(self.series)
        self.reused: dict[str, Any] = {}

    def add(self, tasks: Sequence[Any]) -> None:
        """Hand ``tasks`` to the stream, with the reductions kept for those whose entry
        came from the store."""
        kept = self.cache.kept
        if not kept:
            self.stream.add(tasks)
            return
        known: list[Any] = []
        key, make = self.key, self.maker.make
        for task in tasks:
            folder = task.source.rpartition("/")[0]
            stored = kept.get(folder)
            done = None
            if stored is not None and stored.plan == key:
                done = make(stored, task.task_id)
                if done is not None:
                    self.reused[folder] = stored
            known.append(done)
        self.stream.add(tasks, known)

    def attach(self) -> None:
        """Give the task store each keepable task's reductions to store with its entry."""
        stream, fresh = self.stream, self.cache.fresh
        if stream.failed:
            return
        columns = [stream.by_series[series_id] for series_id in self.series]
        attached, reused, key = self.cache.attached, self.reused, self.key
        for position, task in enumerate(stream.tasks):
            folder = task.source.rpartition("/")[0]
            stored = reused.get(folder)
            if stored is not None:
                attached[folder] = stored
            elif folder in fresh:
                attached[folder] = reduction_records(key, [c[position] for c in columns])
