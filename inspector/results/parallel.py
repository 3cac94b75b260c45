"""Reading many task folders fast: the cache first, then worker processes (issue 6).

A task folder is read independently of the others, so large runs are split into chunks
read by a pool of worker processes (one per core); small runs are read in-process, where
starting workers would cost more than it saves. Folders whose files are unchanged since the
last read come from :mod:`inspector.results.cache`. The result is the same list of
entries, in the same order, whichever path produced it — tests compare them.
"""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from inspector.results import cache as task_cache
from inspector.results.layout import RunFiles
from inspector.results.tasks import StateName, TaskEntry, load_published

Progress = Callable[[int, int], None]
# Below this many folders to read, worker start-up costs more than it saves.
PARALLEL_MIN = 1500
CHUNK = 250


def workers() -> int:
    """Reader processes: ``INSPECTOR_WORKERS``, else one per available core."""
    value = os.environ.get("INSPECTOR_WORKERS", "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _read_one(
    files: RunFiles, folder: str, state: StateName, first: str, strategies: Collection[str]
) -> tuple[TaskEntry, task_cache.Signature | None]:
    """One folder, and the signature of its files as they were read (for the cache)."""
    entry = load_published(files, folder, state, first, strategies)
    return entry, task_cache.known_signature(files.stats, task_cache.entry_files(entry))


def _read_chunk(
    root: str, items: list[tuple[str, StateName, str]], strategies: tuple[str, ...]
) -> list[tuple[tuple[Any, ...], task_cache.Signature | None]]:
    """Worker: read folders and return them as plain data (cheap to send back)."""
    files = RunFiles(Path(root))
    out = []
    for folder, state, first in items:
        entry, seen = _read_one(files, folder, state, first, strategies)
        out.append((task_cache.encode_entry(entry), seen))
    return out


def _context() -> Any:
    """``fork`` when this process has one thread (the CLI: no start-up cost, nothing to
    re-import), else ``forkserver`` (the app: forking a threaded process is unsafe)."""
    import multiprocessing  # only large runs need it: load on use

    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


def load_entries(
    files: RunFiles,
    candidates: Sequence[tuple[str, StateName]],
    first_location: dict[str, str],
    strategies: Collection[str],
    progress: Progress | None,
    total: int,
    seen: dict[str, tuple[int, int, int] | None] | None = None,
) -> list[TaskEntry]:
    """Every candidate folder as a TaskEntry, in candidate order.

    ``seen`` (with the cache on) receives ``(mode, size, mtime_ns)`` of every file each
    entry was read from, as the reader saw it (:mod:`inspector.results.snapshot`).

    The cyclic garbage collector is paused meanwhile: reading builds hundreds of thousands
    of small acyclic objects, and collecting them as they are made costs more than the
    reading itself on large runs.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        entries, cache = _load_entries(
            files, candidates, first_location, strategies, progress, total
        )
    finally:
        if enabled:
            gc.enable()
    if seen is not None and cache is not None:
        for entry in entries:
            _record_seen(files, entry, cache, seen)
    return entries


def _record_seen(
    files: RunFiles,
    entry: TaskEntry,
    cache: task_cache.TaskCache,
    seen: dict[str, tuple[int, int, int] | None],
) -> None:
    cached = cache.fresh.get(entry.folder)
    if cached is not None:
        for rel, mode, size, mtime in cached[0]:
            seen[rel] = (mode, size, mtime)
        return
    # Not cacheable (a file is missing: a task not yet published): stat what is there.
    for rel in task_cache.entry_files(entry):
        seen[rel] = task_cache.stat_or_absent(files.full_path(rel))


def _load_entries(
    files: RunFiles,
    candidates: Sequence[tuple[str, StateName]],
    first_location: dict[str, str],
    strategies: Collection[str],
    progress: Progress | None,
    total: int,
) -> tuple[list[TaskEntry], task_cache.TaskCache | None]:
    cache = task_cache.TaskCache(files.root) if task_cache.enabled() else None
    entries: list[TaskEntry | None] = [None] * len(candidates)
    missing: list[int] = []
    for position, (folder, state) in enumerate(candidates):
        first = first_location[folder.rpartition("/")[2]]
        hit = cache.get(folder, state, first) if cache is not None else None
        if hit is not None:
            entries[position] = hit
        else:
            missing.append(position)
    done = len(candidates) - len(missing)
    if progress is not None and done:
        progress(done, total)
    items = [
        (candidates[p][0], candidates[p][1], first_location[candidates[p][0].rpartition("/")[2]])
        for p in missing
    ]
    pool_size = min(workers(), max(1, len(items) // CHUNK))
    read_in_pool = False
    if len(items) >= PARALLEL_MIN and pool_size > 1:
        from concurrent.futures.process import BrokenProcessPool
        try:
            done = _read_in_pool(
                files, items, missing, entries, strategies, cache, pool_size, progress, done, total
            )
            read_in_pool = True
        except (BrokenProcessPool, OSError, RuntimeError, ValueError):
            # No worker processes here (a sandbox, an odd __main__): read in-process.
            done = len(candidates) - len(missing)
    if not read_in_pool:
        for position, (folder, state, first) in zip(missing, items, strict=True):
            entry, seen = _read_one(files, folder, state, first, strategies)
            entries[position] = entry
            if cache is not None:
                cache.put(entry, first, seen)
            done += 1
            if progress is not None:
                progress(done, total)
    if cache is not None:
        cache.save()
    return [entry for entry in entries if entry is not None], cache


def _read_in_pool(
    files: RunFiles,
    items: list[tuple[str, StateName, str]],
    missing: list[int],
    entries: list[TaskEntry | None],
    strategies: Collection[str],
    cache: task_cache.TaskCache | None,
    pool_size: int,
    progress: Progress | None,
    done: int,
    total: int,
) -> int:
    """Read ``items`` with worker processes.

    A single-threaded caller (the CLI) forks its workers and reads too: it takes chunks
    from the end while the workers take them from the front, so one core is not spent
    waiting. A threaded caller (the app) leaves all reading to the workers.
    """
    chunks = [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]
    context = _context()
    helps = context.get_start_method() == "fork"
    if helps:
        pool_size = max(1, pool_size - 1)
    results: list[list[tuple[TaskEntry, task_cache.Signature | None, Any]] | None]
    results = [None] * len(chunks)
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=pool_size, mp_context=context) as pool:
        futures = [pool.submit(_read_chunk, str(files.root), c, tuple(strategies)) for c in chunks]
        if helps:
            for number in range(len(chunks) - 1, -1, -1):
                if not futures[number].cancel():
                    break  # the workers have reached it: they do the rest
                read = []
                for folder, state, first in chunks[number]:
                    entry, seen = _read_one(files, folder, state, first, strategies)
                    read.append((entry, seen, None))
                results[number] = read
                done += len(chunks[number])
                if progress is not None:
                    progress(done, total)
        for number, future in enumerate(futures):
            if results[number] is not None:
                continue
            results[number] = [
                (task_cache.decode_entry(data), seen, data) for data, seen in future.result()
            ]
            done += len(chunks[number])
            if progress is not None:
                progress(done, total)
    cursor = 0
    for chunk_results in results:
        assert chunk_results is not None
        for entry, seen, data in chunk_results:
            entries[missing[cursor]] = entry
            if cache is not None:
                first = items[cursor][2]
                if data is None:
                    cache.put(entry, first, seen)
                else:
                    cache.put_encoded(entry, data, first, seen)
            cursor += 1
    return done
