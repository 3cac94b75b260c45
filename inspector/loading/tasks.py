"""A run's task store: each task folder's entry.

Each task folder read is kept with the key of every file it was read from (its folder,
``task.json``, each attempt's ``result.json``) and where AgentCompass finds its name first;
it is taken from the store only while every one of those keys is unchanged, so a live run
is read again where it changed. A folder with a file written too recently to tell (racy) is
left out.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import mmap
import operator
import os
import time
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from inspector.loading import reports, store
from inspector.loading.index import HEAD, RECORD, Checked, Places, ask, tail_of, unchanged
from inspector.loading.processes import halves_in_fork, in_shared_pool, workers
from inspector.loading.records import (
    ENCODER,
    EntryRec,
    KeptEntry,
    KeptHead,
    decoded,
    decoder,
    entry_record,
    task_entry,
)
from inspector.results.problems import RULE_DUPLICATE_ID

DELTA = "tasks.delta"
NIL = msgspec.Raw(b"\xc0")
"""A folder gone, in a store's undecoded entries."""
DELTA_MIN = 64
DELTA_SHARE = 8
"""The delta file holds at most one folder in this many (or :data:`DELTA_MIN`)."""
CHECK_PARALLEL_MIN, CHECK_CHUNK = 1500, 250  # the app's reader processes check from so many
FORK_CHECK_MIN = 4000  # a single-threaded caller checks half in a forked child from so many
CHECK_BLOCK = 32768  # folders whose files are checked at once


def store_file(run_root: Path | str, folder: Path | None = None) -> Path:
    """Where the task store of a run is kept (``folder``: the runs folder, else the user's)."""
    return reports.run_folder(run_root, folder) / "tasks"


class TaskCache:
    """Load once, look up folders, save once; never raises (a broken store is a miss).
    ``reuse`` False takes nothing from the store (what is read is still kept).

    The store file is read a piece at a time (:data:`~reports.PIECE` folders, each its length
    before it), each folder's entry undecoded; a look-up decodes one folder at a time,
    checks it and makes its entry at once, so what is held is the entries made and their
    packed keys, not the store's file nor its folders decoded (millions of small objects,
    freed among those kept). A save that writes it whole copies the folders taken from it
    out of its file again."""

    def __init__(self, run_root: Path, *, reuse: bool = True) -> None:
        self.root = str(run_root)
        self.fence = time.time_ns()  # before any task file is read: see store.is_racy
        self.reuse = reuse
        self.read = ReadKeys(self.root)  # the folders taken or read
        self.hits = 0
        self.delta: dict[str, msgspec.Raw] = {}
        self.loaded = False  # a base was loaded (then a save may write a delta)
        self.before: dict[str, bytes | None] = {}  # a stored folder not taken: its entry
        self.gone: list[str] = []  # stored folders that are no task folder now
        self.most = DELTA_MIN  # folders the delta file may hold

    @functools.cached_property
    def path(self) -> Path:
        """Where the store is kept (named when it is first looked at; beside it, the
        folders changed since it was written: :data:`DELTA`)."""
        return store_file(self.root)

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
        (those files are not stat'ed again). ``shared``: the caller has threads (the app).
        The folders are taken as stored (the base, then those changed since: its delta),
        in the candidates' order but for folders added or gone."""
        count = len(candidates)
        self.most = max(DELTA_MIN, count // DELTA_SHARE)
        stored = self._stored() if self.reuse else None
        if stored is None:
            return list(range(count))
        self.loaded = True
        covers = Places(checked, candidates).covers
        head = decoder(KeptHead)
        found, where, cursor = bytearray(count), None, 0
        missing: list[int] = []
        doubtful: list[tuple[int, str, msgspec.Raw]] = []  # (position, first, raw)
        asks: list[tuple[str, tuple[Any, ...], bytes]] = []
        for folder, raw in stored:
            position = cursor if cursor < count and candidates[cursor][0] == folder else -1
            if position < 0:  # not where the candidates have it (rarely): by its name
                where = where or {f: p for p, (f, _) in enumerate(candidates)}
                position = where.get(folder, -1)
            if position < 0 or found[position]:
                if position < 0 and raw != NIL:
                    self.gone.append(folder)
                continue
            found[position], cursor = 1, position + 1
            if raw == NIL:
                missing.append(position)
                continue
            first = first_location[folder.rpartition("/")[2]]
            try:
                kept = head.decode(raw)
            except (ValueError, TypeError):
                kept = None
            rec = None if kept is None else kept.entry
            state = candidates[position][1]
            if rec is None or kept.first != first or rec.state != state or rec.folder != folder:
                self._missed(position, folder, raw, missing)
                continue
            asked = ask(kept.files, folder, tail_of(rec.numbers or rec.dirs))
            if asked is not None and covers(position, asked):
                self._take([(position, first, raw)], [True], entries, candidates, missing)
            elif asked is None:
                self._missed(position, folder, raw, missing)
            else:
                doubtful.append((position, first, raw))
                asks.append(asked)
                if len(asks) >= CHECK_BLOCK:  # checked a block at a time, not all held
                    self._take(doubtful, self._check(asks, shared), entries, candidates, missing)
                    asks.clear()
        del where
        self._take(doubtful, self._check(asks, shared), entries, candidates, missing)
        missing += [position for position, seen in enumerate(found) if not seen]
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
        self.read.add(entry, first, kept.files, taken=True)
        return entry

    def _kept_entries(self) -> Iterator[tuple[str, KeptEntry]]:
        """Each folder read, as it is stored, made one at a time (its record made now)."""
        for held, first, taken, packed in self.read.rows(taken_too=False):
            if not taken:
                yield held.folder, KeptEntry(packed, first, _record(held))

    def _whole(self) -> Iterator[bytes]:
        """The task store of this read as it is written, a piece at a time (:func:`pieces`);
        the folders taken from the store as they are in its files, read again."""
        taken = {e.folder for e, t in zip(self.read.entries, self.read.taken, strict=True) if t}
        kept = ((f, msgspec.Raw(ENCODER.encode(k))) for f, k in self._kept_entries())
        return pieces(self.root, itertools.chain(self._stored_again(taken), kept))

    def _stored_again(self, taken: set[str]) -> Iterator[tuple[str, msgspec.Raw]]:
        """The stored bytes of each folder of ``taken``, from the store's files again, a
        piece at a time (one changed since: what is in it, checked against its files when
        used; one gone: not kept)."""
        for folder, raw in (self._stored() or ()) if taken else ():
            if raw != NIL and folder in taken:
                yield folder, raw

    def _stored(self) -> Iterator[tuple[str, msgspec.Raw]] | None:
        """The folders as stored, undecoded: the base file's but those its delta holds
        (kept as :attr:`delta`), then the delta's; None when there is no base file."""
        base = reports.stored(self.path, self.root)
        if base is None:
            return None
        self.delta = delta = dict(reports.stored(self.path.with_name(DELTA), self.root) or ())
        return itertools.chain(((f, raw) for f, raw in base if f not in delta), delta.items())

    def save(self) -> None:
        """Write the entries seen in this read (atomically), then drop what is held for it.
        When few folders changed since the base file was written, only they go to the delta
        file (a folder gone as None); the base is written whole again once the delta grows
        past :data:`DELTA_SHARE` of it. Every entry is checked against its files before
        use, so any base and delta combined (one written, the other not) give misses, never
        a wrong entry."""
        read = self.read
        try:
            if not read.entries and not self.loaded:
                return
            if self.loaded and self._delta_written(len(read.entries)):
                return
            # Written as it is made: the whole store is never held (nor its records).
            if store.write_streamed(self.path, self._whole):
                with contextlib.suppress(OSError):
                    os.unlink(self.path.with_name(DELTA))
        finally:
            self.delta, self.before, self.gone = {}, {}, []
            self.read = ReadKeys(self.root)

    def _delta_written(self, seen: int) -> bool:
        """True when nothing changed, or the changes were written to the delta file."""
        most = max(DELTA_MIN, seen // DELTA_SHARE)
        changed: dict[str, msgspec.Raw] = {}
        try:
            for folder, kept in self._kept_entries():
                encoded = ENCODER.encode(kept)
                if self.before.get(folder) != encoded:
                    changed[folder] = msgspec.Raw(encoded)
                    if len(changed) > most:
                        return False  # many: the base is written whole
        except (TypeError, ValueError, OverflowError):
            return True
        done = {e.folder for e in self.read.entries}
        gone = [*self.gone, *(f for f in self.before if f not in done)]
        del done
        if not changed and not gone:
            return True
        delta = {**self.delta, **changed, **dict.fromkeys(gone, NIL)}
        if len(delta) > most:
            return False
        store.write_streamed(
            self.path.with_name(DELTA), lambda: pieces(self.root, iter(delta.items()))
        )
        return True


SPILL = 1 << 20  # bytes of packed keys a read holds; more go to a file (ReadKeys)
PART = RECORD * 16384  # bytes of keys read back at once (whole records and pages)


class ReadKeys:
    """The folders taken from the store or read, as columns: each one's entry, where it is
    found first, whether it was taken, and its packed keys, one folder after another in
    one buffer after :data:`~index.HEAD` bytes of room for the run-level files' (the
    run's index is made from it: :meth:`joined`). From :data:`SPILL` bytes on the buffer
    goes to an unnamed file in the run's cache folder (:func:`~store.spill_file`) as it
    grows, not held beside the entries read (240 MB at a million tasks); where none can
    be made or written, the rest is held."""

    def __init__(self, root: str | None = None) -> None:
        self.entries: list[Any] = []
        self.firsts: list[str] = []
        self.taken = bytearray()  # 1: taken from the store
        self.stats = bytearray(HEAD)  # the keys not in the spill file (after those in it)
        self.root = root  # the run, in whose store folder the spill file is made (None: held)
        self.fd, self.spilled = -1, 0  # the spill file, and how many bytes of keys it has

    def add(self, entry: Any, first: str, packed: bytes, taken: bool = False) -> None:
        self.entries.append(entry)
        self.firsts.append(first)
        self.taken.append(taken)
        self.stats += packed
        if len(self.stats) >= SPILL and self.root is not None:
            self._spill()

    def _spill(self) -> bool:
        """Write the keys held to the spill file (made if need be); False: failed (held)."""
        if self.fd < 0 and self.root is not None:
            self.fd = store.spill_file(store_file(self.root).parent)
            if self.fd >= 0:
                weakref.finalize(self, os.close, self.fd)
        held = self.stats
        try:
            while held:  # none made (-1): EBADF
                done = os.pwrite(self.fd, held, self.spilled)
                del held[:done]
                self.spilled += done
        except OSError:
            self.root = None
            return False
        return True

    def _packed(self, start: int) -> Iterator[Any]:
        """The keys from byte ``start`` on, in order, a part at a time."""
        at = start
        while at < self.spilled:
            part = os.pread(self.fd, min(PART, self.spilled - at), at)
            if not part:
                raise OSError(f"{self.spilled - at} bytes of keys missing")
            at += len(part)
            yield part
        yield memoryview(self.stats)[at - self.spilled :]

    def in_order(self, entries: list[Any]) -> ReadKeys | None:
        """Itself, when ``entries`` are exactly the folders added, in that order."""
        mine = self.entries
        if len(mine) != len(entries) or not all(map(operator.is_, mine, entries)):
            return None
        return self

    def rows(self, taken_too: bool = True) -> Iterator[tuple[Any, str, int, bytes]]:
        """Each folder's entry, where it is found first, whether it was taken from the
        store, and its keys (of one taken: empty unless ``taken_too``)."""
        parts, part, at = self._packed(HEAD), b"", 0
        with contextlib.closing(parts):  # its view of the buffer let go at once (it grows)
            for entry, first, taken in zip(self.entries, self.firsts, self.taken, strict=True):
                end = at + RECORD * (2 + len(entry.attempt_dirs))
                while len(part) < end:  # a folder's keys may begin in one part, end in another
                    rest = bytes(part[at:])
                    part, end, at = rest + next(parts) if rest else next(parts), end - at, 0
                yield entry, first, taken, bytes(part[at:end] if taken_too or not taken else b"")
                at = end

    def joined(self, head: bytes, tail: bytes, files: int) -> Any:
        """The run's keys (its index's): ``head`` in the room left for it, the folders',
        ``tail``; None when the folders' are not of ``files`` files. Held, or the spill
        file mapped (:func:`~store.write_streamed` lets its pages go)."""
        if self.spilled + len(self.stats) != HEAD + RECORD * files:
            return None
        self.stats += tail
        if not self.spilled:
            self.stats[:HEAD] = head
            return self.stats
        with contextlib.suppress(OSError, ValueError):
            if self._spill() and os.pwrite(self.fd, head, 0) == HEAD:
                return memoryview(mmap.mmap(self.fd, self.spilled, access=mmap.ACCESS_READ))
        with contextlib.suppress(OSError):  # not written or mapped: read back and held
            whole = bytearray().join(self._packed(0))
            whole[:HEAD] = head
            return whole
        return None


def _record(entry: Any) -> EntryRec:
    """A folder read as it is stored (without the problem the collector adds on every read)."""
    rec = entry_record(entry)
    if any(p.rule == RULE_DUPLICATE_ID for p in rec.problems):
        problems = tuple(p for p in rec.problems if p.rule != RULE_DUPLICATE_ID)
        rec = msgspec.structs.replace(rec, problems=problems)
    return rec


def pieces(root: str, folders: Iterator[tuple[str, Any]]) -> Iterator[bytes]:
    """A task store as written: msgpack bins (:func:`~reports.framed`), the run's root then
    pieces of :data:`~reports.PIECE` of its ``folders`` (a map of each name to its entry,
    encoded)."""
    for piece in itertools.chain(
        [root], iter(lambda: dict(itertools.islice(folders, reports.PIECE)), {})
    ):
        yield from reports.framed(ENCODER.encode(piece))
