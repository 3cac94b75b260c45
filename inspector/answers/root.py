"""Every run under a results root, answered and checked as one run is
(:mod:`inspector.answers.run`, :mod:`inspector.answers.check`):
``check ROOT`` in worker processes, the runs screen's checks and headline intervals in the
app's reader processes, and the leaderboard of a root.

Only the commands and screens that take a root load this module (its worker pools, the
runs list cache and the leaderboard), not ``report`` or ``check`` of one run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from inspector import loading
from inspector.answers.check import NoStoredReport, checked, stored_differences, unstored
from inspector.answers.kept import (
    STATISTICS,
    KeptSide,
    headline_id,
    root_answers,
    side_question,
)
from inspector.answers.run import Unusable, load_outputs, say_root, stderr_lines, warnings_in
from inspector.engine.errors import EngineError, HierarchyError
from inspector.loading import Outputs
from inspector.overrides import Overrides
from inspector.results.root_walk import RootWalk, walk_root
from inspector.views.run_check import UNUSABLE, RunCheck
from inspector.views.runs_view import RunRow, with_interval

if TYPE_CHECKING:  # pragma: no cover
    from inspector.session import Session
    from inspector.views.leaderboard import Leaderboard


def check_one(
    path: str,
    shown_as: str,
    overrides: Overrides,
    *,
    cached: bool = False,
    extra_answers: Callable[[Session], dict[str, Any]] | None = None,
) -> RunCheck:
    """One run through the single-run check; never raises for bad data.

    ``path`` is how the run is reached, ``shown_as`` how it is named; file names in
    messages are given under the root (``path``'s prefix replaced by ``shown_as``).
    ``extra_answers``: as :func:`~inspector.answers.run.load_outputs`.
    """
    said: list[str] = []
    under_root = _under(path, shown_as)
    try:
        outputs, _ = load_outputs(
            path, overrides, cached=cached, say=said.append, extra_answers=extra_answers
        )
        return _judged(path, shown_as, outputs, warnings_in(said, under_root))
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


def _under(path: str, shown_as: str) -> Callable[[str], str]:
    """File names in messages given under the root: ``path``'s prefix as ``shown_as``."""
    return lambda text: shown_as + text[len(path) :] if text.startswith(path) else text


def _judged(path: str, shown_as: str, outputs: Outputs, warnings: tuple[str, ...]) -> RunCheck:
    """The check of the run whose report is ``outputs``: against its stored metrics.json."""
    try:
        return checked(shown_as, stored_differences(path, outputs), outputs, warnings)
    except NoStoredReport as exc:
        return unstored(shown_as, _under(path, shown_as)(str(exc)), exc.outputs, warnings)


def last_check(path: str, shown_as: str, overrides: Overrides | None) -> RunCheck | None:
    """What the run's last report in the store says its check found, with the headline's
    interval kept beside it; NOT checked against the run's files (the runs screen shows it
    marked as cached until the run is checked again). None when no report is kept."""
    found, answers = loading.last_report(path, overrides)
    if isinstance(found, str):  # the run could not be scored
        return RunCheck(shown_as, UNUSABLE, problem=_under(path, shown_as)(found))
    if found is None:
        return None
    warnings = warnings_in(stderr_lines(found, path), _under(path, shown_as))
    check = _judged(path, shown_as, found, warnings)
    headline = check.headline
    if headline is not None and not headline.is_reference:
        key = loading.question_key(overrides, _interval_question(headline.series_id))
        interval = answers.get(key) if key is not None else None
        if interval is not None and len(interval) == 3:
            check = with_interval(check, interval)  # type: ignore[arg-type]
    return check


def check_root(
    root: str,
    overrides: Overrides,
    *,
    cached: bool = False,
    say: Callable[[str], None] = say_root,
) -> list[RunCheck]:
    """Every run under ``root``, by path, checked as an audit of many runs
    (:func:`inspector.loading.audit`). A folder of the root that cannot be read is one more
    unusable check, named by its path (its runs are not known); a link out of the root,
    not followed, is said once to ``say``.

    Without ``cached`` every file is read (and, in an audit, nothing read is kept).

    Raises:
        RunReadError: ``root`` is not a readable directory.
    """
    return [check for check, _ in _checked_root(root, overrides, cached, say, _check_call)]


def _checked_root(
    root: str, overrides: Overrides, cached: bool, say: Callable[[str], None], call: Any
) -> list[tuple[RunCheck, str | None]]:
    """:func:`check_root`'s checks, each with what ``call`` gives beside it (a bare check:
    None beside it)."""
    walk = walk_root(root)
    for line in walk.link_lines(root):
        say(line)
    runs = [relative for _, relative in walk.runs]
    calls = [(os.path.join(root, relative), relative, overrides, cached) for relative in runs]
    answers = loading.audit(call, calls, preload=STATISTICS if cached else ())
    found = [a if isinstance(a, tuple) else (a, None) for a in answers]
    found += [(check, None) for check in unreadable_checks(walk)]
    return sorted(found, key=lambda pair: pair[0].run.split("/"))


def unreadable_checks(walk: RootWalk) -> list[RunCheck]:
    """An unusable check for each folder of the root that could not be read."""
    lines = walk.unreadable_lines()
    return [
        RunCheck(rel, UNUSABLE, problem=line)
        for (rel, _), line in zip(walk.unreadable, lines, strict=True)
    ]


def _check_call(path: str, shown_as: str, overrides: Overrides, cached: bool) -> RunCheck:
    """One run of ``check ROOT``: with ``cached``, a run read keeps beside its report what
    the other commands over a root answer from (:func:`~inspector.answers.kept.root_answers`;
    without, every file is read and nothing is kept)."""
    also = root_answers(overrides, {}) if cached else None
    return check_one(path, shown_as, overrides, cached=cached, extra_answers=also)


def _stated_check_call(
    path: str, shown_as: str, overrides: Overrides, cached: bool
) -> tuple[RunCheck, tuple[str | None, KeptSide | None]]:
    """:func:`_check_call`, the state of the run's files it was answered for, and its
    headline's tasks (for the leaderboard's ties) when they are of that state."""
    found: dict[str, Any] = {}
    read: list[str | None] = []
    keeping = root_answers(overrides, found)

    def also(session: Session) -> dict[str, Any]:
        read.append(loading.state_read(session))
        return keeping(session)

    check = check_one(path, shown_as, overrides, cached=cached, extra_answers=also)
    state = loading.state(path)
    side = None
    if check.headline is not None and state is not None:
        question = side_question(check.headline.series_id)
        side = found.get(question) if read == [state] else None
        if not read:  # answered from the store: the tasks kept for the same state
            side = loading.kept(path, overrides, question, KeptSide)
    return check, (state, side)


def audit_call(path: str, shown_as: str, overrides: Overrides) -> RunCheck:
    """:func:`check_one` in one of the app's reader processes, which may recompute from the
    caches (a cache may make it faster, never different), with the headline's interval:
    from the same read when the run was read and scored for the check (its statistics
    cost about a millisecond, a second read of the run twenty; kept in the report cache in
    the same write as the check's outputs), else when the report cache holds it for the
    same state of the run (one check of its files answers both). The reader processes
    keep the environment the app had when they started, so they use its cache folder."""
    # The run's headline interval when the run was just read and scored (the report cache
    # held nothing for it as it is): one item, None for none (or failed statistics).
    computed: list[tuple[float, float, float] | None] = []

    def headline_interval(session: Session) -> dict[str, Any]:
        series_id = headline_id(session)
        if series_id is None:
            computed.append(None)
            return {}
        try:
            answer = _interval(session, series_id)
        except Exception:  # the statistics are extra: the check stays, nothing is kept
            computed.append(None)
            return {}
        computed.append(answer)
        key = loading.question_key(overrides, _interval_question(series_id))
        return {} if key is None else {key: answer or ()}

    check = check_one(path, shown_as, overrides, cached=True, extra_answers=headline_interval)
    headline = check.headline
    if headline is not None and not headline.is_reference:
        kept: tuple[float, float, float] | tuple[()] | None
        if computed:
            kept = computed[0]
        else:
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
    first: float | None = None,
) -> Iterator[list[tuple[str, RunCheck]]]:
    """Check ``(path, shown as)`` runs in the shared reader processes (the app), yielding
    ``(path, check)`` pairs in batches as they are done, paced by ``every`` and ``first``
    (:func:`~inspector.loading.audit_in_app`), in no particular order.
    Without reader processes, one at a time here."""

    def failed(index: int, exc: BaseException) -> RunCheck:
        path = runs[index][0]
        return RunCheck(path, UNUSABLE, problem=f"{path}: {exc}")

    calls = [(path, shown_as, overrides) for path, shown_as in runs]
    for batch in loading.audit_in_app(
        audit_call, calls, failed=failed, cancelled=cancelled, every=every, first=first
    ):
        yield [(runs[index][0], check) for index, check in batch]


def board_of_root(root: str, overrides: Any, say: Callable[[str], None] = say_root) -> Leaderboard:
    """Every run under ``root`` recomputed and checked (as ``inspector check ROOT --cached``: an
    unchanged run is answered from the store, its files stat'ed, not read), as a
    leaderboard; the runs listed as the runs screen lists them (unchanged runs' summaries
    from the loading layer's cache). A folder that could not be read is said to ``say``.

    Raises:
        RunReadError: ``root`` is not a readable directory.
    """
    # The leaderboard (and its statistics, when a column is compared) only here: ``check
    # ROOT`` does without them.
    from inspector.answers.board import board_ties
    from inspector.views.leaderboard import build

    pairs = _checked_root(root, overrides, True, say, _stated_check_call)
    checks = {check.run: check for check, _ in pairs}
    states = {check.run: found[0] if found else None for check, found in pairs}
    sides = {check.run: found[1] for check, found in pairs if found and found[1] is not None}
    runs = loading.runs_under(root)
    for name in sorted(checks.keys() - {run.relative for run in runs}):
        say(checks[name].problem or name)
    board = build([RunRow(run, checks.get(run.relative)) for run in runs])
    return board_ties(board, overrides, root, states, sides)


def with_ties(board: Leaderboard, overrides: Overrides | None) -> Leaderboard:
    """``board`` with the ties of each benchmark column (:mod:`inspector.views.ties`): the
    run each cell shows read again (one column's runs at a time) for its headline's task
    values. A run that cannot be scored now leaves the comparisons of its column."""
    from inspector.answers.board import board_ties

    return board_ties(board, overrides)


def interval_call(
    path: str, overrides: Overrides, series_id: str
) -> tuple[float, float, float] | None:
    """``(value, low, high)``: the recomputed series ``series_id`` of the run and its
    interval (:func:`inspector.views.run_stats.own_interval`), or None when the series has
    no interval or the run cannot be scored now. In one of the app's reader processes, after
    the check. The answer is kept in the report cache, for the run as it was read."""
    kept = _kept_interval(path, overrides, series_id)
    if kept is not None:
        return kept or None
    result = loading.read(path, overrides)
    if not isinstance(result, loading.Loaded) or result.refusal is not None:
        return None
    return _interval_of(result.session, overrides, series_id)


def _interval_of(
    session: Session, overrides: Overrides, series_id: str
) -> tuple[float, float, float] | None:
    """:func:`interval_call`'s answer for the run as ``session`` read it, kept in the report
    cache for that state of the run."""
    answer = _interval(session, series_id)
    loading.keep(session, overrides, _interval_question(series_id), answer or ())
    return answer


def _interval(session: Session, series_id: str) -> tuple[float, float, float] | None:
    """``(value, low, high)`` of the series ``series_id`` of a scored session, None when it
    has no interval."""
    # The statistics load the engine: a report answered from the cache does without them.
    from inspector.views.run_stats import own_interval

    rec = session.recomputation
    series = next((s for s in rec.report.series if s.series_id == series_id), None) if rec else None
    if rec is None or series is None:
        return None
    interval = own_interval(rec, series)
    if interval.estimate is None or interval.ci_low is None or interval.ci_high is None:
        return None
    return (float(interval.estimate), float(interval.ci_low), float(interval.ci_high))


def _interval_question(series_id: str) -> str:
    # "v2": the intervals now given; one kept with the t intervals is not read as these
    return f"headline interval v2 {series_id}"


def _kept_interval(
    path: str, overrides: Overrides, series_id: str
) -> tuple[float, float, float] | tuple[()] | None:
    """What the report cache holds for the run as it is now: ``(value, low, high)``, ``()``
    for a series without an interval, None when it holds nothing."""
    kept = loading.kept(path, overrides, _interval_question(series_id))
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
    for batch in loading.audit_in_app(
        interval_call, calls, failed=lambda index, exc: None, cancelled=cancelled, every=every
    ):
        yield [(runs[index][0], answer) for index, answer in batch]
