"""A run opened for an answer rather than for browsing: its session, what ``report`` prints,
its check against the stored ``metrics.json``, and the check of every run under a root.

The command line and the app's runs and leaderboard screens both ask these questions, so
they live here, below both, above the one door (:mod:`inspector.loading`). Nothing here
prints except :func:`say_on_stderr`, the default for warnings; bad input is an
:class:`Unusable` (one line naming the file), never a traceback.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector import loading
from inspector.engine.errors import EngineError, HierarchyError
from inspector.loading import report_cache
from inspector.loading.many import map_in_processes, stream_in_shared_pool, workers
from inspector.loading.remote import shown
from inspector.loading.report_cache import WARNING_PREFIX, Outputs
from inspector.loading.summary_cache import find_runs
from inspector.overrides import Overrides
from inspector.results.discover import run_folders
from inspector.results.file_io import parse_json
from inspector.views.differences import Difference, compare_reports, same_text
from inspector.views.leaderboard import Leaderboard, build
from inspector.views.run_check import DIFFERS, OK, UNUSABLE, RunCheck, headline_of
from inspector.views.runs_view import RunRow, with_interval
from inspector.views.visible import visible

if TYPE_CHECKING:  # pragma: no cover
    # Only named: a report answered from the cache never loads the session or the engine.
    from inspector.session import Session

Say = Callable[[str], None]
"""Where warnings and notes go, one line at a time."""


class Unusable(Exception):
    """Input the inspector cannot use; ``str()`` is the one-line message naming the file."""


def say_on_stderr(line: str) -> None:
    """One line for the terminal: names and messages from result files made visible; a
    remote run's cache folder shown as its URL."""
    with contextlib.suppress(BrokenPipeError):
        print(visible(shown(line), one_line=True), file=sys.stderr)


def load_session(
    path: str,
    overrides: Overrides | None = None,
    *,
    say: Say = say_on_stderr,
    reuse_cache: bool = True,
) -> Session:
    """Read, resolve and recompute; raise :class:`Unusable` where AgentCompass would refuse.

    A plan that differs from the run's (``--k`` / ``--strategy``) is applied as a derived
    plan (``inspector.engine.whatif``). Warnings and notes for stderr go to ``say``.
    ``reuse_cache=False`` reads every file (the cache may not stand in for reading).
    """
    result = loading.open(path, loading.Request(overrides=overrides, reuse_cache=reuse_cache))
    return _loaded(path, result, say).session


def _loaded(path: str, result: loading.Event, say: Say) -> loading.Loaded:
    """The loaded run, its warnings and notes said; :class:`Unusable` when it cannot be
    read or scored."""
    if isinstance(result, loading.Failed):
        raise Unusable(result.message)
    assert isinstance(result, loading.Loaded)
    for problem in result.session.run.problems:
        if not problem.blocking:
            say(f"{WARNING_PREFIX}{Path(path) / problem.path}: {problem.message}")
    if result.refusal is not None:
        raise Unusable(result.refusal)
    for note in result.notes:
        say(note)
    return result


def load_outputs(
    path: str, overrides: Overrides, *, cached: bool = True, say: Say = say_on_stderr
) -> tuple[Outputs, str | None]:
    """What ``report`` / ``check`` print, and what came from the cache, in words (None:
    nothing); from the cache when the run is unchanged (``cached=False``: every file is
    read, nothing is taken from the cache). Warnings and notes go to ``say``, with
    ``path`` as given.
    """
    request = loading.Request(
        overrides=overrides, reuse_cache=cached, answer_from_cache=cached, outputs=True
    )
    result = loading.open(path, request)
    if isinstance(result, loading.CachedReport):
        outputs, source = result.outputs, "the whole answer (the run's files are unchanged)"
        if result.read_again:
            kept = result.folders - result.read_again
            source = f"{kept} of {result.folders} task folders (their files are unchanged)"
    else:
        lines: list[str] = []
        try:
            loaded = _loaded(path, result, lines.append)
        except Unusable:
            for line in lines:
                say(line)
            raise
        assert loaded.outputs is not None
        outputs, hits = loaded.outputs, loaded.cache_hits
        total = len(loaded.session.run.entries)
        source = f"{hits} of {total} task folders (their files are unchanged)" if hits else None
    for line in outputs.stderr_lines(path):
        say(line)
    return outputs, source


def check_run(
    path: str, overrides: Overrides, *, cached: bool = False, say: Say = say_on_stderr
) -> tuple[list[Difference], Outputs, str | None]:
    """Where a run's stored metrics.json differs from its recomputation, the outputs, and
    what came from the cache (``cached=False``, as ``check``: every file is read).

    Raises:
        Unusable: the run cannot be read or scored, or has no readable metrics.json.
    """
    outputs, source = load_outputs(path, overrides, cached=cached, say=say)
    return stored_differences(path, outputs), outputs, source


def stored_differences(path: str, outputs: Outputs) -> list[Difference]:
    """Where the run's stored metrics.json differs from ``outputs``' recomputation.

    Raises:
        Unusable: the run has no readable metrics.json.
    """
    if outputs.stored_metrics_text is None:
        raise Unusable(f"{Path(path) / 'metrics.json'}: no readable stored metrics.json to check")
    if same_text(outputs.stored_metrics_text, outputs.metrics_json):
        return []  # as AgentCompass wrote it: nothing to parse
    # Parsed as the reader parses it (orjson, then the standard library).
    stored = parse_json(outputs.stored_metrics_text.encode("utf-8"))
    return compare_reports(stored, json.loads(outputs.metrics_json))


# -- every run under a root ---------------------------------------------------------------


def check_one(path: str, shown_as: str, overrides: Overrides, *, cached: bool = False) -> RunCheck:
    """One run through the single-run check; never raises for bad data.

    ``path`` is how the run is reached, ``shown_as`` how it is named; file names in
    messages are given under the root (``path``'s prefix replaced by ``shown_as``).
    """
    said: list[str] = []

    def under_root(text: str) -> str:
        return shown_as + text[len(path) :] if text.startswith(path) else text

    try:
        differences, outputs, _ = check_run(path, overrides, cached=cached, say=said.append)
    except Unusable as exc:
        return RunCheck(
            shown_as, UNUSABLE, problem=under_root(str(exc)), warnings=warnings_in(said, under_root)
        )
    except (EngineError, HierarchyError) as exc:
        return RunCheck(shown_as, UNUSABLE, problem=f"{shown_as}: {exc}")
    except Exception as exc:  # never a traceback for bad data, as the single-run check
        if os.environ.get("INSPECTOR_DEBUG"):
            raise
        return RunCheck(shown_as, UNUSABLE, problem=f"{shown_as}: {type(exc).__name__}: {exc}")
    return checked(shown_as, differences, outputs, warnings_in(said, under_root))


def checked(
    shown_as: str, differences: Sequence[Difference], outputs: Outputs, warnings: tuple[str, ...]
) -> RunCheck:
    """The :class:`RunCheck` of a run that could be checked."""
    return RunCheck(
        shown_as,
        DIFFERS if differences else OK,
        differences=tuple((d.where, d.stored, d.recomputed) for d in differences),
        tasks=outputs.tasks,
        warnings=warnings,
        headline=headline_of(parse_json(outputs.metrics_json.encode("utf-8"))),
    )


def warnings_in(
    said: Sequence[str], under_root: Callable[[str], str] = lambda text: text
) -> tuple[str, ...]:
    """The load warnings among lines said (``file: message``, without the prefix)."""
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
    runs = [relative for _, relative in run_folders(root)]
    calls = [(os.path.join(root, relative), relative, overrides, cached) for relative in runs]
    return map_in_processes(_check_call, calls, min(processes or workers(), len(calls)))


def _check_call(path: str, shown_as: str, overrides: Overrides, cached: bool) -> RunCheck:
    return check_one(path, shown_as, overrides, cached=cached)


def audit_call(path: str, shown_as: str, overrides: Overrides) -> RunCheck:
    """:func:`check_one` in one of the app's reader processes, which may recompute from the
    caches (a cache may make it faster, never different), with the headline's interval
    when the report cache holds it for the same state of the run (one check of its files
    answers both). The reader processes keep the environment the app had when they
    started, so they use its cache folder."""
    with report_cache.held(Path(path)):
        check = check_one(path, shown_as, overrides, cached=True)
        headline = check.headline
        if headline is not None and not headline.is_reference:
            kept = _kept_interval(path, overrides, headline.series_id)
            if kept:
                check = with_interval(check, kept)
    return check


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

    def failed(index: int, exc: BaseException) -> RunCheck:
        path = runs[index][0]
        return RunCheck(path, UNUSABLE, problem=f"{path}: {exc}")

    calls = [(path, shown_as, overrides) for path, shown_as in runs]
    for batch in stream_in_shared_pool(
        audit_call, calls, failed=failed, cancelled=cancelled, every=every
    ):
        yield [(runs[index][0], check) for index, check in batch]


def board_of_root(root: str, overrides: Any) -> Leaderboard:
    """Every run under ``root`` recomputed and checked (as ``inspector check ROOT``), as a
    leaderboard; the runs listed as the runs screen lists them (unchanged runs' summaries
    from the loading layer's cache).

    Raises:
        RunReadError: ``root`` is not a readable directory.
    """
    checks = {check.run: check for check in check_root(root, overrides)}
    return build([RunRow(run, checks.get(run.relative)) for run in find_runs(root)])


def interval_call(
    path: str, overrides: Overrides, series_id: str
) -> tuple[float, float, float] | None:
    """``(value, low, high)``: the recomputed series ``series_id`` of the run and its
    interval (:func:`inspector.views.run_stats.series_stats`), or None when the series has
    no interval or the run cannot be scored now. In one of the app's reader processes, after
    the check. The answer is kept in the report cache, for the run as it was read."""
    # The statistics load the engine: a report answered from the cache does without them.
    from inspector.views.run_stats import series_stats

    kept = _kept_interval(path, overrides, series_id)
    if kept is not None:
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
        report_cache.store(result.session.run, _interval_key(overrides, series_id), answer or ())
    return answer


def _interval_key(overrides: Overrides, series_id: str) -> str | None:
    return report_cache.key_for(overrides, f"headline interval {series_id}")


def _kept_interval(
    path: str, overrides: Overrides, series_id: str
) -> tuple[float, float, float] | tuple[()] | None:
    """What the report cache holds for the run as it is now: ``(value, low, high)``, ``()``
    for a series without an interval, None when it holds nothing."""
    kept = report_cache.lookup(Path(path), _interval_key(overrides, series_id))
    if type(kept) is tuple and (
        kept == () or (len(kept) == 3 and all(type(n) is float for n in kept))
    ):
        return kept  # type: ignore[return-value]
    return None


def audit_intervals(
    runs: Sequence[tuple[str, str]],
    overrides: Overrides,
    *,
    cancelled: Callable[[], bool] = lambda: False,
    every: float = 0.05,
) -> Iterator[list[tuple[str, tuple[float, float, float] | None]]]:
    """:func:`interval_call` for ``(path, headline series id)`` runs in the shared reader
    processes, yielding ``(path, answer)`` pairs in batches as they are done."""
    calls = [(path, overrides, series_id) for path, series_id in runs]
    for batch in stream_in_shared_pool(
        interval_call, calls, failed=lambda index, exc: None, cancelled=cancelled, every=every
    ):
        yield [(runs[index][0], answer) for index, answer in batch]
