"""Reading many task folders fast: the task store first, then reader processes.

A large run is split into chunks read by a pool of reader processes; a small one is read
in-process; unchanged folders come from the task store (:mod:`inspector.loading.tasks`).
The entries are the same, in the same order, whichever path produced them. A run of fewer
than :data:`PARALLEL_MIN` folders still goes to the reader processes when its attempt
files hold :data:`PARALLEL_BYTES` or more, in chunks of about equal bytes; the sizes
(``lstat``) only decide how the work is shared.

Reading is started (:class:`EntryLoad`) and collected (:meth:`EntryLoad.collect`) apart,
so the app can start its readers before any thread: the command line forks its own, the
app uses one shared pool from a fork server (``shared``).
"""

from __future__ import annotations

import gc
import os
import stat as stat_module
from collections.abc import Callable, Collection, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

from inspector.loading.index import keys_of, pack, racy, rels_of, tail_of
from inspector.loading.processes import (
    end_pool,
    ending,
    interrupts_at_safe_points,
    own_context,
    preload_in_readers,
    reader_pool,
    result_of,
    shared_pool,
    shutdown_shared_pool,
    workers,
)
from inspector.loading.records import ENCODER, EntryRec, decoder, entry_record, task_entry
from inspector.loading.store import ABSENT, Stat
from inspector.loading.tasks import ReadKeys, TaskCache
from inspector.results.file_io import stat_key
from inspector.results.layout import StateName
from inspector.results.quick import read_plain_task
from inspector.results.reader import OnProgress
from inspector.results.run_files import RunFiles
from inspector.results.tasks import TaskEntry, load_published

preload_in_readers(__name__)  # its _read_chunk runs in the reader processes

_Chunk = list[tuple[EntryRec, bytes | None]]
PARALLEL_MIN = 1500  # folders; below it (and below PARALLEL_BYTES) one process reads
CHUNK = 250
PARALLEL_BYTES = 32 << 20
"""From this many bytes of attempt files on, two processes read a run faster than one."""
SAMPLE = 32
"""Folders whose sizes are looked at before deciding."""


def stat_or_absent(path: str) -> Stat | None:
    """The key of ``path`` (not following a final link), :data:`ABSENT` when it does not
    exist, None when it cannot be stat'ed."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return ABSENT
    except OSError:
        return None
    return stat_key(info)


def folder_bytes(path: str) -> int:
    """The bytes of the ``attempt-*/result.json`` files in the task folder at ``path``
    (regular files only, nothing followed through a link; 0 for what cannot be seen)."""
    total = 0
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.name.startswith("attempt-"):
                    try:
                        info = os.lstat(f"{entry.path}/result.json")
                    except OSError:
                        continue
                    if stat_module.S_ISREG(info.st_mode):
                        total += info.st_size
    except OSError:
        return 0
    return total


def split(
    items: Sequence[Any], path_of: Callable[[Any], str], processes: int
) -> tuple[list[list[Any]], bool]:
    """``items`` (``(folder, ...)`` to read, in order; ``path_of(folder)`` its path) cut
    into consecutive chunks, and whether reader processes should read them: from
    :data:`PARALLEL_MIN` folders on, about sixteen chunks per process of at least
    :data:`CHUNK` folders; fewer, by bytes, as the module says."""
    count = len(items)
    if count >= PARALLEL_MIN or processes < 2 or count < 2:
        size = max(CHUNK, count // (16 * processes) + 1)
        chunks = [list(items[i : i + size]) for i in range(0, count, size)]
        return chunks, count >= PARALLEL_MIN and processes > 1 and len(chunks) > 1
    step = max(1, count // SAMPLE)
    sample = [folder_bytes(path_of(items[i][0])) for i in range(0, count, step)]
    if sum(sample) * count < PARALLEL_BYTES * len(sample):
        return [list(items[i : i + CHUNK]) for i in range(0, count, CHUNK)], False
    sizes = [folder_bytes(path_of(item[0])) for item in items]
    target = max(1, sum(sizes) // (16 * processes))
    chunks, current, held = [], [], 0
    for item, size in zip(items, sizes, strict=True):
        if current and (held + size > target or len(current) >= CHUNK):
            chunks.append(current)
            current, held = [], 0
        current.append(item)
        held += size
    chunks.append(current)
    return chunks, len(chunks) > 1


def known_keys(stats: dict[str, Any], rels: list[str]) -> bytes | None:
    """The keys of ``rels``, packed, as the reader saw them as it read them (the folder's
    lstat and each file's fstat); None when one of them was not seen or does not fit."""
    return pack([stats.get(rel) for rel in rels])


def entry_files(entry: Any) -> list[str]:
    """What an entry was read from: its folder (a new attempt folder or a symbolic link
    changes it), its task.json and each attempt's result.json, by number."""
    return rels_of(entry.folder, tail_of(entry.attempt_dirs))


def _read_one(
    files: RunFiles,
    folder: str,
    state: StateName,
    first: str,
    strategies: Collection[str],
    signed: bool = True,
) -> tuple[TaskEntry, bytes | None]:
    """One folder, and the keys of its files, packed, as the reader saw them
    (:func:`known_keys`) for the store; None when not ``signed`` (no store) or one of
    them was not seen."""
    entry = read_plain_task(files, folder, state, first, strategies, signed)
    if entry is None:
        entry = load_published(files, folder, state, first, strategies)
    return entry, known_keys(files.stats, entry_files(entry)) if signed else None


def _read_chunk(
    root: str,
    items: list[tuple[str, StateName, str]],
    strategies: tuple[str, ...],
    signed: bool = True,
) -> bytes:
    """A reader process's chunk: each entry as its record with the keys of its files,
    packed, the whole chunk as one msgpack string (cheaper than pickling, one object for
    the pool to pass on). The cyclic collector is off meanwhile: what is built is acyclic."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        files = RunFiles(Path(root))
        out = []
        for folder, state, first in items:
            entry, seen = _read_one(files, folder, state, first, strategies, signed)
            out.append((entry_record(entry), seen))
        return ENCODER.encode(out)
    finally:
        if enabled:
            gc.enable()


class EntryLoad:
    """The task folders of one run, being read.

    Creating it looks every folder up in the task store and, for a large run, hands the
    rest to reader processes at once; :meth:`collect` gathers the entries in candidate
    order. ``candidates``: ``(folder, state)`` in ``RunStore`` order; ``first_location``:
    for each folder name, where AgentCompass finds it first. ``cache``: the task store
    (None: no file's key is taken), which put in ``entries`` the folders it holds; the
    positions of the rest, ``missing``, are read. ``shared``: the caller has threads (the
    app): its shared reader processes read.
    """

    def __init__(
        self,
        files: RunFiles,
        candidates: Sequence[tuple[str, StateName]],
        first_location: dict[str, str],
        strategies: Collection[str],
        *,
        cache: TaskCache | None,
        entries: list[TaskEntry | None],
        missing: list[int],
        shared: bool,
    ) -> None:
        self.files = files
        self.shared = shared
        self.strategies = tuple(strategies)
        self.cache = cache
        self.entries = entries
        self.missing = missing
        self.items = [
            (*candidates[p], first_location[candidates[p][0].rpartition("/")[2]])
            for p in self.missing
        ]
        root = str(files.root)
        self.chunks, parallel = split(self.items, lambda folder: f"{root}/{folder}", workers())
        self.starts = [*accumulate(map(len, self.chunks), initial=0)]  # in self.missing
        self.pool: Any = None
        self.owned = False
        self.futures: list[Any] = []  # None once its chunk is taken
        # Per folder its packed keys, or (every folder read) the task store's ReadKeys.
        self.signatures: dict[str, bytes | None] | ReadKeys = {}
        self._emitted = 0
        self._on_entries: Callable[[list[TaskEntry]], object] | None = None
        if parallel:
            self._start_pool(min(workers(), len(self.chunks)))

    def _start_pool(self, pool_size: int) -> None:
        """Hand every chunk to reader processes: forked now (by a caller with one thread;
        shut down after collect), or the app's shared ones."""
        try:
            with interrupts_at_safe_points():
                if self.shared:
                    self.pool, self.owned = shared_pool(), False
                else:
                    self.pool = reader_pool(pool_size, own_context(len(self.items)))
                    self.owned = True
                root, signed = str(self.files.root), self.cache is not None
                self.futures = [
                    self.pool.submit(_read_chunk, root, chunk, self.strategies, signed)
                    for chunk in self.chunks
                ]
        except (OSError, RuntimeError, ValueError):
            # No worker processes here (a sandbox, an odd __main__): read in-process.
            self.cancel()

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
        progress: OnProgress | None,
        total: int,
        on_entries: Callable[[list[TaskEntry]], object],
    ) -> list[TaskEntry]:
        """Every candidate as a TaskEntry, in candidate order; ``on_entries`` gets them in
        that order as soon as they and all before them are read (so they are reduced while
        the rest is read). With the store on, :attr:`signatures` then holds, per folder,
        the keys its entry was read with (packed), or, when every folder
        was read, the task store's keys of them all (``ReadKeys.in_order``: not copied).
        The cyclic collector is paused meanwhile: reading builds many small acyclic
        objects."""
        self._emitted = 0
        self._on_entries = on_entries
        enabled = gc.isenabled()
        gc.disable()
        try:
            self._collect(progress, total)
        finally:
            if enabled:
                # What was built is old now: without this the first collection after
                # re-enabling walks all of it at once.
                gc.freeze()
                gc.unfreeze()
                gc.enable()
        entries = [entry for entry in self.entries if entry is not None]
        cache = self.cache
        joined = cache.read.in_order(entries) if cache is not None else None
        if joined is not None:  # every folder read: their keys as the task store holds them
            self.signatures = joined
        elif cache is not None:
            signatures: dict[str, bytes | None] = {r[0].folder: r[3] for r in cache.read.rows()}
            for entry in entries:
                if entry.folder not in signatures:  # not kept (a task not yet published)
                    files = [self.files.full_path(rel) for rel in entry_files(entry)]
                    signatures[entry.folder] = pack([stat_or_absent(f) for f in files])
            self.signatures = signatures
        return entries

    def _collect(self, progress: OnProgress | None, total: int) -> None:
        done = len(self.entries) - len(self.missing)
        if progress is not None and done:
            progress(done, total)
        self._emit()
        try:
            for number, chunk in enumerate(self.chunks):
                ending()
                self._place(number, self._result(number))
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
        except BaseException:  # Ctrl-C: the readers ignore it and are ended here, at once
            if self.pool is not None and self.owned:
                end_pool(self.pool)
            raise
        finally:
            with interrupts_at_safe_points():
                for future in self.futures:
                    if future is not None:
                        future.cancel()
                if self.pool is not None and self.owned:
                    self.pool.shutdown(wait=True, cancel_futures=True)
                self.pool = None

    def _place(self, number: int, results: list[tuple[TaskEntry, Any]]) -> None:
        """Put one chunk's entries in place, pass on what is ready, then give them to the
        task store with their files' keys, packed (the files of one the reader did not see
        are stat'ed now; one with a racy file is not kept)."""
        start = self.starts[number]
        for cursor, (entry, _) in enumerate(results, start):
            self.entries[self.missing[cursor]] = entry
        self._emit()
        cache = self.cache
        if cache is not None:  # the files of one the reader did not see are stat'ed now
            for cursor, (entry, seen) in enumerate(results, start):
                if seen is None:
                    seen = keys_of(cache.root, entry_files(entry))
                if seen is None or racy(seen, cache.fence):
                    continue  # a file not seen, not packed, or written as it was read
                cache.read.add(entry, self.items[cursor][2], seen)

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

    def _result(self, number: int) -> list[tuple[TaskEntry, Any]]:
        """A worker's chunk, decoded; read here when there is no worker or it failed."""
        if self.futures:
            # Loaded by now (the pool that made the futures imported it).
            from concurrent.futures.process import BrokenProcessPool

            try:
                data = result_of(self.futures[number])
                self.futures[number] = None  # it would keep the bytes for the whole read
                return [
                    (task_entry(rec, item[0]), seen)
                    for (rec, seen), item in zip(
                        decoder(_Chunk).decode(data), self.chunks[number], strict=True
                    )
                ]
            except (BrokenProcessPool, OSError, RuntimeError, ValueError) as exc:
                if isinstance(exc, BrokenProcessPool) and self.pool is not None and not self.owned:
                    shutdown_shared_pool(self.pool)
        signed = self.cache is not None
        read = []
        for folder, state, first in self.chunks[number]:
            ending()  # the pool was ended on a signal: not read in-process meanwhile
            read.append(_read_one(self.files, folder, state, first, self.strategies, signed))
        return read
