"""A run being read: its run-level files now, its task folders from the task cache or by
reader processes (:class:`~inspector.loading.readers.EntryLoad`), collected later."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from pathlib import Path

from inspector.engine.model import TaskRecord
from inspector.engine.reduction_stream import ReductionStream
from inspector.loading.index import Checked
from inspector.loading.readers import EntryLoad
from inspector.loading.store import enabled as store_enabled
from inspector.loading.store import stat_or_absent
from inspector.loading.tasks import ReductionCache
from inspector.results.listing import RUN_FILES, listing_key, running_files
from inspector.results.reader import (
    ListedRun,
    Progress,
    Run,
    TaskCollector,
    finish_problems,
    list_run,
    read_run_files,
)
from inspector.results.tasks import load_running
from inspector.results.validate import BUILTIN_STRATEGIES


class PendingRead:
    """A run whose run-level files and folder listing are read and whose task folders are
    being read (by worker processes, for a large run). :meth:`finish` completes it."""

    def __init__(self, listed: ListedRun, load: EntryLoad) -> None:
        # Not the listing itself: its map of folder names (1.5 MB at 10,000 tasks) is done
        # with once the reading has started.
        self.files = listed.files
        self.running = listed.running
        self.run = listed.run
        self.load = load
        self.reduction_cache: ReductionCache | None = None

    @property
    def path(self) -> Path:
        return self.run.path

    def finish(
        self,
        progress: Progress | None = None,
        on_tasks: Callable[[list[TaskRecord]], None] | None = None,
        *,
        save_cache: bool = True,
    ) -> Run:
        """Collect every task folder; the run as :func:`~inspector.results.read_run`
        returns it.

        ``on_tasks`` receives the published tasks (``Run.tasks``, in order) as they come in,
        while the rest are still being read. ``save_cache=False``: the caller writes the
        task cache later (:meth:`save_cache`).
        """
        run, files, running = self.run, self.files, self.running
        candidates = len(self.load.entries)
        total = candidates + len(running)
        collector = TaskCollector(run)

        def take(entries: list) -> None:  # type: ignore[type-arg]
            tasks = collector.take(entries)
            if on_tasks is not None and tasks:
                on_tasks(tasks)

        self.load.collect(progress, total, on_entries=take, save=save_cache)
        run.signatures = self.load.signatures
        run.cache_hits = self.load.cache.hits if self.load.cache is not None else 0
        for done, folder in enumerate(running, start=candidates + 1):
            if run.seen is not None:
                for rel in running_files(folder):
                    run.seen[rel] = stat_or_absent(files.full_path(rel))
            run.entries.append(load_running(files, folder))
            if progress is not None:
                progress(done, total)
        finish_problems(run)
        return run

    def reductions(self, stream: ReductionStream) -> ReductionCache | None:
        """The stored reductions of this run's unchanged tasks under ``stream``'s plan
        (None when the cache is off); :meth:`save_cache` writes them again."""
        cache = self.load.cache
        if cache is None:
            return None
        self.reduction_cache = ReductionCache(cache, stream)
        return self.reduction_cache

    def save_cache(self) -> None:
        """Write the task cache, with the reductions (after ``finish(save_cache=False)``)."""
        if self.reduction_cache is not None:
            self.reduction_cache.attach()
        self.load.save_cache()

    def cancel(self) -> None:
        """Give up: stop the reader processes."""
        self.load.cancel()


def begin_read(
    path: Path | str,
    *,
    strategies: Collection[str] = BUILTIN_STRATEGIES,
    reuse_cache: bool = True,
    store: bool = True,
    shared: bool = False,
    checked: Checked | None = None,
) -> PendingRead:
    """Start reading a run: run-level files and the folder listing now, task folders from
    the cache or by worker processes started now (:class:`EntryLoad`).

    ``reuse_cache=False`` reads every task folder (what is read is still cached, unless
    ``store=False``: then the caller keeps nothing of this read, and no file's key is taken
    for a cache).
    ``shared``: the caller has threads (the app): its shared reader processes are used.
    ``checked``: what the report cache's check just found (its unchanged files are not
    checked again for the task cache).

    Raises:
        RunReadError: as :func:`~inspector.results.read_run`.
    """
    started = time.time_ns()
    listed = list_run(path)
    run, files = listed.run, listed.files
    run.read_started_ns = started
    if store_enabled() and store:
        # Before reading: a file changed while we read it then differs next time.
        run.seen = {rel: stat_or_absent(files.full_path(rel)) for rel in RUN_FILES}
    run.listing = listing_key(listed.candidates, listed.running, listed.problems)
    # The task folders first: their reader processes start while the run-level files
    # (run_info.json can be hundreds of megabytes) are read here.
    load = EntryLoad(
        files,
        listed.candidates,
        listed.first_location,
        strategies,
        reuse=reuse_cache,
        store=store,
        shared=shared,
        checked=checked,
    )
    read_run_files(files, run)
    run.problems.extend(listed.problems)
    return PendingRead(listed, load)
