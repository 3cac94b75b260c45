"""Reading many task folders fast: the task store first, then reader processes.

A task folder is read independently of the others, so a large run (by folders or by bytes:
:mod:`inspector.loading.by_bytes`) is split into chunks read by a pool of worker processes;
a small one is read in-process. Unchanged folders come from :mod:`inspector.loading.tasks`.
The entries are the same, in the same order, whichever path produced them.

Reading is started (:class:`EntryLoad`) and collected (:meth:`EntryLoad.collect`) apart,
so the app can start its readers before any thread. The caller says which (``shared``):
the command line forks its own; the app uses one pool from a fork server.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Collection, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

from inspector.loading import by_bytes
from inspector.loading import tasks as task_store
from inspector.loading.ending import end_pool
from inspector.loading.index import Checked, packed_signature
from inspector.loading.processes import (
    drop_shared_pool,
    halves_in_fork,
    in_shared_pool,
    own_context,
    preload_in_readers,
    reader_pool,
    shared_pool,
    workers,
)
from inspector.loading.records import ENCODER, EntryRec, decoder, entry_record, task_entry
from inspector.loading.store import enabled as store_enabled
from inspector.loading.store import stat_or_absent
from inspector.results.listing import StateName
from inspector.results.quick import read_plain_task
from inspector.results.reader import OnProgress
from inspector.results.run_files import RunFiles
from inspector.results.tasks import TaskEntry, load_published

preload_in_readers(__name__)  # its _read_chunk runs in the reader processes

_Seen = bytes | tuple[tuple[str, int, int, int, int, int, int], ...] | None
_Chunk = list[tuple[EntryRec, _Seen]]
PARALLEL_MIN = 1500  # folders; below it (and below by_bytes' bytes) one process reads
CHUNK = 250
# From this many cached folders on, a single-threaded caller checks half of them in a
# forked child (about five files each: the snapshot check's FORK_MIN files).
FORK_CHECK_MIN = 4000


def _read_one(
    files: RunFiles,
    folder: str,
    state: StateName,
    first: str,
    strategies: Collection[str],
    signed: bool = True,
) -> tuple[TaskEntry, task_store.Signature | None]:
    """One folder, and the signature of its files as they were read (for the cache; None
    when not ``signed``: there is no cache)."""
    entry = read_plain_task(files, folder, state, first, strategies, signed)
    if entry is None:
        entry = load_published(files, folder, state, first, strategies)
    if not signed:
        return entry, None
    return entry, task_store.known_signature(files.stats, task_store.entry_files(entry))


def _read_chunk(
    root: str,
    items: list[tuple[str, StateName, str]],
    strategies: tuple[str, ...],
    signed: bool = True,
) -> bytes:
    """Worker: read folders and send them back compactly — each entry as its record
    (:class:`~inspector.loading.records.EntryRec`) with the signature of its files (None
    when not ``signed``: without a store nothing uses it), the whole chunk as one msgpack
    string (cheaper to make and to take apart than pickling, and one object for the pool
    to pass on).

    The cyclic garbage collector is off meanwhile: what is built is acyclic, and the
    collections triggered by the parsed documents would walk the growing chunk again and
    again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        files = RunFiles(Path(root))
        out = []
        for folder, state, first in items:
            entry, seen = _read_one(files, folder, state, first, strategies, signed)
            # Packed here: as tuples, decoding them cost the collector 2 KB a folder.
            packed = packed_signature(entry, seen) if seen is not None else None
            out.append((entry_record(entry), seen if packed is None else packed))
        return ENCODER.encode(out)
    finally:
        if enabled:
            gc.enable()


class EntryLoad:
    """The task folders of one run, being read.

    Creating it looks every folder up in the cache and, for a large run, hands the rest to
    worker processes at once; :meth:`collect` gathers the entries in candidate order.

    Args:
        files: The run's files.
        candidates: ``(folder, state)`` in ``RunStore`` order.
        first_location: For each folder name, where AgentCompass finds it first.
        strategies: Registered attempt strategy ids.
        reuse: False reads every folder, whatever the cache holds (it is still written).
        store: False keeps nothing of what is read (no task cache at all when not
            ``reuse`` either: no file signatures are taken, nothing is written).
        shared: The caller has threads (the app): the shared reader processes read and
            check, never a pool forked from this process.
        checked: What the report cache's check of the run just found: a cached folder
            whose files it found with their cached keys is not stat'ed again.

    The collecting thread does not read chunks itself: it decodes the workers' entries and
    passes them on (``on_entries``), so the tasks can be reduced while the rest is read.
    """

    def __init__(
        self,
        files: RunFiles,
        candidates: Sequence[tuple[str, StateName]],
        first_location: dict[str, str],
        strategies: Collection[str],
        *,
        reuse: bool = True,
        store: bool = True,
        shared: bool = False,
        checked: Checked | None = None,
    ) -> None:
        self.files = files
        self.shared = shared
        self.strategies = tuple(strategies)
        self.store = store
        self.cache = (
            task_store.TaskCache(files.root, reuse=reuse)
            if store_enabled() and (reuse or store)
            else None
        )
        self.entries: list[TaskEntry | None] = [None] * len(candidates)
        self.missing: list[int] = []
        enabled = gc.isenabled()
        gc.disable()
        try:
            self._look_up(candidates, first_location, checked)
        finally:
            if enabled:
                gc.enable()
        self.items = [
            (*candidates[p], first_location[candidates[p][0].rpartition("/")[2]])
            for p in self.missing
        ]
        # About sixteen chunks per reader process: by count for many folders (no fewer than
        # CHUNK each), by bytes for fewer (a few large folders still use every core).
        self.chunks, parallel = by_bytes.split(
            self.items, files.full_path, parallel_min=PARALLEL_MIN, chunk=CHUNK, processes=workers()
        )
        self.starts = [*accumulate(map(len, self.chunks), initial=0)]  # in self.missing
        self.pool: Any = None
        self.owned = False
        self.futures: list[Any] = []  # None once its chunk is taken
        self.signatures: dict[str, bytes | None] = {}
        self._emitted = 0
        self._on_entries: Callable[[list[TaskEntry]], None] | None = None
        if parallel:
            self._start_pool(min(workers(), len(self.chunks)))

    def _look_up(
        self,
        candidates: Sequence[tuple[str, StateName]],
        first_location: dict[str, str],
        checked: Checked | None = None,
    ) -> None:
        """Cache hits go to :attr:`entries`, the rest to :attr:`missing`.

        Each hit's files are stat'ed first; for a large run in a threaded process (the app)
        the shared reader processes do that, so the interface keeps the interpreter.
        """
        cache = self.cache
        if cache is None:
            self.missing = list(range(len(candidates)))
            return
        signatures = [
            cache.candidate(folder, state, first_location[folder.rpartition("/")[2]])
            for folder, state in candidates
        ]
        known = {position: sig for position, sig in enumerate(signatures) if sig is not None}
        hits: set[int] = set()
        if checked is not None:
            hits = {position for position, sig in known.items() if checked.covers(sig)}
        self._check(known, [position for position in known if position not in hits], hits)
        for position, (folder, _) in enumerate(candidates):
            entry = cache.accept(folder) if position in hits else None
            if entry is not None:
                self.entries[position] = entry
            else:
                self.missing.append(position)

    def _check(self, known: dict[int, Any], checked: list[int], hits: set[int]) -> None:
        """Add to ``hits`` the positions in ``checked`` whose files still have their
        cached signature (``lstat``, split between processes for many)."""
        root = str(self.files.root)
        valid = None
        if len(checked) >= PARALLEL_MIN and self.shared:
            step = max(CHUNK, len(checked) // (4 * workers()) + 1)
            parts = [checked[i : i + step] for i in range(0, len(checked), step)]
            answers = in_shared_pool(
                task_store.unchanged, [(root, [known[p] for p in part]) for part in parts]
            )
            if answers is not None:
                valid = [ok for answer in answers for ok in answer]
        if valid is None and not self.shared and len(checked) >= FORK_CHECK_MIN:
            # A single-threaded caller: half of the lstat calls in a forked child.
            half = len(checked) // 2
            both = halves_in_fork(
                task_store.unchanged,
                (root, [known[p] for p in checked[:half]]),
                (root, [known[p] for p in checked[half:]]),
            )
            if both is not None and len(both[0]) + len(both[1]) == len(checked):
                valid = [*both[0], *both[1]]
        if valid is None:
            valid = task_store.unchanged(root, [known[p] for p in checked])
        hits.update(position for position, ok in zip(checked, valid, strict=True) if ok)

    def _start_pool(self, pool_size: int) -> None:
        try:
            if not self.shared:
                # Forked now, by a caller with one thread; shut down after collect.
                self.pool = reader_pool(pool_size, own_context())
                self.owned = True
            else:
                self.pool, self.owned = shared_pool(), False
            root = str(self.files.root)
            self.futures = [
                self.pool.submit(_read_chunk, root, chunk, self.strategies, self.cache is not None)
                for chunk in self.chunks
            ]
        except (OSError, RuntimeError, ValueError):
            # No worker processes here (a sandbox, an odd __main__): read in-process.
            self.cancel()

    def save_cache(self) -> None:
        """Write the task cache (after ``collect(save=False)``; nothing when not ``store``)."""
        if self.cache is not None and self.store:
            self.cache.save()

    def cancel(self) -> None:
        """Stop the workers (what they have not started is dropped)."""
        for future in self.futures:
            if future is not None:
                future.cancel()
        if self.pool is not None and self.owned:
            self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool, self.futures = None, []

    def collect(
        self,
        progress: OnProgress | None = None,
        total: int | None = None,
        on_entries: Callable[[list[TaskEntry]], None] | None = None,
        *,
        save: bool = True,
    ) -> list[TaskEntry]:
        """Every candidate as a TaskEntry, in candidate order.

        ``save=False`` leaves writing the cache to the caller (:meth:`save_cache`), so a
        large run can be shown before its cache file is written.

        ``on_entries`` is called with the entries in candidate order as soon as they and
        all before them are read (so work on them can start while the rest is read).
        With the cache on, :attr:`signatures` then holds, per folder, the signature of the
        files each entry was read from, as the reader saw them, packed
        (:func:`~inspector.loading.index.packed_signature`, for the run's index).

        The cyclic garbage collector is paused meanwhile: reading builds hundreds of
        thousands of small acyclic objects, and collecting them as they are made costs more
        than the reading itself on large runs.
        """
        total = len(self.entries) if total is None else total
        self._emitted = 0
        self._on_entries = on_entries
        enabled = gc.isenabled()
        gc.disable()
        try:
            self._collect(progress, total)
        finally:
            if enabled:
                # What was built is old now: without this the first collection after
                # re-enabling walks all of it at once (half a second at 50,000 tasks).
                gc.freeze()
                gc.unfreeze()
                gc.enable()
        entries = [entry for entry in self.entries if entry is not None]
        cache = self.cache
        if cache is not None:
            if save and self.store:
                cache.save()
            for entry in entries:
                cached = cache.fresh.get(entry.folder)
                if cached is not None:  # packed as the cache holds a folder read
                    sig = cached[0]
                    packed = sig if type(sig) is bytes else packed_signature(entry, sig)
                    self.signatures[entry.folder] = packed
                else:  # not cacheable (a file is missing: a task not yet published)
                    rels = task_store.entry_files(entry)
                    stats = [stat_or_absent(self.files.full_path(r)) for r in rels]
                    present = [stat for stat in stats if stat is not None]
                    if len(present) == len(stats):
                        self.signatures[entry.folder] = packed_signature(
                            entry, [(rel, *stat) for rel, stat in zip(rels, present, strict=True)]
                        )
        return entries

    def _collect(self, progress: OnProgress | None, total: int) -> None:
        done = len(self.entries) - len(self.missing)
        if progress is not None and done:
            progress(done, total)
        self._emit()
        try:
            for number, chunk in enumerate(self.chunks):
                self._place(number, self._result(number))
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
        except BaseException:  # Ctrl-C: the readers ignore it and are ended here, at once
            if self.pool is not None and self.owned:
                end_pool(self.pool)
            raise
        finally:
            for future in self.futures:
                if future is not None:
                    future.cancel()
            if self.pool is not None and self.owned:
                self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None

    def _place(self, number: int, results: list[tuple[TaskEntry, Any]]) -> None:
        """Put one chunk's entries in place (and in the cache), then pass on what is ready."""
        cursor = self.starts[number]
        cache = self.cache
        for entry, seen in results:
            self.entries[self.missing[cursor]] = entry
            if cache is not None:
                cache.put(entry, self.items[cursor][2], seen)
            cursor += 1
        self._emit()

    def _emit(self) -> None:
        if self._on_entries is None:
            return
        start = end = self._emitted
        entries = self.entries
        while end < len(entries) and entries[end] is not None:
            end += 1
        if end > start:
            self._emitted = end
            self._on_entries(entries[start:end])  # type: ignore[arg-type]

    def _read_here(self, chunk: list[tuple[str, StateName, str]]) -> list[tuple[TaskEntry, Any]]:
        signed = self.cache is not None
        return [
            _read_one(self.files, folder, state, first, self.strategies, signed)
            for folder, state, first in chunk
        ]

    def _result(self, number: int) -> list[tuple[TaskEntry, Any]]:
        """A worker's chunk, decoded; read here when there is no worker or it failed."""
        if not self.futures:
            return self._read_here(self.chunks[number])
        # Loaded by now (the pool that made the futures imported it): no cost, and none
        # for a read without workers.
        from concurrent.futures.process import BrokenProcessPool

        try:
            data = self.futures[number].result()
            # The future would keep the chunk's bytes for the rest of the read.
            self.futures[number] = None
        except (BrokenProcessPool, OSError, RuntimeError, ValueError) as exc:
            if isinstance(exc, BrokenProcessPool) and self.pool is not None and not self.owned:
                drop_shared_pool(self.pool)
            return self._read_here(self.chunks[number])
        return [
            (task_entry(rec, item[0]), seen)
            for (rec, seen), item in zip(
                decoder(_Chunk).decode(data), self.chunks[number], strict=True
            )
        ]
