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
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from inspector.loading import store
from inspector.loading.index import (
    HEAD,
    RECORD,
    Checked,
    Places,
    Signature,
    ask,
    packed_signature,
    racy,
    tail_of,
    unchanged,
)
from inspector.loading.processes import halves_in_fork, in_shared_pool, workers
from inspector.loading.records import (
    ENCODER,
    AttemptRec,
    EntryRec,
    KeptEntry,
    KeptHead,
    RawStore,
    TaskRec,
    TaskStore,
    decoded,
    decoder,
    issue_rec,
    problem_rec,
    task_entry,
)
from inspector.results.layout import AttemptDirs
from inspector.results.problems import RULE_DUPLICATE_ID

NIL = msgspec.Raw(b"\xc0")
"""A folder gone, in a store's undecoded entries."""
DELTA_MIN = 64
DELTA_SHARE = 8
"""The delta file holds at most one folder in this many (or :data:`DELTA_MIN`)."""
CHECK_PARALLEL_MIN, CHECK_CHUNK = 1500, 250  # the app's reader processes check from so many
FORK_CHECK_MIN = 4000  # a single-threaded caller checks half in a forked child from so many
CHECK_BLOCK = 32768  # folders whose files are checked at once


def store_file(run_root: Path, folder: Path | None = None) -> Path:
    """Where the task store of a run is kept (``folder``: the runs folder, else the user's)."""
    return store.run_folder(run_root, folder) / "tasks"


class TaskCache:
    """Load once, look up folders, save once; never raises (a broken store is a miss).
    ``reuse`` False takes nothing from the store (what is read is still kept).

    The store is loaded with each folder's entry undecoded (:class:`RawStore`); a look-up
    decodes one folder at a time, checks it and makes its entry at once, so what is held
    is the entries made and their packed keys, not the store decoded (millions of small
    objects, freed among those kept). Nothing of the store is held after the look-up: a
    save that writes it whole copies the folders taken from it out of its file again."""

    def __init__(self, run_root: Path, *, reuse: bool = True) -> None:
        self.root = str(run_root)
        self.path = store_file(run_root)
        self.delta_path = self.path.with_name("tasks.delta")  # the folders changed since
        self.fence = time.time_ns()  # before any task file is read: see store.is_racy
        self.entries: dict[str, msgspec.Raw] = {}  # base and delta, until looked up
        # Per folder whose keys are not packed (files of other names): its signature,
        # where AgentCompass finds it first, and its record (from the store) or entry.
        self.fresh: dict[str, tuple[Signature, str, Any]] = {}
        self.read = ReadKeys()  # the folders taken or read (made records when saved)
        self.hits = 0
        self.delta: dict[str, msgspec.Raw] = {}
        self.loaded = False  # a base was loaded (then a save may write a delta)
        self.before: dict[str, bytes | None] = {}  # a stored folder not taken: its entry
        self.gone: list[str] = []  # stored folders that are no task folder now
        self.most = DELTA_MIN  # folders the delta file may hold
        if reuse:  # the base, then the folders changed since it was written (its delta)
            base = store.load(self.path, RawStore)
            if base is not None and base.root == self.root:
                self.entries, self.loaded = base.entries, True
                delta = store.load(self.delta_path, RawStore)
                if delta is not None and delta.root == self.root and delta.entries:
                    self.delta = {f: msgspec.Raw(bytes(r)) for f, r in delta.entries.items()}
                    self.entries.update(self.delta)

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
        stored, self.entries = self.entries, {}
        if not stored:
            return list(range(len(candidates)))
        places = Places(checked, len(candidates))
        self.most = max(DELTA_MIN, len(candidates) // DELTA_SHARE)
        head = decoder(KeptHead)
        missing: list[int] = []
        doubtful: list[tuple[int, str, msgspec.Raw]] = []  # (position, first, raw)
        asks: list[tuple[str, tuple[Any, ...], bytes]] = []
        for position, (folder, state) in enumerate(candidates):
            span = places.span(position, folder)
            raw = stored.pop(folder, None)
            if raw is None or raw == NIL:
                missing.append(position)
                continue
            first = first_location[folder.rpartition("/")[2]]
            try:
                kept = head.decode(raw)
            except (ValueError, TypeError):
                kept = None
            rec = None if kept is None else kept.entry
            if rec is None or kept.first != first or rec.state != state or rec.folder != folder:
                self._missed(position, folder, raw, missing)
                continue
            asked = ask(kept.files, folder, tail_of(rec.numbers or rec.dirs))
            if asked is not None and places.covers(span, asked):
                self._take([(position, first, raw)], [True], entries, candidates, missing)
            elif asked is None:
                self._missed(position, folder, raw, missing)
            else:
                doubtful.append((position, first, raw))
                asks.append(asked)
                if len(asks) >= CHECK_BLOCK:  # checked a block at a time, not all held
                    self._take(doubtful, self._check(asks, shared), entries, candidates, missing)
                    asks.clear()
        self.gone = [folder for folder, raw in stored.items() if raw != NIL]
        del stored
        self._take(doubtful, self._check(asks, shared), entries, candidates, missing)
        missing.sort()
        return missing

    def _take(
        self,
        doubtful: list[tuple[int, str, msgspec.Raw]],
        unchanged: list[bool],
        entries: list[Any],
        candidates: Sequence[tuple[str, str]],
        missing: list[int],
    ) -> None:
        """Make the entry of each folder whose files were found unchanged, in ``entries``
        (else it is read again); ``doubtful`` is emptied."""
        for (position, first, raw), ok in zip(doubtful, unchanged, strict=True):
            folder = candidates[position][0]
            entry = self.accept(folder, raw, first) if ok else None
            if entry is not None:
                entries[position] = entry
            else:
                self._missed(position, folder, raw, missing)
        doubtful.clear()

    def _missed(self, position: int, folder: str, raw: msgspec.Raw, missing: list[int]) -> None:
        """A stored folder not taken: read again (its stored entry kept to tell whether the
        entry read differs, for a few; for many the store is written whole anyway)."""
        missing.append(position)
        self.before[folder] = bytes(raw) if len(self.before) <= self.most else None

    def _check(self, asks: list[Any], shared: bool) -> list[Any]:
        """Whether each folder's files still have their stored keys (``lstat``, split
        between processes for many)."""
        root = self.root
        if len(asks) >= CHECK_PARALLEL_MIN and shared:
            step = max(CHECK_CHUNK, len(asks) // (4 * workers()) + 1)
            parts = [(root, asks[i : i + step]) for i in range(0, len(asks), step)]
            answers = in_shared_pool(unchanged, parts)
            if answers is not None:
                return [ok for answer in answers for ok in answer]
        if not shared and len(asks) >= FORK_CHECK_MIN:
            half = len(asks) // 2
            both = halves_in_fork(unchanged, (root, asks[:half]), (root, asks[half:]))
            if both is not None and len(both[0]) + len(both[1]) == len(asks):
                return [*both[0], *both[1]]
        return unchanged(root, asks)

    def accept(self, folder: str, raw: msgspec.Raw, first: str) -> Any:
        """The entry of ``folder`` from its stored bytes, whose keys were just found
        unchanged, its keys kept with it; None: it is not an entry of this folder, and the
        folder is read."""
        kept = decoded(KeptEntry, raw)
        entry = None if kept is None else task_entry(kept.entry, folder)
        if entry is None:
            return None
        self.hits += 1
        if type(kept.files) is bytes:
            self.read.add(entry, first, kept.files, taken=True)
        else:
            self.fresh[folder] = (kept.files, first, kept.entry)
        return entry

    def put(self, entry: Any, first_location: str, sig: Signature | bytes | None) -> None:
        """Remember an entry just read; its record is made only when the store is saved.
        ``sig``: the signature of its files (packed by a reader process, or as tuples;
        None: one could not be stat'ed). A folder with a racy file is not remembered."""
        if sig is None or racy(sig, self.fence):
            return
        if isinstance(sig, bytes):  # packed by a reader process
            self.read.add(entry, first_location, sig)
        elif (packed := packed_signature(entry, sig)) is not None:
            self.read.add(entry, first_location, packed)
        else:
            self.fresh[entry.folder] = (sig, first_location, entry)

    def _kept_entries(self, read: bool = False) -> Iterator[tuple[str, KeptEntry]]:
        """Each folder read (``read``), else also each taken from the store whose keys are
        not packed, as it is stored, made one at a time."""
        for folder, (sig, first, held) in self.fresh.items():
            if type(held) is not EntryRec:
                yield folder, KeptEntry(sig, first, _record(held))
            elif not read:
                yield folder, KeptEntry(sig, first, held)
        for held, first, taken, span in self.read.rows():
            if not taken:
                yield held.folder, KeptEntry(bytes(self.read.stats[span]), first, _record(held))

    def _whole(self) -> Iterator[bytes]:
        """The task store of this read as msgpack, a folder at a time (as
        ``ENCODER.encode(TaskStore(root, entries))`` makes it); the folders taken from the
        store as they are in its files, read again."""
        copies = self._stored_again()
        count = len(copies) + len(self.fresh) + self.read.taken.count(0)
        yield b"\x92" + ENCODER.encode(self.root) + store.map_header(count)
        for folder, raw in copies.items():
            yield ENCODER.encode(folder) + raw
        del copies
        for folder, kept in self._kept_entries():
            yield ENCODER.encode(folder) + ENCODER.encode(kept)

    def _stored_again(self) -> dict[str, msgspec.Raw]:
        """The stored bytes of each folder taken from the store with packed keys, from its
        files again (one changed since: what is in it, checked against its files when
        used; one gone: not kept)."""
        taken = [row[0].folder for row in self.read.rows() if row[2]]
        if not taken:
            return {}
        found: dict[str, msgspec.Raw] = {}
        for path in (self.path, self.delta_path):
            kept = store.load(path, RawStore)
            if kept is not None and kept.root == self.root:
                found.update(kept.entries)
        return {f: found[f] for f in taken if found.get(f, NIL) != NIL}

    def save(self, keep: bool = True) -> None:
        """Write the entries seen in this read (atomically; ``keep`` False: nothing is
        written), then drop what is held for it. When few folders changed since the base
        file was written, only they go to the delta file (a folder gone as None); the base
        is written whole again once the delta grows past :data:`DELTA_SHARE` of it. Every
        entry is checked against its files before use, so any base and delta combined
        (one written, the other not) give misses, never a wrong entry."""
        fresh, read = self.fresh, self.read
        try:
            if not keep or (not fresh and not read.entries and not self.loaded):
                return
            if self.loaded and self._delta_written(len(fresh) + len(read.entries)):
                return
            # Written as it is made: the whole store is never held (nor its records).
            if store.write_streamed(self.path, self._whole):
                with contextlib.suppress(OSError):
                    os.unlink(self.delta_path)
        finally:
            self.delta, self.fresh, self.before, self.gone = {}, {}, {}, []
            self.read = ReadKeys()

    def _delta_written(self, seen: int) -> bool:
        """True when nothing changed, or the changes were written to the delta file."""
        most = max(DELTA_MIN, seen // DELTA_SHARE)
        changed: dict[str, msgspec.Raw] = {}
        try:
            for folder, kept in self._kept_entries(read=True):
                encoded = ENCODER.encode(kept)
                if self.before.get(folder) != encoded:
                    changed[folder] = msgspec.Raw(encoded)
                    if len(changed) > most:
                        return False  # many: the base is written whole
        except (TypeError, ValueError, OverflowError):
            return True
        done = {e.folder for e in self.read.entries}
        gone = [*self.gone, *(f for f in self.before if f not in done and f not in self.fresh)]
        del done
        if not changed and not gone:
            return True
        delta = {**self.delta, **changed, **dict.fromkeys(gone, NIL)}
        if len(delta) > most:
            return False
        store.write_atomically(self.delta_path, TaskStore(self.root, delta))  # type: ignore[arg-type]
        return True


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
    """The folders taken from the store or read, as columns: each one's entry, where it is
    found first, whether it was taken, and its packed keys, one folder after another in
    one buffer after :data:`~index.HEAD` bytes of room for the run-level files' (the
    run's index is made from it in place when every folder was read: :func:`~index.take`)."""

    def __init__(self) -> None:
        self.entries: list[Any] = []
        self.firsts: list[str] = []
        self.taken = bytearray()  # 1: taken from the store
        self.stats = bytearray(HEAD)

    def add(self, entry: Any, first: str, packed: bytes, taken: bool = False) -> None:
        self.entries.append(entry)
        self.firsts.append(first)
        self.taken.append(taken)
        self.stats += packed

    def in_order(self, entries: list[Any]) -> bytearray | None:
        """The buffer, when ``entries`` are exactly the folders added, in that order."""
        mine = self.entries
        if len(mine) != len(entries) or not all(map(operator.is_, mine, entries)):
            return None
        return self.stats

    def rows(self) -> Iterator[tuple[Any, str, int, slice]]:
        """Each folder's entry, where it is found first, whether it was taken from the
        store, and where its keys are in the buffer."""
        at = HEAD
        for entry, first, taken in zip(self.entries, self.firsts, self.taken, strict=True):
            end = at + RECORD * (2 + len(entry.attempt_dirs))
            yield entry, first, taken, slice(at, end)
            at = end

    def by_folder(self) -> dict[str, bytes | None]:
        """Each folder's packed keys, by its folder (when not every folder was read)."""
        return {row[0].folder: bytes(self.stats[row[3]]) for row in self.rows()}
