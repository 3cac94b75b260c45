"""A run's task store: each task folder's entry, and its reductions under a plan.

Each task folder read is kept with the key of every file it was read from (its folder,
``task.json``, each attempt's ``result.json``) and where AgentCompass finds its name first;
it is taken from the store only while every one of those keys is unchanged, so a live run
is read again where it changed. Beside each entry, its task's reductions under the plan it
was last scored with: a reopen after N changed folders reduces N tasks. A folder with a
file written too recently to tell (racy) is left out.
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
from inspector.loading.index import Checked, Signature
from inspector.loading.processes import halves_in_fork, in_shared_pool, workers
from inspector.loading.records import (
    OPTIONS,
    EntryRec,
    IssueRec,
    entry_record,
    issue_of,
    issue_rec,
    task_entry,
)
from inspector.results.file_io import stat_key

DELTA_MIN = 64
DELTA_SHARE = 8
"""The delta file holds at most one folder in this many (or :data:`DELTA_MIN`)."""
CHECK_PARALLEL_MIN, CHECK_CHUNK = 1500, 250
"""From this many stored folders on, the app's shared reader processes check them, in
parts of at least this many."""
FORK_CHECK_MIN = 4000
"""From this many stored folders on, a single-threaded caller checks half of them in a
forked child (about five files each)."""


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
    out = []
    for r in reductions:
        c = r.coverage
        reasons = [
            ReasonRec(x.code, x.text, tuple(x.attempts), issue_rec(x.issue)) for x in r.reasons
        ]
        coverage = (c.requested, c.observed, c.valid, c.error)
        out.append(ReductionRec(r.value, r.state, r.has_error, coverage, r.missing_attempts,
                                r.invalidated, r.early_stopped, tuple(reasons)))  # fmt: skip
    return Reductions(plan, tuple(out))


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
                made = [Reason(x.code, x.text, x.attempts, issue_of(x.issue)) for x in r.reasons]
                reasons = self.reasons[r.reasons] = tuple(made)
            out.append(TaskReduction(task_id, series_id, r.value, r.state, r.has_error, coverage,
                                     r.missing_attempts, r.invalidated, r.early_stopped, reasons))  # fmt: skip
        return out


def store_file(run_root: Path, folder: Path | None = None) -> Path:
    """Where the task store of a run is kept (``folder``: the runs folder, else the user's)."""
    return store.run_folder(run_root, folder) / "tasks"


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


def signature_is_racy(sig: Signature, fence_ns: int) -> bool:
    """Whether any file of ``sig`` is racy (:func:`~inspector.loading.store.is_racy`); a
    folder whose newest stamp is older than the coarse granularity is answered at once."""
    newest = max([max(item[5], item[6]) for item in sig], default=0)
    if newest < fence_ns - store.COARSE_GRANULARITY_NS:
        return False
    return any(store.is_racy(item[1:], fence_ns) for item in sig)


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
        self.delta_path = self.path.with_name("tasks.delta")  # the folders changed since
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
        if reuse:  # the base, then the folders changed since it was written (its delta)
            base = store.load(self.path, TaskStore)
            if base is not None and base.root == self.root:
                self.entries = base.entries
                delta = store.load(self.delta_path, TaskStore)
                if delta is not None and delta.root == self.root and delta.entries:
                    self.delta = delta.entries
                    self.entries.update(delta.entries)

    def look_up(
        self,
        entries: list[Any],
        candidates: Sequence[tuple[str, str]],
        first_location: dict[str, str],
        checked: Checked | None,
        shared: bool,
    ) -> list[int]:
        """Put in ``entries`` (by position) every candidate folder whose stored entry may
        be used (every file it was read from still has its key, and the folder is still
        the first of its name where AgentCompass looks); the positions of the rest.
        ``checked``: what the report store's check found (its unchanged files are not
        stat'ed again). ``shared``: the caller has threads (the app)."""
        known: dict[int, Signature] = {}
        for position, (folder, state) in enumerate(candidates):
            kept = self.entries.get(folder)
            first = first_location[folder.rpartition("/")[2]]
            if kept is not None and kept.first == first and kept.entry.state == state:
                known[position] = kept.files
        hits: set[int] = set()
        if checked is not None:
            hits = {position for position, sig in known.items() if checked.covers(sig)}
        rest = [position for position in known if position not in hits]
        hits.update(p for p, ok in zip(rest, self._check(known, rest, shared), strict=True) if ok)
        missing = []
        for position, (folder, _) in enumerate(candidates):
            entry = self.accept(folder) if position in hits else None
            if entry is not None:
                entries[position] = entry
            else:
                missing.append(position)
        return missing

    def _check(self, known: dict[int, Signature], positions: list[int], shared: bool) -> list[Any]:
        """Whether the files of each folder at ``positions`` still have their stored keys
        (``lstat``, split between processes for many)."""
        signatures = [known[p] for p in positions]
        root = self.root
        if len(positions) >= CHECK_PARALLEL_MIN and shared:
            step = max(CHECK_CHUNK, len(positions) // (4 * workers()) + 1)
            parts = [signatures[i : i + step] for i in range(0, len(signatures), step)]
            answers = in_shared_pool(unchanged, [(root, part) for part in parts])
            if answers is not None:
                return [ok for answer in answers for ok in answer]
        if not shared and len(positions) >= FORK_CHECK_MIN:
            half = len(positions) // 2
            both = halves_in_fork(unchanged, (root, signatures[:half]), (root, signatures[half:]))
            if both is not None and len(both[0]) + len(both[1]) == len(positions):
                return [*both[0], *both[1]]
        return unchanged(root, signatures)

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

    def put(self, entry: Any, record: Any, first_location: str, seen: Signature | None) -> None:
        """Remember an entry just read (``record``: its record, when a reader process sent
        it so; else it is made when the store is saved) with the keys of its files as read
        (``seen``; None: not remembered). A folder with a racy file is not remembered."""
        if seen is not None and not signature_is_racy(seen, self.fence):
            self.fresh[entry.folder] = (seen, first_location, record)
            if record is None:
                self.unencoded[entry.folder] = entry

    def save(self, reductions: ReductionCache | None = None) -> None:
        """Write the entries seen in this read (atomically). When few folders changed since
        the base file was written, only they go to the delta file (a folder gone as None);
        the base is written whole again once the delta grows past :data:`DELTA_SHARE` of
        it. Every entry is checked against its files before use, so any base and delta
        combined (one written, the other not) give misses, never a wrong entry.
        ``reductions``: the tasks' reductions under the plan they were scored with, kept
        with their entries."""
        if reductions is not None:
            reductions.attach()
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
        delta_path = self.delta_path
        if entries and len(delta) <= max(DELTA_MIN, len(out) // DELTA_SHARE):
            store.write_atomically(delta_path, TaskStore(self.root, delta))
        elif store.write_atomically(self.path, TaskStore(self.root, out)):  # type: ignore[arg-type]
            with contextlib.suppress(OSError):
                os.unlink(delta_path)


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
        self.key = plan_key(stream)
        self.reused: dict[str, Any] = {}
        self.maker: ReductionMaker | None = None  # made for the first stored reductions
        self.series = tuple(stream.series_ids)

    def add(self, tasks: Sequence[Any]) -> None:
        """Hand ``tasks`` to the stream, with the reductions kept for those whose entry
        came from the store."""
        kept = self.cache.kept
        if not kept:
            self.stream.add(tasks)
            return
        known: list[Any] = []
        if self.maker is None:
            self.maker = ReductionMaker(self.series)
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
