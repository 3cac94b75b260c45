"""``inspector check ROOT``: every run under a results root, checked in parallel (issue 16).

Each run goes through the single-run check (:func:`inspector.cli.check_run`, with its rules
and caches), in a pool of worker processes bounded by the cores. The result of a run is a
:class:`RunCheck`: ``ok``, ``differs`` (with every difference) or ``unusable`` (with the file
and the reason). Exit code: 2 when any run is unusable, else 1 when any differs, else 0.
Pure: no textual, no rich.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

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
    # Loaded here before the workers fork, so none of them imports it again.
    import inspector.cli
    import inspector.session  # noqa: F401
    from inspector.loading.many import map_in_processes, workers
    from inspector.results.discover import run_folders

    runs = [relative for _, relative in run_folders(root)]
    calls = [(os.path.join(root, relative), relative, overrides, cached) for relative in runs]
    return map_in_processes(_check_call, calls, min(processes or workers(), len(calls)))


def _check_call(path: str, shown_as: str, overrides: Overrides, cached: bool) -> RunCheck:
    return check_one(path, shown_as, overrides, cached=cached)


def cmd_check_root(args: argparse.Namespace, overrides: Overrides) -> int:
    """``inspector check ROOT``: one line per run and a summary (or ``--format json``)."""
    from inspector.cli import Unusable
    from inspector.results.problems import RunReadError

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


def audit_call(path: str, shown_as: str, overrides: Overrides) -> RunCheck:
    """:func:`check_one` in one of the app's reader processes, which may recompute from the
    caches (a cache may make it faster, never different). The reader processes keep the
    environment the app had when they started, so they use its cache folder."""
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
    from inspector.loading.many import stream_in_shared_pool

    def failed(index: int, exc: BaseException) -> RunCheck:
        path = runs[index][0]
        return RunCheck(path, UNUSABLE, problem=f"{path}: {exc}")

    calls = [(path, shown_as, overrides) for path, shown_as in runs]
    for batch in stream_in_shared_pool(
        audit_call, calls, failed=failed, cancelled=cancelled, every=every
    ):
        yield [(runs[index][0], check) for index, check in batch]


def interval_call(
    path: str, overrides: Overrides, series_id: str
) -> tuple[float, float, float] | None:
    """``(value, low, high)``: the recomputed series ``series_id`` of the run and its
    interval (:func:`inspector.run_stats.series_stats`), or None when the series has no
    interval or the run cannot be scored now. In one of the app's reader processes, after
    the check. The answer is kept in the report cache, for the run as it was read."""
    from inspector import loading
    from inspector.loading import report_cache
    from inspector.run_stats import series_stats

    key = report_cache.key_for(overrides, f"headline interval {series_id}")
    kept = report_cache.lookup(Path(path), key)
    if type(kept) is tuple and (
        kept == () or (len(kept) == 3 and all(type(n) is float for n in kept))
    ):
        return kept or None
    result = loading.open(path, loading.Request(overrides=overrides))
    if not isinstance(result, loading.Loaded) or result.refusal is not None:
        return None
    rec = result.session.recomputation
    series = next((s for s in rec.report.series if s.series_id == series_id), None) if rec else None
    if rec is None or series is None:
        return None
    interval = series_stats(rec, series).own.interval
    answer = None
    if (
        interval.estimate is not None
        and interval.ci_low is not None
        and interval.ci_high is not None
    ):
        answer = (float(interval.estimate), float(interval.ci_low), float(interval.ci_high))
    with contextlib.suppress(Exception):  # a cache is optional: never fails the answer
        report_cache.store(result.session.run, key, answer or ())
    return answer


def audit_intervals(
    runs: Sequence[tuple[str, str]],
    overrides: Overrides,
    *,
    cancelled: Callable[[], bool] = lambda: False,
    every: float = 0.05,
) -> Iterator[list[tuple[str, tuple[float, float, float] | None]]]:
    """:func:`interval_call` for ``(path, headline series id)`` runs in the shared reader
    processes, yielding ``(path, answer)`` pairs in batches as they are done."""
    from inspector.loading.many import stream_in_shared_pool

    calls = [(path, overrides, series_id) for path, series_id in runs]
    for batch in stream_in_shared_pool(
        interval_call, calls, failed=lambda index, exc: None, cancelled=cancelled, every=every
    ):
        yield [(runs[index][0], answer) for index, answer in batch]
