"""``inspector diff A B``: two runs aligned task by task, with paired statistics;
``inspector diff A --what-if PLAN``: run A beside itself under a derived plan.

Pure: no textual, no rich. Before any comparison
the output lists what differs between the two runs' configurations (model, harness,
benchmark params, k, strategy, aggregation, ...). Per series: the values side by side (a
failed evaluation's reference value marked as such), the tasks that changed, and the paired
statistics of :mod:`inspector.views.paired`; tasks present on one side only are listed apart.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any, TextIO

from inspector.answers.run import Unusable, load_session, say_on_stderr
from inspector.cli.common import EXIT_DIFFERS, EXIT_OK
from inspector.cli.tables import line, table
from inspector.engine import strict_json
from inspector.engine.errors import EngineError
from inspector.engine.recomputation import Recomputation
from inspector.engine.render import REFERENCE_MARK
from inspector.engine.report import MetricSeries, SeriesCounts
from inspector.engine.vocabulary import plural
from inspector.loading import derived_note, shown
from inspector.views.changes import delta_text, moved_groups, moved_summary
from inspector.views.compare import Comparison, SeriesPair, TaskChange, compare, compare_plans
from inspector.views.compare_warnings import run_facts
from inspector.views.decomposition import (
    decomposition_json,
    decomposition_lines,
    decomposition_of,
)
from inspector.views.paired import paired_json, paired_lines
from inspector.views.text_cells import number_text

PAIRED_KEYS = ("paired", "bootstrap", "mcnemar")


def register(subparsers: Any) -> None:
    """Add ``diff`` to the ``inspector`` command."""
    diff = subparsers.add_parser(
        "diff",
        help="compare two runs task by task (exit 0 equal, 1 differ)",
        description=(
            "Recompute two runs and align them by task id: series side by side, per-task state "
            "and value changes (flips), tasks present in only one, paired statistics. Exit 0 "
            "when the recomputed reports and every task reduction are equal, 1 when they "
            "differ, 2 when an input is unusable."
        ),
    )
    diff.add_argument("a", help="run directory A")
    diff.add_argument("b", nargs="?", help="run directory B (omit with --what-if)")
    diff.add_argument(
        "--what-if", metavar="PLAN",
        help="instead of B: run A under a derived plan (k=1, avg@J or pass@J, J up to its k), "
        "a paired comparison on the same tasks",
    )  # fmt: skip
    diff.add_argument("--format", choices=["table", "json", "markdown"], default="table")
    # nothing is resampled (the p-value inverts the MOVER interval): accepted one release
    diff.add_argument(
        "--seed", type=int, default=0, help="no effect (deprecated): nothing is random"
    )
    diff.add_argument("--resamples", type=int, default=0,
                      help="no effect (deprecated): nothing is resampled")  # fmt: skip
    diff.set_defaults(func=cmd_diff)


def shown_value(series: MetricSeries | None) -> str:
    """The series' number; a failed evaluation's reference value is marked, not passed off."""
    if series is None:
        return "—"
    if series.value is None and series.reference_value is not None:
        return number_text(series.reference_value) + REFERENCE_MARK
    return number_text(series.value)


def what_if_plan(text: str) -> tuple[int, str | None]:
    """``k=1`` / ``avg@J`` / ``pass@J`` as (k, strategy); None: the run's own strategy.

    Raises:
        ValueError: not one of those forms (the message says which are).
    """
    spelled = text.strip().lower()
    if spelled == "k=1":
        return 1, None
    strategy, at, j = spelled.partition("@")
    if at and strategy in ("avg", "pass") and j.isdigit() and int(j) >= 1:
        return int(j), strategy
    raise ValueError(f"--what-if {text!r}: a plan is k=1, avg@J or pass@J (J a whole number)")


def _comparison(args: argparse.Namespace) -> Comparison:
    """Run A beside run B, or beside itself under ``--what-if`` (a derived plan)."""
    if (args.b is None) == (args.what_if is None):
        raise Unusable("diff: give either run B or --what-if PLAN (one of the two)")
    a = load_session(args.a)
    assert a.recomputation is not None
    if args.what_if is not None:
        return _what_if(args.a, a.recomputation, args.what_if)
    b = load_session(args.b)
    assert b.recomputation is not None
    return compare(
        a.recomputation, b.recomputation, label_a=shown(args.a), label_b=shown(args.b),
        facts=(run_facts(a.run), run_facts(b.run)),
    )  # fmt: skip


def _what_if(path: str, rec: Recomputation, plan: str) -> Comparison:
    """The run's own plan (A) beside a derived plan (B) on the same attempts, as the
    compare screen shows it after ``w``."""
    try:
        k, strategy = what_if_plan(plan)
    except ValueError as exc:
        raise Unusable(str(exc)) from None
    if k > rec.plan.k:
        raise Unusable(f"{path}: --what-if {plan}: the run has {rec.plan.k} attempts per task")
    if (k, strategy or rec.plan.strategy) == (rec.plan.k, rec.plan.strategy):
        raise Unusable(f"{path}: --what-if {plan} is the run's own plan: nothing to compare")
    try:
        comparison = compare_plans(rec, k=k, strategy=strategy)
    except (EngineError, ValueError) as exc:
        raise Unusable(f"{path}: cannot score as {plan}: {exc}") from None
    derivation = comparison.derivation
    assert derivation is not None
    say_on_stderr(derived_note(derivation.description, derivation.equivalent, "side B's name"))
    return replace(
        comparison,
        label_a=f"{shown(path)} {comparison.label_a}",
        label_b=f"{shown(path)} {comparison.label_b}",
    )


def cmd_diff(args: argparse.Namespace) -> int:
    comparison = _comparison(args)
    if args.format == "json":
        data = comparison_json(comparison)
        sys.stdout.write(
            strict_json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
        )
    else:
        write_comparison(sys.stdout, comparison, markdown=args.format == "markdown")
    return EXIT_OK if comparison.equal else EXIT_DIFFERS


def _counts_json(counts: SeriesCounts | None) -> dict[str, int] | None:
    return counts.to_json() if counts is not None else None


def _side_json(series: MetricSeries | None) -> dict[str, Any] | None:
    if series is None:
        return None
    return {
        "series_id": series.series_id,
        "value": series.value,
        "reference_value": series.reference_value,
        "counts": _counts_json(series.counts),
    }


def _change_json(change: TaskChange) -> dict[str, Any]:
    return {
        "task_id": change.task_id,
        "kind": change.kind,
        "flip": change.flip,
        "a": None if change.a is None else
        {"state": change.state_a, "value": change.value_a, "has_error": change.a.has_error},
        "b": None if change.b is None else
        {"state": change.state_b, "value": change.value_b, "has_error": change.b.has_error},
    }  # fmt: skip


def comparison_json(c: Comparison) -> dict[str, Any]:
    """The whole comparison as one JSON-ready object."""
    series = []
    for pair in c.series:
        stats = c.stats(pair) if pair.a and pair.b else None
        paired = paired_json(stats) if stats is not None else dict.fromkeys(PAIRED_KEYS)
        series.append({
            **paired,
            "label": pair.label,
            "a": _side_json(pair.a),
            "b": _side_json(pair.b),
            "delta": pair.delta,
            "changes": [_change_json(ch) for ch in c.changes(pair) if ch.a and ch.b],
            "moved": {kind: len(group) for kind, group in moved_groups(c.changes(pair))},
            "decomposition": decomposition_json(decomposition_of(c, pair)),
        })  # fmt: skip
    return {
        "a": c.label_a,
        "b": c.label_b,
        "config_differences": list(c.config_differences),
        "equal": c.equal,
        "warnings": list(c.warnings),
        "notes": list(c.notes),
        "only_a": list(c.only_a),
        "only_b": list(c.only_b),
        "series": series,
        "report_differences": [
            {"where": d.where, "a": d.stored, "b": d.recomputed} for d in c.report_differences
        ],
    }


def _counts_text(series: MetricSeries | None) -> str:
    if series is None:
        return "—"
    n = series.counts
    return f"{n.total}/{n.evaluated}/{n.error}/{n.unavailable}/{n.invalidated}"


def write_comparison(out: TextIO, c: Comparison, *, markdown: bool = False) -> None:
    """The comparison as a plain-text (or Markdown) report."""
    heading = "## " if markdown else ""
    out.write(f"{heading}A: {line(c.label_a, markdown=markdown)}\n")
    out.write(f"{heading}B: {line(c.label_b, markdown=markdown)}\n")
    for said in (*(f"warning: {w}" for w in c.warnings), *(f"note: {n}" for n in c.notes)):
        out.write(("- " if markdown else "") + line(said, markdown=markdown) + "\n")
    out.write("\n")
    headers = ["series", "A value", "B value", "delta", "A counts", "B counts"]
    table(out, headers, (
        [pair.label, shown_value(pair.a), shown_value(pair.b),
         delta_text(pair.delta), _counts_text(pair.a), _counts_text(pair.b)]
        for pair in c.series
    ), markdown=markdown)  # fmt: skip
    out.write("counts are total/evaluated/error/unavailable/invalidated\n")
    if any(REFERENCE_MARK in shown_value(s) for p in c.series for s in (p.a, p.b)):
        out.write("(reference): that side's evaluation failed; the number is a reference value\n")
    for side, ids in (("A", c.only_a), ("B", c.only_b)):
        if ids:
            shown = line(", ".join(ids), markdown=markdown)
            out.write(f"\n{plural(len(ids), 'task')} only in {side}: {shown}\n")
    for pair in c.series:
        if pair.a is None or pair.b is None:
            continue
        changes = [ch for group in moved_groups(c.changes(pair)) for ch in group[1]]
        if not changes:
            out.write(f"\n{heading}{line(pair.label, markdown=markdown)}: no task changed\n")
            _write_stats(out, c, pair, markdown=markdown)
            continue
        said = line(f"{pair.label}: {moved_summary(tuple(changes))}", markdown=markdown)
        out.write(f"\n{heading}{said}\n")
        table(out, ["task", "change", "A state", "A value", "B state", "B value"], (
            [ch.task_id, ch.kind, ch.state_a, number_text(ch.value_a), ch.state_b, number_text(ch.value_b)]
            for ch in changes
        ), markdown=markdown)  # fmt: skip
        _write_stats(out, c, pair, markdown=markdown)
    verdict = "equal" if c.equal else f"differ ({len(c.report_differences)} report fields)"
    out.write(f"\nresult: {verdict}\n")


def _write_stats(out: TextIO, c: Comparison, pair: SeriesPair, *, markdown: bool) -> None:
    for said in paired_lines(c.stats(pair)):
        out.write(said + "\n")
    for said in decomposition_lines(decomposition_of(c, pair), c, pair):
        out.write(line(said, markdown=markdown) + "\n")
