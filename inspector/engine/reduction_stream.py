"""Reductions made as a run's tasks are read (:class:`ReductionStream`), once per set of
alike tasks: most tasks of a run have the same statuses, the same observations and no
issue, and their reductions differ only in the task's id.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspector.engine.contract import MetricContract
from inspector.engine.model import TaskRecord, observed_key
from inspector.engine.plan import Plan
from inspector.engine.reduction import (
    Coverage,
    TaskReduction,
    reduce_resolved,
    resolve_series,
)
from inspector.engine.strategies import SeriesPlan, resolve_attempt_strategy


class ReductionStream:
    """Task reductions computed as the tasks arrive, while the rest of a run is still read.

    :func:`~inspector.engine.recomputation.recompute` uses them only when its plan has the
    same ``k``, strategy and contract and its tasks are exactly the ones added, in order;
    anything that goes wrong here (a task AgentCompass would refuse) just leaves the work to
    ``recompute``, which reports it in its own order.
    """

    def __init__(self, contract: MetricContract, k: int, strategy: str) -> None:
        self.key = (contract, k, strategy)
        self.tasks: list[TaskRecord] = []
        self.failed = False
        try:
            series = resolve_attempt_strategy(strategy).resolve(contract, k).series
        except Exception:  # recompute raises it properly
            self.failed = True
            series = ()
        self.plans: tuple[SeriesPlan, ...] = tuple(series)
        """The series the strategy resolved to under this plan (none when it failed)."""
        self.series = resolve_series(series)
        self.series_ids = tuple(sid for _, _, sid in self.series)
        """The series each task is reduced for, in the order :meth:`add` takes them."""
        self.coverages: dict[tuple[int, int, int, int], Coverage] = {}
        self.by_series: dict[str, list[TaskReduction]] = {sid: [] for _, _, sid in self.series}
        self.alike: dict[tuple[object, ...], list[TaskReduction]] = {}
        """The reductions of a task, by what they depend on (:func:`_alike_key`)."""

    def add(self, tasks: Sequence[TaskRecord]) -> None:
        """Reduce ``tasks``."""
        if self.failed:
            return
        contract, k, _ = self.key
        try:
            for task in tasks:
                for reduction in self._reduce(task, contract, k):
                    self.by_series[reduction.series_id].append(reduction)
                self.tasks.append(task)
        except Exception:  # recompute raises it properly
            self.failed = True
            self.by_series = {}
            self.tasks = []

    def _reduce(self, task: TaskRecord, contract: MetricContract, k: int) -> list[TaskReduction]:
        """The task reduced (:func:`~inspector.engine.reduction.reduce_resolved`), or the
        reductions of an earlier task of this run that had the same attempts (most tasks
        of a run are alike: the same statuses, the same observations, no issue), with this
        task's id."""
        key = _alike_key(task)
        if key is None:
            return reduce_resolved(task, self.series, contract, k, self.coverages)
        try:
            alike = self.alike.get(key)
        except TypeError:  # an unhashable value where a string belongs: reduce it
            return reduce_resolved(task, self.series, contract, k, self.coverages)
        if alike is None:
            alike = self.alike[key] = reduce_resolved(
                task, self.series, contract, k, self.coverages
            )
            return alike
        task_id = task.task_id
        return [
            TaskReduction(
                task_id,
                r.series_id,
                r.value,
                r.state,
                r.has_error,
                r.coverage,
                r.missing_attempts,
                r.invalidated,
                r.early_stopped,
                r.reasons,
            )
            for r in alike
        ]


class PlannedStream(ReductionStream):
    """A reduction stream for a plan the run-level files gave whole (with the
    ``overrides`` it was resolved under): :func:`~inspector.session.score_run` takes that
    plan instead of resolving it again."""

    def __init__(self, plan: Plan, overrides: object) -> None:
        super().__init__(plan.contract, plan.k, plan.strategy)
        self.plan = plan
        self.overrides = overrides


def _alike_key(task: TaskRecord) -> tuple[object, ...] | None:
    """Everything a task's reductions depend on besides its id (under one plan: ``k``,
    contract and series), or None when that cannot be told by equality: each attempt's
    index, status, issues and observations, the retry counts and the task's own strategy
    (its preflight). An observation is kept with its type (``True``, ``1`` and ``1.0`` are
    equal but reduce apart), and a float zero or NaN gives None (``-0.0 == 0.0`` but is
    written apart; NaN is never equal). Attempts with scoring artifacts give None."""
    key: list[object] = [task.plan_strategy, tuple(task.retry_counts.items())]
    for index, attempt in task.attempts.items():
        if attempt.scoring_artifacts:
            return None
        observed = observed_key([index, attempt.status, attempt.issues], attempt.metrics)
        if observed is None:
            return None
        key.append(tuple(observed))
    return tuple(key)
