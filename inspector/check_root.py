"""``inspector check ROOT``: every run under a results root, checked in parallel (issue 16).

Each run goes through the single-run check (:func:`inspector.cli.check_run`, with its rules
and caches), in a pool of worker processes bounded by the cores. The result of a run is a
:class:`RunCheck`: ``ok``, ``differs`` (with every difference) or ``unusable`` (with the file
and the reason). Exit code: 2 when any run is unusable, else 1 when any differs, else 0.
Pure: no textual, no rich.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence

from inspector.loading.report_cache import WARNING_PREFIX
from inspector.overrides import Overrides
from inspector.run_check import (
    DIFFERS,
    OK,
    UNUSABLE,
    RunCheck,
    exit_code,
    headline_of,
    summary_line,
)


def check_one(path: str, shown_as: str, overrides: Overrides, *, cached: bool = False) -> RunCheck:
    """One run through the single-run check; never raises for bad data.

    ``path`` is how the run is reached, ``shown_as`` how it is named; file names in
    messages are given under the root (``path``'s prefix replaced by ``shown_as``).
    """
    from inspector.cli import Unusable, check_run
    from inspector.engine.errors import EngineError, HierarchyError

    said: list[str] = []

    def under_root(text: str) -> str:
        return shown_as + text[len(path) :] if text.startswith(path) else text

    try:
        differences, outputs, _ = check_run(path, overrides, cached=cached, say=said.append)
    except Unusable as exc:
        return RunCheck(
            shown_as, UNUSABLE, problem=under_root(str(exc)), warnings=_warnings(said, under_root)
        )
    except (EngineError, HierarchyError) as exc:
        return RunCheck(shown_as, UNUSABLE, problem=f"{shown_as}: {exc}")
    except Exception as exc:  # never a traceback for bad data, as the single-run check
        if os.environ.get("INSPECTOR_DEBUG"):
            raise
        return RunCheck(shown_as, UNUSABLE, problem=f"{shown_as}: {type(exc).__name__}: {exc}")
    return RunCheck(
        shown_as,
        DIFFERS if differences else OK,
        differences=tuple((d.where, d.stored, d.recomputed) for d in differences),
        tasks=outputs.tasks,
        warnings=_warnings(said, under_root),
        headline=headline_of(json.loads(outputs.metrics_json)),
    )


def _warnings(said: list[str], under_root: Callable[[str], str]) -> tuple[str, ...]:
    return tuple(
        under_root(line.removeprefix(WARNING_PREFIX))
        for line in said
        if line.startswith(WARNING_PREFIX)
    )


def check_root(
    root: str, overrides: Overrides, *, processes: int | None = None, cached: bool = False
) -> list[RunCheck]:
    """Every run under ``root``, by path; checked by ``processes`` worker processes
    (default: one per core; fewer when there are fewer runs).

    Raises:
        RunReadError: ``root`` is not a readable directory.
    """
    from inspector.loading.processes import workers
    from inspector.results.discover import run_folders

    runs = [relative for _, relative in run_folders(root)]
    calls = [(os.path.join(root, relative), relative, overrides, cached) for relative in runs]
    processes = min(processes or workers(), len(calls))
    if processes <= 1:
        return [_check_call(call) for call in calls]
    return _in_processes(calls, processes)


def _in_processes(calls: list[tuple[str, str, Overrides, bool]], processes: int) -> list[RunCheck]:
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # Loaded here before the workers fork, so none of them imports it again.
    import inspector.cli
    import inspector.session  # noqa: F401
    from inspector.loading.processes import own_context

    try:
        with ProcessPoolExecutor(max_workers=processes, mp_context=own_context()) as pool:
            return list(pool.map(_check_call, calls, chunksize=1))
    except (BrokenProcessPool, OSError, RuntimeError, ValueError):
        # No worker processes here (a sandbox): check in this process.
        return [_check_call(call) for call in calls]


def _check_call(call: tuple[str, str, Overrides, bool]) -> RunCheck:
    path, shown_as, overrides, cached = call
    return check_one(path, shown_as, overrides, cached=cached)


def cmd_check_root(args: argparse.Namespace, overrides: Overrides) -> int:
    """``inspector check ROOT``: one line per run and a summary (or ``--format json``)."""
    from inspector.cli import Unusable
    from inspector.results import RunReadError

    try:
        checks = check_root(args.path, overrides, cached=getattr(args, "cached", False))
    except RunReadError as exc:
        raise Unusable(str(exc)) from None
    if not checks:
        raise Unusable(f"{args.path}: no runs here (a run has run_info.json or a details/ folder)")
    if getattr(args, "format", "text") == "json":
        json.dump([check.as_json() for check in checks], sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        for check in checks:
            print(check.line())
        print(summary_line(checks))
    return exit_code(checks)


CACHE_ENVIRONMENT = ("INSPECTOR_CACHE", "XDG_CACHE_HOME", "HOME")
"""The variables that say whether and where the cache is."""


def audit_call(
    environment: dict[str, str | None], path: str, shown_as: str, overrides: Overrides
) -> RunCheck:
    """:func:`check_one` in one of the app's reader processes, with the app's cache settings
    (the app may recompute from the report cache: a cache may make it faster, never
    different)."""
    for name, value in environment.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    return check_one(path, shown_as, overrides, cached=True)


def audit_runs(
    runs: Sequence[tuple[str, str]],
    overrides: Overrides,
    *,
    cancelled: Callable[[], bool] = lambda: False,
    every: float = 0.05,
) -> Iterator[list[tuple[str, RunCheck]]]:
    """Check ``(path, shown as)`` runs in the shared reader processes (the app), yielding
    ``(path, check)`` pairs in batches as they are done (at most one batch per ``every``
    seconds), in no particular order. Without reader processes, one at a time here."""
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    from inspector.loading.processes import drop_shared_pool, shared_pool

    # The reader processes were started earlier: give them this process's cache settings.
    environment = {name: os.environ.get(name) for name in CACHE_ENVIRONMENT}
    pool = None
    try:
        pool = shared_pool()
        futures = {
            pool.submit(audit_call, environment, path, shown_as, overrides): path
            for path, shown_as in runs
        }
    except (BrokenProcessPool, OSError, RuntimeError, ValueError):
        if pool is not None:
            drop_shared_pool(pool)
        for path, shown_as in runs:
            if cancelled():
                return
            yield [(path, check_one(path, shown_as, overrides, cached=True))]
        return
    pending = set(futures)
    try:
        while pending and not cancelled():
            done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            if done and pending:
                time.sleep(every)  # let more finish: fewer, larger batches for the screen
                more, pending = wait(pending, timeout=0)
                done |= more
            batch = []
            for future in done:
                path = futures[future]
                try:
                    batch.append((path, future.result()))
                except (BrokenProcessPool, OSError, RuntimeError, ValueError) as exc:
                    batch.append((path, RunCheck(path, UNUSABLE, problem=f"{path}: {exc}")))
            if batch:
                yield batch
    finally:
        for future in pending:
            future.cancel()
