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
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from inspector.loading import store
from inspector.loading.index import (
    Checked,
    entry_files,
    packed_is_racy,
    packed_signature,
    signature,
    signature_is_racy,
    unchanged,
)
from inspector.loading.keys import ReadKeys
from inspector.loading.processes import halves_in_fork, in_shared_pool, workers
from inspector.loading.records import (
    ENCODER,
    OPTIONS,
    EntryRec,
    IssueRec,
    entry_record,
    task_entry,
)
from inspector.results.problems import RULE_DUPLICATE_ID

Signature = tuple[tuple[Any, ...], ...]
"""Per file ``(rel, device, inode, mode, size, mtime_ns, ctime_ns)``."""
DELTA_MIN = 64
DELTA_SHARE = 8
CHECK_PARALLEL_MIN, CHECK_CHUNK = 1500, 250  # the app's reader processes check from so many
FORK_CHECK_MIN = 4000  # a single-threaded caller checks half in a forked child from so many
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
    return Reductions(plan, tuple([_reduction_record(r) for r in reductions]))


def _reduction_record(r: Any) -> ReductionRec:
    c, issue = r.coverage, _issue_record
    reasons = [ReasonRec(x.code, x.text, tuple(x.attempts), issue(x.issue)) for x in r.reasons]
    coverage = (c.requested, c.observed, c.valid, c.error)
    return ReductionRec(
        r.value, r.state, r.has_error, coverage, r.missing_attempts, r.invalidated,
        r.early_stopped, tuple(reasons),
    )  # fmt: skip


def _issue_record(i: Any) -> IssueRec | None:
    return None if i is None else IssueRec(i.severity, i.phase, i.code, i.message)


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
                made = [Reason(x.code, x.text, x.attempts, _issue(x.issue)) for x in r.reasons]
                reasons = self.reasons[r.reasons] = tuple(made)
            out.append(
                TaskReduction(
                    task_id, series_id, r.value, r.state, r.has_error, coverage,
                    r.missing_attempts, r.invalidated, r.early_stopped, reasons,
                )
            )  # fmt: skip
        return out


def _issue(rec: IssueRec | None) -> Any:
    from inspector.engine.model import Issue

    return None if rec is None else Issue(rec.severity, rec.phase, rec.code, rec.message)


def store_file(run_root: Path, folder: Path | None = None) -> Path:
    """Where the task store of a run is kept (``folder``: the runs folder, else the user's)."""
    return store.run_folder(run_root, folder) / "tasks"


class TaskCache:
    """Load once, look up folders, save once; never raises (a broken store is a miss).
    ``reuse`` False takes nothing from the store (what is read is still kept)."""

    def __init__(self, run_root: Path, *, reuse: bool = True) -> None:
        self.root = str(run_root)
        self.path = store_file(run_root)
        self.delta_path = self.path.with_name("tasks.delta")  # the folders changed since
        self.fence = time.time_ns()  # before any task file is read: see store.is_racy
        self.entries: dict[str, KeptEntry | None] = {}
        # Per folder taken from the store (or read, with keys that cannot be packed): its
        # signature, where AgentCompass finds it first, and its record or entry.
        self.fresh: dict[str, tuple[Signature, str, Any]] = {}
        self.read = ReadKeys()  # the folders read (made records one at a time when saved)
        self.kept: dict[str, Any] = {}  # folder -> its stored reductions
        # folder -> its reductions to store (made as they are written)
        self.attached: Any = _no_reductions
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
        """Put in ``entries`` every candidate folder whose stored entry may be used (its
        files' keys unchanged, and it is still the first of its name where AgentCompass
        looks); the positions of the rest. ``checked``: what the report store's check found
        (those files are not stat'ed again). ``shared``: the caller has threads (the app)."""
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
        """Whether each folder's files still have their stored keys (``lstat``, split
        between processes for many)."""
        sigs, root = [known[p] for p in positions], self.root
        if len(positions) >= CHECK_PARALLEL_MIN and shared:
            step = max(CHECK_CHUNK, len(positions) // (4 * workers()) + 1)
            parts = [(root, sigs[i : i + step]) for i in range(0, len(sigs), step)]
            answers = in_shared_pool(unchanged, parts)
            if answers is not None:
                return [ok for answer in answers for ok in answer]
        if not shared and len(positions) >= FORK_CHECK_MIN:
            half = len(positions) // 2
            both = halves_in_fork(unchanged, (root, sigs[:half]), (root, sigs[half:]))
            if both is not None and len(both[0]) + len(both[1]) == len(positions):
                return [*both[0], *both[1]]
        return unchanged(root, sigs)

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

    def put(self, entry: Any, first_location: str, seen: Signature | bytes | None = None) -> None:
        """Remember an entry just read; its record is made only when the store is saved.
        ``seen``: the signature the reader took while reading; else stat the files now. A
        folder with a racy file is not remembered."""
        sig = seen if seen is not None else signature(self.root, entry_files(entry))
        if isinstance(sig, bytes):  # packed by a reader process
            if not packed_is_racy(sig, self.fence):
                self.read.add(entry, first_location, sig)
        elif sig is not None and not signature_is_racy(sig, self.fence):
            packed = packed_signature(entry, sig)
            if packed is not None:
                self.read.add(entry, first_location, packed)
            else:
                self.fresh[entry.folder] = (sig, first_location, entry)

    def forget(self) -> None:
        """Once saved: drop what the store was loaded as and written from."""
        self.entries, self.delta, self.fresh, self.kept = {}, {}, {}, {}
        self.read = ReadKeys()
        self.attached = _no_reductions

    def _kept_entries(self) -> Iterator[tuple[str, KeptEntry]]:
        """Each folder seen in this read as it is stored, made one at a time."""
        reductions = self.attached
        for folder, (sig, first, held) in self.fresh.items():
            rec = held if type(held) is EntryRec else _record(held)
            yield folder, KeptEntry(sig, first, rec, reductions(folder))  # type: ignore[arg-type]
        for held, first, files in self.read:
            yield held.folder, KeptEntry(files, first, _record(held), reductions(held.folder))

    def _whole(self) -> Iterator[bytes]:
        """The task store of this read as msgpack, a folder at a time (as
        ``ENCODER.encode(TaskStore(root, entries))`` makes it)."""
        count = len(self.fresh) + len(self.read)
        yield b"\x92" + ENCODER.encode(self.root) + store.map_header(count)
        for folder, kept in self._kept_entries():
            yield ENCODER.encode(folder) + ENCODER.encode(kept)

    def save(self, reductions: ReductionCache | None = None) -> None:
        """Write the entries seen in this read (atomically). When few folders changed since
        the base file was written, only they go to the delta file (a folder gone as None);
        the base is written whole again once the delta grows past :data:`DELTA_SHARE` of
        it. Every entry is checked against its files before use, so any base and delta
        combined (one written, the other not) give misses, never a wrong entry.
        ``reductions``: the tasks' reductions, kept with their entries."""
        if reductions is not None:
            reductions.attach()
        entries, fresh = self.entries, self.fresh
        if not fresh and not self.read and not entries:
            return
        if entries:  # is it a few folders (the delta file)?
            try:
                changed = {f: kept for f, kept in self._kept_entries() if entries.get(f) != kept}
            except (TypeError, ValueError, OverflowError):
                return
            read = {entry.folder for entry in self.read.entries}  # few: the rest are in fresh
            gone = [f for f, v in entries.items() if v and f not in fresh and f not in read]
            if not changed and not gone:
                return
            delta = {**self.delta, **changed, **dict.fromkeys(gone)}
            if len(delta) <= max(DELTA_MIN, (len(fresh) + len(read)) // DELTA_SHARE):
                store.write_atomically(self.delta_path, TaskStore(self.root, delta))
                return
            del changed, delta
        # Written as it is made: the whole store is never held (nor its records).
        if store.write_streamed(self.path, self._whole):
            with contextlib.suppress(OSError):
                os.unlink(self.delta_path)


def _no_reductions(folder: str) -> None: ...


def _record(entry: Any) -> EntryRec:
    """A folder read as it is stored (without the problem the collector adds on every read)."""
    rec = entry_record(entry)
    if any(p.rule == RULE_DUPLICATE_ID for p in rec.problems):
        problems = tuple(p for p in rec.problems if p.rule != RULE_DUPLICATE_ID)
        rec = msgspec.structs.replace(rec, problems=problems)
    return rec


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
        self.maker: ReductionMaker | None = None  # made for the first stored reductions
        self.series = tuple(stream.series_ids)
        self.reused: dict[str, Any] = {}

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
        """Give the task store each keepable task's reductions to store with its entry
        (each made as its entry is written)."""
        stream = self.stream
        if stream.failed:
            return
        columns = [stream.by_series[series_id] for series_id in self.series]
        reused, key = self.reused, self.key
        positions = {task.source: position for position, task in enumerate(stream.tasks)}

        def reductions(folder: str) -> Reductions | None:
            stored = reused.get(folder)
            if stored is not None:
                return stored
            position = positions.get(f"{folder}/task.json")
            if position is None:
                return None
            return reduction_records(key, [column[position] for column in columns])

        self.cache.attached = reductions
