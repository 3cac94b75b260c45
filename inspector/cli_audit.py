"""Headless audit commands: ``inspector tasks`` (the count ledger) and ``inspector diff``.

Registered by :mod:`inspector.cli` (``register(subparsers)``); ``diff`` itself lives in
:mod:`inspector.cli_diff`. Pure: no textual, no rich.
Text from result files (task ids, categories, issue messages) is printed with control and
invisible characters made visible in ``table`` / ``markdown`` output; ``csv`` / ``jsonl`` /
``json`` keep the values exactly (JSON escapes control characters itself).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from inspector.audit import (
    COUNTS,
    STATE_FILTERS,
    AuditError,
    LedgerTask,
    Scope,
    series_of,
    task_filter,
    tasks_behind,
)
from inspector.engine import MetricSeries, Reason, Recomputation
from inspector.visible import visible

EXIT_OK, EXIT_DIFFERS = 0, 1
ALL_SERIES = "all"


def register(subparsers: Any) -> None:
    """Add ``tasks`` and ``diff`` to the ``inspector`` command."""
    from inspector.cli import _add_plan_options

    tasks = subparsers.add_parser(
        "tasks",
        help="list the tasks behind a count, with the reason for each",
        description=(
            "List the tasks behind a count of a series (default: the summary series), with "
            "the engine's reason for every non-evaluated state and every has_error. "
            "--count unavailable lists state error plus state unavailable; --count error "
            "lists every has_error task, evaluated ones included. With --series all and "
            "--format csv/jsonl this is the per-task reduction export of every series."
        ),
    )
    tasks.add_argument("path", help="a run directory")
    tasks.add_argument("--series", metavar="ID", help="series id, or 'all' (default: summary)")
    tasks.add_argument("--count", choices=COUNTS, help="the tasks behind this count")
    tasks.add_argument("--state", choices=STATE_FILTERS, help="only tasks in this state")
    scope = tasks.add_mutually_exclusive_group()
    scope.add_argument("--category", metavar="C", help="only this category")
    scope.add_argument("--node", metavar="PATH", help="only this hierarchy node (e.g. overall/a)")
    tasks.add_argument("--format", choices=["table", "csv", "jsonl"], default="table")
    _add_plan_options(tasks)
    tasks.set_defaults(func=cmd_tasks)

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
    diff.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    diff.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    from inspector.cli_diff import cmd_diff

    diff.set_defaults(func=cmd_diff)


# -- inspector tasks ----------------------------------------------------------------------


def cmd_tasks(args: argparse.Namespace) -> int:
    from inspector.cli import Unusable, _overrides, load_session

    session = load_session(args.path, _overrides(args))
    rec = session.recomputation
    assert rec is not None
    scope = Scope(category=args.category, node=args.node)
    if args.series == ALL_SERIES:
        series = list(rec.report.series)
    else:
        try:
            series = [series_of(rec, args.series)]
        except AuditError as exc:
            raise Unusable(f"{args.path}: {exc}") from None
    groups: list[tuple[MetricSeries, tuple[LedgerTask, ...], str]] = []
    try:
        for item in series:
            header = _tasks_header(rec, item, args, scope)
            tasks = task_filter(
                rec, item.series_id, count=args.count, state=args.state, scope=scope
            )
            groups.append((item, tasks, header))
    except AuditError as exc:
        raise Unusable(f"{args.path}: {exc}") from None
    out = sys.stdout
    if args.format in ("jsonl", "csv"):
        write_task_rows(out, args.format, (task for _, tasks, _ in groups for task in tasks))
    else:
        for index, (_, tasks, header) in enumerate(groups):
            if index:
                out.write("\n")
            out.write(header + "\n")
            _table(out, ["task", "category", "state", "error", "value", "reasons"], (
                [t.task_id, t.category, t.state, "yes" if t.has_error else "",
                 _number(t.value), t.reason_text]
                for t in tasks
            ))  # fmt: skip
    return EXIT_OK


def write_task_rows(out: TextIO, fmt: str, tasks: Iterable[LedgerTask]) -> None:
    """The machine-readable task rows (``jsonl`` or ``csv``); ``inspector export`` writes
    the same rows to files."""
    if fmt == "jsonl":
        for task in tasks:
            out.write(json.dumps(task_json(task), ensure_ascii=False, sort_keys=True) + "\n")
        return
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerows(task_csv_row(task) for task in tasks)


def _tasks_header(rec: Recomputation, series: MetricSeries, args: Any, scope: Scope) -> str:
    parts = [series.series_id]
    if rec.plan.derived:
        parts.append(f"derived plan: {rec.plan.derived}")
    if scope != Scope():
        parts.append(scope.label)
    if args.count:
        entry = tasks_behind(rec, series.series_id, args.count, scope)
        parts.append(f"count {args.count} = {entry.reported}")
        header = " · ".join(parts) + f"\n{entry.note}"
    else:
        header = " · ".join(parts)
    if args.state:
        header += f"\nstate filter: {args.state}"
    return _visible(header)


CSV_COLUMNS = (
    "series_id", "task_id", "category", "state", "has_error", "value",
    "requested", "observed", "valid", "error_attempts", "missing_attempts",
    "invalidated", "early_stopped", "reason_codes", "reasons",
)  # fmt: skip


def _reason_json(reason: Reason) -> dict[str, Any]:
    issue = reason.issue
    return {
        "code": reason.code,
        "text": reason.text,
        "attempts": list(reason.attempts),
        "issue": None
        if issue is None
        else {"severity": issue.severity, "phase": issue.phase, "code": issue.code,
              "message": issue.message},
    }  # fmt: skip


def task_json(task: LedgerTask) -> dict[str, Any]:
    """One task reduction as a JSON object (one ``jsonl`` line)."""
    r = task.reduction
    return {
        "series_id": r.series_id,
        "task_id": task.task_id,
        "category": task.category,
        "state": r.state,
        "has_error": r.has_error,
        "value": r.value,
        "coverage": {
            "requested": r.coverage.requested,
            "observed": r.coverage.observed,
            "valid": r.coverage.valid,
            "error": r.coverage.error,
        },
        "missing_attempts": r.missing_attempts,
        "invalidated": r.invalidated,
        "early_stopped": r.early_stopped,
        "reasons": [_reason_json(reason) for reason in r.reasons],
    }


def task_csv_row(task: LedgerTask) -> list[Any]:
    r = task.reduction
    return [
        r.series_id, task.task_id, task.category, r.state, r.has_error,
        "" if r.value is None else repr(r.value),
        r.coverage.requested, r.coverage.observed, r.coverage.valid, r.coverage.error,
        r.missing_attempts, r.invalidated, r.early_stopped,
        " ".join(reason.code for reason in r.reasons), task.reason_text,
    ]  # fmt: skip


# -- text helpers -------------------------------------------------------------------------


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.6g}"


def _visible(text: str) -> str:
    """Make control and invisible characters visible (as ``widgets.literal`` does)."""
    return visible(text)


def _cell(value: Any, markdown: bool) -> str:
    text = _visible(str(value if value is not None else "—")).replace("\n", "␊")
    return text.replace("|", "\\|") if markdown else text


def _table(
    out: TextIO, headers: Sequence[str], rows: Iterable[Sequence[Any]], *, markdown: bool = False
) -> None:
    cells = [[_cell(v, markdown) for v in row] for row in rows]
    if markdown:
        out.write("| " + " | ".join(headers) + " |\n")
        out.write("|" + "|".join("---" for _ in headers) + "|\n")
        for row in cells:
            out.write("| " + " | ".join(row) + " |\n")
        return
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    last = len(headers) - 1
    out.write(
        "  ".join(
            h.ljust(w) if i < last else h
            for i, (h, w) in enumerate(zip(headers, widths, strict=True))
        )
        + "\n"
    )
    out.write("  ".join("-" * w for w in widths) + "\n")
    for row in cells:
        out.write(
            "  ".join(
                c.ljust(w) if i < last else c
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
            + "\n"
        )
