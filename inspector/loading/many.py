"""Many runs: a function over many calls in reader processes (``check ROOT``, the runs
screen), here when there are none; and a results root's runs list, kept in the store.

A run's line in the runs list (a :class:`~inspector.results.discover.RunSummary` but the
task counts, from its four run-level files) is kept with each file's key, taken before it
was read, and used while all four are unchanged; the task folders are counted again. A
link among them, or a file too recent to tell (racy), is not kept.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from inspector.loading import store
from inspector.loading.processes import (
    end_pool,
    interrupts_at_safe_points,
    own_context,
    reader_pool,
    result_of,
    shared_pool,
    shutdown_shared_pool,
)
from inspector.loading.records import (
    ENCODER,
    OPTIONS,
    ProblemRec,
    Stat,
    decoded,
    load_problem,
    problem_rec,
)
from inspector.loading.reports import run_folder, store_file
from inspector.results.discover import (
    RunSummary,
    newest_first,
    run_folders,
    summarize_run,
    task_counts,
)


class RootAnswers(msgspec.Struct, **OPTIONS):
    """Answers about a results root, each under a question naming every input it was
    computed from (the plan and each run's :func:`~inspector.loading.state`)."""

    root: str
    records: dict[str, msgspec.Raw]


class Summary(msgspec.Struct, **OPTIONS):
    """A run's line in its root's runs list, from its run-level files (``keys``)."""

    keys: tuple[Stat, ...]
    run_id: str
    model: str | None
    benchmark: str | None
    harness: str | None
    k: int | None
    strategy: str | None
    status: str | None
    started_at: str | None
    finished_at: str | None
    headline_series_id: str | None
    headline_value: float | int | None
    headline_is_reference: bool
    problems: tuple[ProblemRec, ...]


class Summaries(msgspec.Struct, **OPTIONS):  # a root's runs list
    runs: dict[str, Summary]


def map_in_processes(
    function: Callable[..., Any],
    calls: Sequence[tuple[Any, ...]],
    processes: int,
    *,
    progress: Callable[[int, int], None] | None = None,
    preload: Sequence[str] = (),
) -> list[Any]:
    """``function(*call)`` for each call, in order, by ``processes`` worker processes of this
    process's own (started now, so they see its environment); here when there are none.
    ``progress(done, total)`` after each answer taken in order. ``preload``: modules a call
    needs when it reads its run (``call[0]``), imported here before the workers start
    when a run has no report kept (a first pass: once, not in each worker)."""
    said = progress or (lambda done, total: None)
    # concurrent.futures.process (multiprocessing's connections and queues) when
    # a pool runs: the app imports this module (the runs screen) before its first frame,
    # and starts its reader processes in a worker thread after it.
    from concurrent.futures.process import BrokenProcessPool

    if processes > 1 and len(calls) > 1:
        # The reader and the engine (an answer from the store does without them), imported
        # once before the workers fork rather than by each worker on its first call.
        from inspector.loading import reading  # noqa: F401

        if preload and _first_pass(calls):
            for module in preload:
                importlib.import_module(module)
        store.enabled()  # a cache folder not the user's is named here, not by each worker
        try:
            with (
                interrupts_at_safe_points(),
                pool_in_use(reader_pool(processes, own_context())) as pool,
            ):
                futures = [pool.submit(function, *call) for call in calls]
                answers = []
                for future in futures:
                    answers.append(result_of(future))
                    said(len(answers), len(calls))
                return answers
        except (BrokenProcessPool, OSError, RuntimeError, ValueError):
            pass  # no worker processes here (a sandbox): do the work in this process
    answers = []
    for call in calls:
        answers.append(function(*call))
        said(len(answers), len(calls))
    return answers


@contextlib.contextmanager
def pool_in_use(pool: Any) -> Iterator[Any]:
    """``pool`` for a block: shut down after it, its work done; ended at once when the
    block raises (Ctrl-C)."""
    try:
        yield pool
    except BaseException:
        end_pool(pool)
        raise
    pool.shutdown(wait=True)


def _first_pass(calls: Sequence[tuple[Any, ...]]) -> bool:
    """Whether a run of the calls has no report in the store (a stat each, to the first)."""
    for call in calls:
        try:
            if not os.path.exists(store_file(Path(call[0]))):
                return True
        except (OSError, TypeError, ValueError):
            return False
    return False


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
            shutdown_shared_pool(pool)
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


FILES = ("run_info.json", "params.json", "progress.json", "metrics.json")
"""What :func:`~inspector.results.discover.summarize_run` reads."""
KEPT = tuple(
    f.name
    for f in dataclasses.fields(RunSummary)
    if f.name not in ("path", "relative", "namespace", "task_counts", "problems")
)
"""The fields kept as they are (the path-derived ones and the counts are not kept)."""


def runs_under(root: Path | str, folders: list[tuple[Path, str]] | None = None) -> list[RunSummary]:
    """Every run under ``root``, newest first (:func:`inspector.results.discover.find_runs`),
    the unchanged runs' summaries from the store. ``folders``: the run folders when the
    root was searched already.

    Raises:
        RunReadError: ``root`` is not a readable directory.
    """
    folders = run_folders(root) if folders is None else folders
    if not store.enabled():
        return newest_first([summarize_run(path, relative) for path, relative in folders])
    file = cache_file(Path(root))
    stored = store.load(file, Summaries)
    kept: dict[str, Summary] = stored.runs if stored is not None else {}
    found: list[RunSummary] = []
    entries: dict[str, Summary] = {}
    for path, relative in folders:
        real = os.path.realpath(path)
        fence = time.time_ns()
        keys = _keys(path)
        entry = kept.get(real)
        summary = _summary(path, relative, entry) if entry and entry.keys == keys else None
        if summary is None:
            summary = summarize_run(path, relative)  # read after the keys were taken
            if keys is not None and not any(store.is_racy(key, fence) for key in keys):
                entry = _record(keys, summary)
            else:
                entry = None
        if entry is not None:
            entries[real] = entry
        found.append(summary)
    if entries != kept:
        store.write_atomically(file, Summaries(entries))
    return newest_first(found)


def cache_file(root: Path) -> Path:
    return run_folder(root).with_suffix(".runs")


def _keys(run: Path) -> tuple[Any, ...] | None:
    """The keys of the four files, None when one cannot be stat'ed or is a link."""
    from inspector.loading.readers import stat_or_absent  # as a run's read takes them

    keys = []
    for name in FILES:
        key = stat_or_absent(os.path.join(run, name))
        if key is None or (key != store.ABSENT and stat.S_ISLNK(key[2])):
            return None
        keys.append(key)
    return tuple(keys)


def _record(keys: tuple[Any, ...], summary: RunSummary) -> Summary | None:
    try:
        return Summary(
            keys,
            *(getattr(summary, name) for name in KEPT),
            tuple(problem_rec(p) for p in summary.problems),
        )
    except (TypeError, ValueError):
        return None


def _summary(path: Path, relative: str, kept: Summary) -> RunSummary:
    """The summary kept, its task folders counted now."""
    return RunSummary(
        path=path,
        relative=relative,
        namespace=path.parent.name or None,
        task_counts=task_counts(path),
        problems=tuple(load_problem(p) for p in kept.problems),
        **{name: getattr(kept, name) for name in KEPT},
    )


ROOT_ANSWERS_MAX = 64
"""Answers kept per root (the newest; each names the states of the runs it is of)."""


def kept_for_root(root: Path | str, question: str, kind: Any) -> Any | None:
    """The answer of type ``kind`` kept for the results root under ``question`` (which
    names every input it depends on: the plan, :func:`inspector.loading.state` of each
    run), else None."""
    if not store.enabled():
        return None
    found = store.load(_answers_file(Path(root)), RootAnswers)
    raw = found.records.get(question) if found is not None else None
    if raw is None or found.root != os.path.realpath(root):
        return None
    return decoded(kind, raw)


def keep_for_root(root: Path | str, answers: dict[str, Any]) -> None:
    """Keep ``answers`` (question → a typed record) for the results root, with the newest
    of those kept before; never fails."""
    with contextlib.suppress(Exception):
        if not answers or not store.enabled():
            return
        file = _answers_file(Path(root))
        found = store.load(file, RootAnswers)
        real = os.path.realpath(root)
        records = dict(found.records) if found is not None and found.root == real else {}
        for question, value in answers.items():
            records.pop(question, None)
            records[question] = msgspec.Raw(ENCODER.encode(value))
        newest = dict(list(records.items())[-ROOT_ANSWERS_MAX:])
        store.write_atomically(file, RootAnswers(real, newest))


def _answers_file(root: Path) -> Path:
    return run_folder(root).with_suffix(".answers")
