"""Many runs at once: a function over many calls in worker processes (``check ROOT``, the
runs screen), with the work done here when no worker process can be had."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from inspector.loading.ending import pool_in_use
from inspector.loading.processes import (
    drop_shared_pool,
    own_context,
    reader_pool,
    shared_pool,
    workers,
)

__all__ = ["map_in_processes", "stream_in_shared_pool", "workers"]

def map_in_processes(
    function: Callable[..., Any],
    calls: Sequence[tuple[Any, ...]],
    processes: int,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> list[Any]:
    """``function(*call)`` for each call, in order, by ``processes`` worker processes of this
    process's own (started now, so they see its environment); here when there are none.
    ``progress(done, total)`` after each answer taken in order."""
    said = progress or (lambda done, total: None)
    # concurrent.futures.process (~15 ms with multiprocessing's connections and queues) when
    # a pool runs: the app imports this module (the runs screen) before its first frame,
    # and starts its reader processes in a worker thread after it.
    from concurrent.futures.process import BrokenProcessPool

    if processes > 1 and len(calls) > 1:
        _load_reader()
        from inspector.loading import store

        store.enabled()  # a cache folder not the user's is named here, not by each worker
        try:
            with pool_in_use(reader_pool(processes, own_context())) as pool:
                answers = []
                for answer in pool.map(function, *zip(*calls, strict=True), chunksize=1):
                    answers.append(answer)
                    said(len(answers), len(calls))
                return answers
        except (BrokenProcessPool, OSError, RuntimeError, ValueError):
            pass  # no worker processes here (a sandbox): do the work in this process
    answers = []
    for call in calls:
        answers.append(function(*call))
        said(len(answers), len(calls))
    return answers


def _load_reader() -> None:
    """The reader and the engine, which the door imports on a run's first read (an answer
    from the report cache does without them): imported here, once, before the workers
    fork, rather than by each worker on its first call (~60 ms CPU each, 25 modules)."""
    # Imported for their side effect (the modules loaded in the forked workers).
    from inspector.loading import pending, scoring  # noqa: F401


def stream_in_shared_pool(
    function: Callable[..., Any],
    calls: Sequence[tuple[Any, ...]],
    *,
    failed: Callable[[int, BaseException], Any],
    cancelled: Callable[[], bool] = lambda: False,
    every: float = 0.05,
    first: float | None = None,
) -> Iterator[list[tuple[int, Any]]]:
    """``(index, function(*calls[index]))`` pairs in batches as the app's shared reader
    processes finish them (in no particular order); ``failed(index, error)`` stands in for
    a call whose worker broke. Without reader processes, one call at a time here. Stops
    when ``cancelled()``.

    A batch gathers what finishes within ``every`` seconds of its first call's end (or
    until every call is done); with ``first``, the first batch within ``first`` seconds
    and each next one within twice the time of the one before, up to ``every``: the
    first values at once, then fewer, larger batches (each redraws the screen, whose CPU
    the reader processes share)."""
    from concurrent.futures import FIRST_COMPLETED, wait  # when a pool runs: see above
    from concurrent.futures.process import BrokenProcessPool

    pool = None
    try:
        pool = shared_pool()
        futures = {pool.submit(function, *call): index for index, call in enumerate(calls)}
    except (BrokenProcessPool, OSError, RuntimeError, ValueError):
        if pool is not None:
            drop_shared_pool(pool)
        for index, call in enumerate(calls):
            if cancelled():
                return
            yield [(index, function(*call))]
        return
    pending = set(futures)
    gap = every if first is None else min(first, every)
    try:
        while pending and not cancelled():
            done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            if done and pending:
                more, pending = wait(pending, timeout=gap)  # let more finish (see above)
                done |= more
                gap = min(gap * 2, every)
            batch = []
            for future in done:
                index = futures[future]
                try:
                    batch.append((index, future.result()))
                except (BrokenProcessPool, OSError, RuntimeError, ValueError) as exc:
                    batch.append((index, failed(index, exc)))
            if batch:
                yield batch
    finally:
        for future in pending:
            future.cancel()
