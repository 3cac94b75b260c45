"""``inspector tasks RUN``: the tasks behind a count (the count ledger), with the engine's
reason for each.

Text from result files (task ids, categories, issue messages) is printed with control and
invisible characters made visible in ``table`` output; ``csv`` / ``jsonl`` keep the values
exactly (JSON escapes control characters itself).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from inspector.answers.run import Unusable, load_session
from inspector.cli.common import ALL_SERIES, EXIT_OK, add_plan_options, overrides_from
from inspector.cli.tables import table
from inspector.engine.recomputation import Recomputation
from inspector.engine.report import MetricSeries
from inspector.engine.vocabulary import COUNTS
from inspector.views.audit import (
    LEDGER_STATES,
    AuditError,
    LedgerTask,
    Scope,
    series_of,
    task_filter,
    tasks_behind,
)
from inspector.views.task_rows import write_task_rows
from inspector.views.text_cells import number_text
from inspector.views.visible import visible


def register(subparsers: Any) -> None:
    """Add ``tasks`` to the ``inspector`` command."""
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
    tasks.add_argument("--state", choices=LEDGER_STATES, help="only tasks in this state")
    scope = tasks.add_mutually_exclusive_group()
    scope.add_argument("--category", metavar="C", help="only this category")
    scope.add_argument("--node", metavar="PATH", help="only this hierarchy node (e.g. overall/a)")
    tasks.add_argument("--format", choices=["table", "csv", "jsonl"], default="table")
    add_plan_options(tasks)
    tasks.set_defaults(func=cmd_tasks)


def cmd_tasks(args: argparse.Namespace) -> int:
    session = load_session(args.path, overrides_from(args))
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
            table(out, ["task", "category", "state", "error", "value", "reasons"], (
                [t.task_id, t.category, t.state, "yes" if t.has_error else "",
                 number_text(t.value), t.reason_text]
                for t in tasks
            ))  # fmt: skip
    return EXIT_OK


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
    return visible(header)
