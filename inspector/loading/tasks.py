"""A run's task store: each task folder's entry.

Each task folder read is kept with the key of every file it was read from (its folder,
``task.json``, each attempt's ``result.json``) and where AgentCompass finds its name first;
it is taken from the store only while every one of those keys is unchanged, so a live run
is read again where it changed. A folder with a file written too recently to tell (racy) is
left out.
"""

from __future__ import annotations

import contextlib
import operator
import os
import struct
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from inspector.loading import store
from inspector.loading.index import (
    HEAD,
    RECORD,
    WIDTH,
    Checked,
    Signature,
    packed_is_racy,
)
from inspector.loading.processes import halves_in_fork, in_shared_pool, workers
from inspector.loading.records import (
    ENCODER,
    OPTIONS,
    AttemptRec,
    EntryRec,
    TaskRec,
    issue_rec,
    problem_rec,
    task_entry,
)
from inspector.loading.store import COARSE_GRANULARITY_NS, is_racy
from inspector.results.file_io import stat_key
from inspector.results.layout import AttemptDirs
from inspector.results.problems import RULE_DUPLICATE_ID

DELTA_MIN = 64
DELTA_SHARE = 8
"""The delta file holds at most one folder in this many (or :data:`DELTA_MIN`)."""
CHECK_PARALLEL_MIN, CHECK_CHUNK = 1500, 250  # the app's reader processes check from so many
FORK_CHECK_MIN = 4000  # a single-threaded caller checks half in a forked child from so many


class KeptEntry(msgspec.Struct, **OPTIONS):
    """A task folder in the task store: the key of each of its files as read (``rel`` and
    the :data:`Stat`), where AgentCompass finds its name first, and its entry."""

    files: tuple[tuple[str, int, int, int, int, int, int], ...]
    first: str
    entry: EntryRec


class TaskStore(msgspec.Struct, **OPTIONS):
    """A run's task store (or its delta: a folder gone or no longer kept is None)."""

    root: str
    entries: dict[str, KeptEntry | None]


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
    if newest < fence_ns - COARSE_GRANULARITY_NS:
        return False
    return any(is_racy(item[1:], fence_ns) for item in sig)


def signed_files(entry: Any) -> list[str]:
    """The files a packed signature of ``entry`` is of, in its order."""
    folder = entry.folder
    expected = [folder, f"{folder}/task.json"]
    dirs = entry.attempt_dirs  # AttemptDirs: its own tuple (no iterator); a mapping: keys
    numbers = sorted(getattr(dirs, "numbers", dirs))
    return expected + [f"{folder}/attempt-{number}/result.json" for number in numbers]


def unpacked_signature(entry: Any, packed: Any, at: int = 0) -> tuple[tuple[Any, ...], ...]:
    """The signature :func:`packed_signature` packed for ``entry``, as it was (from byte
    ``at`` of ``packed``)."""
    rels = signed_files(entry)
    values = struct.unpack_from(f"<{WIDTH * len(rels)}q", packed, at)
    return tuple((rel, *values[n * WIDTH : n * WIDTH + WIDTH]) for n, rel in enumerate(rels))


def packed_signature(entry: Any, signature: Any) -> bytes | None:
    """A task folder's file signature as :func:`~inspector.loading.index.take` needs it,
    held per task after a read: the stats of its folder, ``task.json`` and each attempt's
    ``result.json`` (in that order: their paths follow from the entry) packed as
    :attr:`~inspector.loading.records.Index.stats` holds them (about 300 bytes for three
    attempts, against 2.4 KB as tuples of paths and integers). None when the signature is
    not of those files or a value does not fit: no index."""
    if [item[0] for item in signature] != signed_files(entry):
        return None  # not the files index.rels() will check
    try:
        return struct.pack(
            f"<{WIDTH * len(signature)}q", *[v for item in signature for v in item[1:]]
        )
    except struct.error:
        return None


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
        return entry

    def put(self, entry: Any, first_location: str, sig: Signature | bytes | None) -> None:
        """Remember an entry just read; its record is made only when the store is saved.
        ``sig``: the signature of its files (packed by a reader process, or as tuples;
        None: one could not be stat'ed). A folder with a racy file is not remembered."""
        if isinstance(sig, bytes):  # packed by a reader process
            if not packed_is_racy(sig, self.fence):
                self.read.add(entry, first_location, sig)
        elif sig is not None and not signature_is_racy(sig, self.fence):
            packed = packed_signature(entry, sig)
            if packed is not None:
                self.read.add(entry, first_location, packed)
            else:
                self.fresh[entry.folder] = (sig, first_location, entry)

    def _kept_entries(self) -> Iterator[tuple[str, KeptEntry]]:
        """Each folder seen in this read as it is stored, made one at a time."""
        for folder, (sig, first, held) in self.fresh.items():
            rec = held if type(held) is EntryRec else _record(held)
            yield folder, KeptEntry(sig, first, rec)
        for held, first, files in self.read:
            yield held.folder, KeptEntry(files, first, _record(held))

    def _whole(self) -> Iterator[bytes]:
        """The task store of this read as msgpack, a folder at a time (as
        ``ENCODER.encode(TaskStore(root, entries))`` makes it)."""
        count = len(self.fresh) + len(self.read)
        yield b"\x92" + ENCODER.encode(self.root) + store.map_header(count)
        for folder, kept in self._kept_entries():
            yield ENCODER.encode(folder) + ENCODER.encode(kept)

    def save(self, keep: bool = True) -> None:
        """Write the entries seen in this read (atomically; ``keep`` False: nothing is
        written), then drop what the store was loaded as and written from. When few
        folders changed since the base file was written, only they go to the delta file (a
        folder gone as None); the base is written whole again once the delta grows past
        :data:`DELTA_SHARE` of it. Every entry is checked against its files before use, so
        any base and delta combined (one written, the other not) give misses, never a
        wrong entry."""
        entries, fresh, read = self.entries, self.fresh, self.read
        try:
            if not keep or (not fresh and not read and not entries):
                return
            if entries:  # is it a few folders (the delta file)?
                try:
                    changed = {f: k for f, k in self._kept_entries() if entries.get(f) != k}
                except (TypeError, ValueError, OverflowError):
                    return
                done = {entry.folder for entry in read.entries}  # few: the rest are in fresh
                gone = [f for f, v in entries.items() if v and f not in fresh and f not in done]
                if not changed and not gone:
                    return
                delta = {**self.delta, **changed, **dict.fromkeys(gone)}
                if len(delta) <= max(DELTA_MIN, (len(fresh) + len(done)) // DELTA_SHARE):
                    store.write_atomically(self.delta_path, TaskStore(self.root, delta))
                    return
                del changed, delta
            # Written as it is made: the whole store is never held (nor its records).
            if store.write_streamed(self.path, self._whole):
                with contextlib.suppress(OSError):
                    os.unlink(self.delta_path)
        finally:
            self.entries, self.delta, self.fresh = {}, {}, {}
            self.read = ReadKeys()


def entry_record(entry: Any) -> EntryRec:
    """A TaskEntry as its record (as a reader process sends it, and the store keeps it)."""
    record = entry.record
    rec = None
    if record is not None:
        rec = TaskRec(
            record.task_id,
            record.category,
            record.plan_k,
            record.plan_strategy,
            tuple(
                [
                    AttemptRec(
                        a.index,
                        a.status,
                        dict(a.metrics),
                        tuple([issue_rec(i) for i in a.issues]),  # type: ignore[misc]
                        dict(a.scoring_artifacts),
                    )
                    for a in record.attempts.values()
                ]
            ),
            dict(record.retry_counts),
            record.source,
        )
    dirs = entry.attempt_dirs
    numbers = dirs.numbers if type(dirs) is AttemptDirs else None
    return EntryRec(
        entry.task_id,
        entry.folder,
        entry.state,
        entry.published,
        rec,
        numbers,
        None if numbers is not None else dict(dirs),
        tuple([problem_rec(p) for p in entry.problems]),
        entry.schema_version,
    )


def _record(entry: Any) -> EntryRec:
    """A folder read as it is stored (without the problem the collector adds on every read)."""
    rec = entry_record(entry)
    if any(p.rule == RULE_DUPLICATE_ID for p in rec.problems):
        problems = tuple(p for p in rec.problems if p.rule != RULE_DUPLICATE_ID)
        rec = msgspec.structs.replace(rec, problems=problems)
    return rec


class ReadKeys:
    """The folders read while a run is read with the store on (for its task store and its
    index), as columns, not a tuple, a dict slot and a bytes object per folder (about 120
    bytes beside the keys): each one's entry, where AgentCompass finds it first, and its
    keys packed (:func:`packed_signature`) one folder after the
    other in one buffer, after :data:`~inspector.loading.index.HEAD` bytes of room for
    the run-level files' (when every folder was read, in order, the run's index is made
    from that buffer in place: :func:`~inspector.loading.index.take`)."""

    def __init__(self) -> None:
        self.entries: list[Any] = []
        self.firsts: list[str] = []
        self.stats = bytearray(HEAD)

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, entry: Any, first: str, packed: bytes) -> None:
        self.entries.append(entry)
        self.firsts.append(first)
        self.stats += packed

    def in_order(self, entries: list[Any]) -> bytearray | None:
        """The buffer, when ``entries`` are exactly the folders added, in that order."""
        mine = self.entries
        if len(mine) != len(entries) or not all(map(operator.is_, mine, entries)):
            return None
        return self.stats

    def by_folder(self) -> dict[str, bytes | None]:
        """Each folder's packed keys, by its folder (when not every folder was read)."""
        out: dict[str, bytes | None] = {}
        at = HEAD
        for entry in self.entries:
            end = at + RECORD * len(signed_files(entry))
            out[entry.folder] = bytes(self.stats[at:end])
            at = end
        return out

    def __iter__(self) -> Iterator[tuple[Any, str, tuple[tuple[Any, ...], ...]]]:
        """Each folder's entry, where it is found first, and its keys as tuples."""
        at, stats = HEAD, self.stats
        for entry, first in zip(self.entries, self.firsts, strict=True):
            files = unpacked_signature(entry, stats, at)
            at += RECORD * len(files)
            yield entry, first, files
