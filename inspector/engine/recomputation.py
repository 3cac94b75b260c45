"""``recompute(tasks, plan)``: the one entry point from tasks to a report and its reductions."""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from inspector.engine.aggregation import category_key, standard_report
from inspector.engine.benchmarks import OVERRIDES
from inspector.engine.corpus import AggregationContext
from inspector.engine.errors import ObservationError
from inspector.engine.hierarchy import HierarchyNode, parse_hierarchy
from inspector.engine.model import TaskRecord
from inspector.engine.plan import Plan
from inspector.engine.reduction import (
    Coverage,
    Reason,
    TaskReduction,
    reduce_tasks,
)
from inspector.engine.reduction_stream import ReductionStream
from inspector.engine.report import MetricReport, validate_report
from inspector.engine.strategies import resolve_attempt_strategy
from inspector.engine.vocabulary import ERROR, EVALUATED, INVALIDATED


@dataclass(frozen=True)
class Recomputation:
    """A report and every task reduction behind it, for one plan."""

    plan: Plan
    tasks: tuple[TaskRecord, ...]
    report: MetricReport
    # series id -> reductions aligned with ``tasks``
    reductions: Mapping[str, tuple[TaskReduction, ...]]
    category_keys: tuple[str, ...]
    root: HierarchyNode | None
    notes: tuple[str, ...] = field(default=())

    def task_index(self) -> dict[str, int]:
        return {t.task_id: i for i, t in enumerate(self.tasks)}


def check_plans(tasks: Sequence[TaskRecord], plan: Plan) -> None:
    """Every task's attempt_plan must equal the run's (``_validate_detail_plans``)."""
    seen: set[str] = set()
    for task in tasks:
        tid = task.task_id
        if not isinstance(tid, str) or not tid.strip() or tid != tid.strip():
            raise ObservationError(
                "task_id must be a non-empty string without surrounding whitespace",
                source=task.source,
            )
        if tid in seen:
            raise ObservationError(
                f"duplicate detail task_id: {tid}", task_id=tid, source=task.source
            )
        seen.add(tid)
        if (task.plan_k, task.plan_strategy) != (plan.k, plan.strategy):
            raise ObservationError(
                f"attempt_plan does not match: expected k={plan.k} strategy={plan.strategy}, "
                f"found k={task.plan_k} strategy={task.plan_strategy}",
                task_id=tid,
                source=task.source,
            )


def recompute(
    tasks: Sequence[TaskRecord],
    plan: Plan,
    *,
    stream: ReductionStream | None = None,
) -> Recomputation:
    """Score ``tasks`` under ``plan`` the way AgentCompass 1.0.1 does.

    Nothing comes from a stored metrics.json: every series and the report's ``extra`` are
    computed (frontier_engineering's from the reference tables the plan carries).
    ``stream`` holds reductions already made while the tasks were read (used when it
    matches this plan and these tasks).
    """
    tasks = tuple(tasks)
    root = parse_hierarchy(plan.hierarchy)
    strategy = resolve_attempt_strategy(plan.strategy)
    planned = (plan.contract, plan.k, strategy.id)
    made = stream if stream is not None and not stream.failed and stream.key == planned else None
    # The stream resolved this same plan's strategy already.
    series = made.plans if made is not None else strategy.resolve(plan.contract, plan.k).series
    check_plans(tasks, plan)
    if (
        made is not None
        and len(made.tasks) == len(tasks)
        and all(map(operator.is_, tasks, made.tasks))
    ):
        reductions = made.by_series  # made while reading, of exactly these tasks
    else:
        reductions = reduce_tasks(tasks, series, plan.contract, plan.k)
    keys = tuple(category_key(t.category) for t in tasks)
    report = standard_report(plan, reductions, keys, root, series)
    all_reductions: dict[str, tuple[TaskReduction, ...]] = {
        k: tuple(v) for k, v in reductions.items()
    }
    override = OVERRIDES.get(plan.benchmark_id)
    if override is not None:
        context = AggregationContext(tasks, report, reductions, root)
        override(context, plan, tasks)
        report = context.build()
        for series_id, states in context.custom_states.items():
            all_reductions[series_id] = _custom_reductions(
                tasks, states, context, plan.k, series_id
            )
    validate_report(report)
    return Recomputation(
        plan=plan,
        tasks=tasks,
        report=report,
        reductions=all_reductions,
        category_keys=keys,
        root=root,
    )


def _custom_reductions(
    tasks: Sequence[TaskRecord],
    states: Mapping[str, str],
    context: AggregationContext,
    k: int,
    series_id: str,
) -> tuple[TaskReduction, ...]:
    """Per-task states of a corpus-formula series, for the audit views."""
    out = []
    for task in tasks:
        state = states.get(task.task_id, INVALIDATED)
        has_error = state in (ERROR, INVALIDATED) or task.task_id in context._error_task_ids
        reasons: tuple[Reason, ...] = ()
        if state != EVALUATED or has_error:
            reasons = (
                Reason("corpus_formula", f"the corpus formula's inputs for this task are {state}"),
            )
        out.append(
            TaskReduction(
                task_id=task.task_id,
                series_id=series_id,
                value=None,
                state=state,
                has_error=has_error,
                coverage=Coverage(k, len(task.attempts), 0, 0),
                missing_attempts=0,
                invalidated=state == INVALIDATED,
                early_stopped=False,
                reasons=reasons,
            )
        )
    return tuple(out)
