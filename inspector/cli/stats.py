"""``inspector stats RUN``: an interval on every value, flaky tasks, pass@j / pass^j curves.

Pure: no textual, no rich.
The numbers come from :mod:`inspector.views.run_stats`; this module only prints them.

JSON shape (scripts depend on it)::

    {"plan": {...}, "confidence": 0.95,
     "series": [{"series_id", "metric_id", "kind", "aggregation", "value", "reference_value",
                 "reference", "estimate", "n", "se", "ci_low", "ci_high", "confidence", "df",
                 "method", "categories": {key: {same fields}}, "hierarchy": {path: {...}}}],
     "flaky": [{"task_id", "category", "metric_id", "kind", "passes", "observed",
                "disagreement", "attempts": [{"attempt", "status", "value"}]}],
     "pass_at": {metric_id: {"k", "tasks", "excluded", "agentcompass": {series_id: value},
                             "points": [{"j", "estimate", "n", "se", "ci_low", "ci_high",
                                         "confidence", "method"}]}} | null,
     "pass_hat": (the same) | null, "pass_note": why there are no curves | null}

``value`` is the engine's value bit for bit (null when the evaluation failed); then
``reference_value`` holds the number, ``reference`` is true and ``estimate`` (the centre of
the interval) is the reference value.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from inspector.answers.run import Unusable, load_session
from inspector.cli.common import ALL_SERIES, EXIT_OK, add_plan_options, overrides_from
from inspector.cli.tables import line, table
from inspector.engine import strict_json
from inspector.engine.recomputation import Recomputation
from inspector.engine.render import REFERENCE_MARK
from inspector.results.discover import is_run
from inspector.views.attempt_stats import FlakyTask, PassCurve, outcomes_text
from inspector.views.lottery import lottery, lottery_json
from inspector.views.run_stats import RunStats, ScopeStats, SeriesStats, run_stats
from inspector.views.stats import Interval, bounds_text
from inspector.views.text_cells import number_text


def register(subparsers: Any) -> None:
    """Add ``stats`` to the ``inspector`` command."""
    stats = subparsers.add_parser(
        "stats",
        help="an interval on every value, flaky tasks, pass@j / pass^j estimates",
        description=(
            "Standard errors and confidence intervals for every series, category and "
            "hierarchy node (attempts of a task averaged first: the task is the cluster), "
            "the tasks whose attempts disagree, and for runs where every attempt ran, "
            "Chen et al.'s unbiased pass@j and pass^j for j = 1..k beside AgentCompass's "
            "own pass@k series."
        ),
    )
    stats.add_argument(
        "path", help="a run directory, or a results root (every run beneath it, one process)"
    )
    stats.add_argument("--series", metavar="ID", default=ALL_SERIES,
                       help="series id, or 'all' (default)")  # fmt: skip
    stats.add_argument("--confidence", type=float, default=0.95,
                       help="interval confidence level (default 0.95)")  # fmt: skip
    stats.add_argument("--format", choices=["table", "json", "markdown"], default="table")
    add_plan_options(stats)
    stats.set_defaults(func=cmd_stats)


def cmd_stats(args: argparse.Namespace) -> int:
    if not 0 < args.confidence < 1:
        raise Unusable(f"--confidence must be between 0 and 1, got {args.confidence}")
    if os.path.isdir(args.path) and not is_run(Path(args.path)):
        from inspector.cli.stats_root import cmd_stats_root  # a root's loop: only for a root

        return cmd_stats_root(args, stats_json, write_stats)
    session = load_session(args.path, overrides_from(args))
    rec = session.recomputation
    assert rec is not None
    ids = None
    if args.series != ALL_SERIES:
        known = [s.series_id for s in rec.report.series]
        if args.series not in known:
            raise Unusable(f"{args.path}: no series {args.series!r} (series: {', '.join(known)})")
        ids = [args.series]
    result = run_stats(rec, series_ids=ids, confidence=args.confidence)
    if args.format == "json":
        data = stats_json(rec, result)
        sys.stdout.write(
            strict_json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
        )
    else:
        write_stats(sys.stdout, rec, result, markdown=args.format == "markdown")
    return EXIT_OK


# -- JSON ---------------------------------------------------------------------------------


def interval_json(interval: Interval) -> dict[str, Any]:
    return {
        "estimate": interval.estimate,
        "n": interval.n,
        "se": interval.se,
        "ci_low": interval.ci_low,
        "ci_high": interval.ci_high,
        "confidence": interval.confidence,
        "df": interval.df,
        "method": interval.method,
    }


def scope_json(scope: ScopeStats) -> dict[str, Any]:
    return {
        "value": scope.value,
        "reference_value": scope.reference_value,
        "reference": scope.reference,
        **interval_json(scope.interval),
    }


def _series_json(s: SeriesStats) -> dict[str, Any]:
    return {
        "series_id": s.series_id,
        "metric_id": s.metric_id,
        "kind": s.kind,
        "aggregation": s.aggregation,
        **scope_json(s.own),
        "categories": {c.key: scope_json(c) for c in s.categories},
        "hierarchy": {h.key: scope_json(h) for h in s.hierarchy},
    }


def flaky_json(f: FlakyTask) -> dict[str, Any]:
    return {
        "task_id": f.task_id,
        "category": f.category,
        "metric_id": f.metric_id,
        "kind": f.kind,
        "passes": f.passes,
        "observed": f.observed,
        "disagreement": f.disagreement,
        "attempts": [
            {"attempt": o.attempt, "status": o.status, "value": o.value} for o in f.outcomes
        ],
    }


def _curve_json(curve: PassCurve, points: tuple[Interval, ...]) -> dict[str, Any]:
    return {
        "k": curve.k,
        "tasks": curve.tasks,
        "excluded": curve.excluded,
        "agentcompass": dict(curve.agentcompass),
        "points": [{"j": j, **interval_json(p)} for j, p in enumerate(points, 1)],
    }


def plan_json(rec: Recomputation) -> dict[str, Any]:
    plan = rec.plan
    return {
        "k": plan.k,
        "strategy": plan.strategy,
        "aggregation": rec.report.aggregation,
        "evaluation_failed": rec.report.evaluation_failed,
        "derived": plan.derived,
    }


def stats_json(rec: Recomputation, result: RunStats) -> dict[str, Any]:
    curves = result.pass_curves
    applicable = result.pass_note is None
    return {
        "plan": plan_json(rec),
        "confidence": result.confidence,
        "series": [_series_json(s) for s in result.series],
        "flaky": [flaky_json(f) for f in result.flaky],
        "pass_at": {c.metric_id: _curve_json(c, c.pass_at) for c in curves} if applicable else None,
        "pass_hat": {c.metric_id: _curve_json(c, c.pass_hat) for c in curves}
        if applicable
        else None,
        "pass_note": result.pass_note,
        # the k=1 value on each attempt (views/lottery.py); {} for a k=1 run
        "single_attempt": lottery_json(lottery(rec)),
    }


# -- table / markdown ---------------------------------------------------------------------


def shown(scope: ScopeStats) -> str:
    """The scope's number, marked when it is a failed evaluation's reference value."""
    number = scope.value if scope.value is not None else scope.reference_value
    return number_text(number) + (REFERENCE_MARK if scope.reference else "")


def _row(label: str, scope: ScopeStats, notes: dict[str, int]) -> list[Any]:
    """A scope's row; its method is a numbered note (``notes``: method → number, shared by
    the rows with the same method) written under the table, not a column."""
    i = scope.interval
    note = notes.setdefault(i.method, len(notes) + 1)
    return [label, shown(scope), "—" if i.se is None else f"{i.se:.4g}", bounds_text(i, digits=4), i.n,
            note]  # fmt: skip


def write_notes(out: TextIO, notes: dict[str, int], *, markdown: bool) -> None:
    """The numbered method notes under a table (a Markdown list after a blank line)."""
    if markdown:
        out.write("\n")
    for method, number in notes.items():
        out.write(f"{number}. {line(method, markdown=markdown)}\n")


def write_stats(out: TextIO, rec: Recomputation, result: RunStats, *, markdown: bool) -> None:
    """The statistics as a plain-text (or Markdown) report."""
    h = "## " if markdown else ""
    gap = "\n" if markdown else ""  # a Markdown table needs a blank line after its heading
    if rec.plan.derived:
        out.write(f"{h}derived plan: {line(rec.plan.derived, markdown=markdown)}\n\n")
    level = f"{result.confidence:.0%}"
    headers = ["scope", "value", "se", f"{level} CI", "n", "method"]
    for index, s in enumerate(result.series):
        if index:
            out.write("\n")
        out.write(f"{h}{line(f'{s.series_id} ({s.aggregation})', markdown=markdown)}\n{gap}")
        notes: dict[str, int] = {}
        rows = [_row("series", s.own, notes)]
        rows += [_row(f"node {n.key}", n, notes) for n in s.hierarchy]
        rows += [_row(f"category {c.key}", c, notes) for c in s.categories]
        table(out, headers, rows, markdown=markdown)
        write_notes(out, notes, markdown=markdown)
    if rec.report.evaluation_failed:
        out.write("\n(reference): the evaluation failed; the number is a reference value\n")
    out.write(f"\n{h}flaky tasks: {len(result.flaky)}\n" + (gap if result.flaky else ""))
    if result.flaky:
        table(out, ["task", "category", "metric", "disagreement", "attempts"], (
            [f.task_id, f.category, f.metric_id, f"{f.disagreement:.3g}", outcomes_text(f)]
            for f in result.flaky
        ), markdown=markdown)  # fmt: skip
    if result.pass_note is not None:
        out.write(f"\n{result.pass_note}\n")
    for curve in result.pass_curves:
        said = line(curve.metric_id, markdown=markdown)
        out.write(
            f"\n{h}{said}: pass@j and pass^j estimates (Chen et al. 2021) over "
            f"{curve.tasks} tasks with all {curve.k} attempts ({curve.excluded} left out), "
            f"each task weighted equally\n{gap}"
        )
        table(out, ["j", "pass@j", "se", "pass^j", "se"], (
            [j, number_text(a.estimate), number_text(a.se), number_text(b.estimate), number_text(b.se)]
            for j, (a, b) in enumerate(zip(curve.pass_at, curve.pass_hat, strict=True), 1)
        ), markdown=markdown)  # fmt: skip
        theirs = ", ".join(f"{sid} = {number_text(v)}" for sid, v in curve.agentcompass.items())
        if theirs:
            out.write(f"AgentCompass's own series: {line(theirs, markdown=markdown)}\n")
