"""Builders for the engine tests: tasks, attempts, issues, contracts and plans, built directly.

Tests import these with ``from .conftest import ...`` (``tests/engine`` is a package).
Expected values in the tests are computed by hand from the spec, never taken from the
engine's own output.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspector.engine.contract import MetricContract, make_metric_contract
from inspector.engine.model import Attempt, Issue, TaskRecord
from inspector.engine.plan import Plan
from inspector.engine.recomputation import Recomputation, recompute
from inspector.engine.reduction import TaskReduction, reduce_tasks
from inspector.engine.report import MetricReport
from inspector.engine.strategies import resolve_attempt_strategy

# Contracts the tests use most.
BINARY_ONLY = make_metric_contract("correct", binary=["correct"])
BINARY_REWARD = make_metric_contract("correct", binary=["correct"], scalar=["reward"])
SCORE_ONLY = make_metric_contract("score", scalar=["score"])


def issue(severity: str, phase: str = "run", code: str = "", message: str = "") -> Issue:
    """An ExecutionIssue; code and message default to something readable."""
    return Issue(
        severity=severity,
        phase=phase,
        code=code or f"{severity}_{phase}",
        message=message or f"{severity} in {phase}",
    )


FATAL = issue("fatal", "run", "model_failed", "HTTP 500")
ERROR = issue("error", "evaluate", "verifier_failed", "grader crashed")
WARNING = issue("warning", "cleanup", "environment_failed", "release failed")


def attempt(
    index: int,
    metrics: Mapping[str, Any] | None = None,
    *,
    status: str = "completed",
    issues: Sequence[Issue] = (),
) -> Attempt:
    """One attempt; ``metrics`` defaults to ``{}`` (no observation)."""
    return Attempt(index=index, status=status, metrics=dict(metrics or {}), issues=tuple(issues))


AttemptLike = Attempt | Mapping[str, Any] | None


def task(
    task_id: str,
    *attempts: AttemptLike,
    category: Any = None,
    k: int | None = None,
    strategy: str = "avg",
    retry_counts: Mapping[int, int] | None = None,
) -> TaskRecord:
    """A published task.

    Positional ``attempts`` are numbered 1, 2, ...: a mapping is that attempt's metrics
    (status completed, no issues), an :class:`Attempt` is used as is (its own index), and
    ``None`` leaves that index unrecorded (a missing attempt). ``k`` defaults to the number
    of positions.
    """
    recorded: dict[int, Attempt] = {}
    for position, item in enumerate(attempts, start=1):
        if item is None:
            continue
        if isinstance(item, Attempt):
            recorded[item.index] = item
        else:
            recorded[position] = attempt(position, item)
    return TaskRecord(
        task_id=task_id,
        category=category,
        plan_k=k if k is not None else max(len(attempts), 1),
        plan_strategy=strategy,
        attempts=recorded,
        retry_counts=dict(retry_counts or {}),
    )


def make_plan(
    k: int = 1,
    strategy: str = "avg",
    contract: MetricContract = BINARY_ONLY,
    *,
    aggregation: str = "micro_weighted",
    hierarchy: Mapping[str, Any] | None = None,
    benchmark_id: str = "",
    benchmark_params: Mapping[str, Any] | None = None,
) -> Plan:
    return Plan(
        k=k,
        strategy=strategy,
        contract=contract,
        aggregation=aggregation,
        hierarchy=hierarchy,
        benchmark_id=benchmark_id,
        benchmark_params=dict(benchmark_params or {}),
    )


def run(
    tasks: Sequence[TaskRecord],
    k: int = 1,
    strategy: str = "avg",
    contract: MetricContract = BINARY_ONLY,
    **plan_args: Any,
) -> Recomputation:
    """``recompute`` with a plan built from the arguments."""
    return recompute(tasks, make_plan(k, strategy, contract, **plan_args))


def report_of(tasks: Sequence[TaskRecord], *args: Any, **kwargs: Any) -> MetricReport:
    return run(tasks, *args, **kwargs).report


def reduce_one(
    record: TaskRecord, contract: MetricContract = BINARY_ONLY, k: int | None = None
) -> dict[str, TaskReduction]:
    """Every series reduction of one task under its own plan, keyed by series id."""
    k = record.plan_k if k is None else k
    plan = resolve_attempt_strategy(record.plan_strategy).resolve(contract, k)
    by_series = reduce_tasks([record], plan.series, contract, k)
    return {series_id: r for series_id, (r,) in by_series.items()}


def codes(reduction: TaskReduction) -> set[str]:
    return {reason.code for reason in reduction.reasons}
