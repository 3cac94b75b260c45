"""Per-task reduction: coverage, pass early stop, invalidation, state, ``has_error`` (spec §6.3).

AgentCompass keeps no reasons; the inspector records, for every state other than
``evaluated`` and for every ``has_error``, *why*: which attempts are missing, which issue made
the task an error or invalidated it, which attempts lack the metric.

First, the checks on a task's attempts that abort AgentCompass's aggregation (spec §6.3
step 1, §10 item 13, :func:`validate_task`): an attempt index outside 1..k, an unknown
status, an undeclared metric or an observation of the wrong type. A failed check raises
:class:`~inspector.engine.errors.ObservationError` naming the file it was written in.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from inspector.engine.contract import BINARY, FLOAT_INT, MetricContract
from inspector.engine.errors import ObservationError
from inspector.engine.model import STATUSES, Attempt, Issue, TaskRecord
from inspector.engine.reducers import MetricReducer, ReducerContext, resolve_metric_reducer
from inspector.engine.strategies import SeriesPlan, attempt_completed, resolve_attempt_strategy
from inspector.engine.vocabulary import ERROR, EVALUATED, INVALIDATED, UNAVAILABLE


def attempt_file(task: TaskRecord, index: int) -> str:
    """The ``result.json`` of attempt ``index``: ``attempt-N/`` beside the task's ``task.json``.

    Falls back to ``task.source`` when that is not a ``task.json`` path.
    """
    folder, _, name = task.source.rpartition("/")
    if name != "task.json":
        return task.source
    return f"{folder}/attempt-{index}/result.json" if folder else f"attempt-{index}/result.json"


def validate_task(task: TaskRecord, contract: MetricContract, k: int) -> None:
    """The checks that abort AgentCompass's aggregation (spec §6.3 step 1, §10 item 13).

    A bad status or observation names the attempt's ``result.json``, where it was written.
    An attempt that passes every check by its first, cheapest test (an int index in range, a
    known status, a dict of declared metrics of exactly the right types) is not checked
    again; any other goes through the full checks, which raise the same errors in the same
    order.
    """
    for index, attempt in task.attempts.items():
        if (
            type(index) is int
            and 1 <= index <= k
            and attempt.status in STATUSES
            and _accepted_plainly(attempt.metrics, contract)
        ):
            continue
        _validate_attempt(task, index, attempt, contract, k)


def _accepted_plainly(observations: object, contract: MetricContract) -> bool:
    """True when ``contract.validate_observations`` would accept ``observations`` by the
    cheapest test of each rule: a dict whose every key is declared and whose every value
    is of its kind's own type (a bool for a binary metric, an int or a finite float for a
    scalar one). False says only that the full checks must decide."""
    if type(observations) is not dict:
        return False
    specs = contract.metrics
    for key, value in observations.items():
        spec = specs.get(key)
        if spec is None:
            return False
        kind = type(value)
        if spec.kind == BINARY:
            if kind is not bool:
                return False
        elif not (
            (kind is int and -FLOAT_INT < value < FLOAT_INT)
            or (kind is float and math.isfinite(value))
        ):
            return False
    return True


def _validate_attempt(
    task: TaskRecord, index: int, attempt: Attempt, contract: MetricContract, k: int
) -> None:
    """One attempt through every check of :func:`validate_task`."""
    if isinstance(index, bool) or not isinstance(index, int) or not 1 <= index <= k:
        raise ObservationError(
            f"attempt {index} is outside 1..{k}", task_id=task.task_id, source=task.source
        )
    if attempt.status not in STATUSES:
        raise ObservationError(
            f"attempt {index} has unknown status {attempt.status!r}",
            task_id=task.task_id,
            source=attempt_file(task, index),
        )
    try:
        contract.validate_observations(attempt.metrics, task_id=task.task_id)
    except ObservationError as exc:
        # The file is named only when needed: this runs for every attempt of a run.
        exc.source = attempt_file(task, index)
        raise


@dataclass(frozen=True, slots=True)
class Coverage:
    """``{requested, observed, valid, error}`` of one task and one metric."""

    requested: int
    observed: int
    valid: int
    error: int


@dataclass(frozen=True, slots=True)
class Reason:
    """One machine-readable cause of a state or of ``has_error``.

    ``code`` is one of ``fatal_issue``, ``error_issue``, ``missing_attempts``,
    ``retry_only_attempts``, ``metric_not_observed``, ``early_stop_not_credited``.
    """

    code: str
    text: str
    attempts: tuple[int, ...] = ()
    issue: Issue | None = None


@dataclass(frozen=True, slots=True)
class TaskReduction:
    """The reduction of one task for one series."""

    task_id: str
    series_id: str
    value: float | None
    state: str
    has_error: bool
    coverage: Coverage
    missing_attempts: int
    invalidated: bool
    # The pass early stop forgave the attempts that were never run.
    early_stopped: bool
    reasons: tuple[Reason, ...] = ()


@dataclass(frozen=True, slots=True)
class _TaskFacts:
    """What every series of one task shares."""

    ordered: tuple[Attempt, ...]
    error_attempts: tuple[Attempt, ...]
    fatal_attempts: tuple[Attempt, ...]
    missing: int
    early_stopped: bool
    gap_or_unstopped: bool


def article(word: str) -> str:
    """The article: "an" before a vowel (an ERROR issue, an avg@3 run), else "a" (a FATAL issue)."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def _fmt_attempts(indices: Sequence[int]) -> str:
    word = "attempt" if len(indices) == 1 else "attempts"
    return f"{word} {', '.join(str(i) for i in indices)}"


def _facts(task: TaskRecord, contract: MetricContract, k: int) -> _TaskFacts:
    attempts = task.attempts
    ordered = tuple([attempts[i] for i in sorted(attempts)])
    if any([a.issues for a in ordered]):
        error_attempts = tuple(a for a in ordered if a.has_error_issue)
        fatal_attempts = tuple(a for a in ordered if a.has_fatal)
    else:
        error_attempts = fatal_attempts = ()
    missing = k - len(ordered)
    early_stopped = False
    gap_or_unstopped = False
    if missing > 0 and not fatal_attempts and ordered:
        contiguous = [a.index for a in ordered] == list(range(1, len(ordered) + 1))
        last = ordered[-1]
        # AgentCompass preflights the task's own strategy here (spec §10 item 8).
        strategy = resolve_attempt_strategy(task.plan_strategy)
        strategy.preflight(contract, k)
        stops = contiguous and strategy.should_stop(
            attempt_completed(last.status),
            contract.primary.kind,
            last.metrics.get(contract.primary_id),
        )
        if stops:
            missing = 0
            early_stopped = True
        elif strategy.id == "pass":
            gap_or_unstopped = True
    return _TaskFacts(
        ordered, error_attempts, fatal_attempts, missing, early_stopped, gap_or_unstopped
    )


def _issue_reasons(attempts: Sequence[Attempt], severity: str, code: str) -> list[Reason]:
    reasons = []
    for attempt in attempts:
        for issue in attempt.issues:
            if issue.severity == severity:
                reasons.append(
                    Reason(
                        code,
                        f"attempt {attempt.index} has {article(severity)} {severity.upper()} issue "
                        f"{issue.phase}/{issue.code}: {issue.message}",
                        (attempt.index,),
                        issue,
                    )
                )
    return reasons


def _missing_reasons(task: TaskRecord, facts: _TaskFacts, k: int) -> list[Reason]:
    recorded = {a.index for a in facts.ordered}
    absent = [i for i in range(1, k + 1) if i not in recorded]
    if not absent or facts.missing == 0:
        return []
    retry_only = [i for i in absent if task.retry_counts.get(i)]
    reasons = [
        Reason(
            "missing_attempts",
            f"{_fmt_attempts(absent)} of {k} {'is' if len(absent) == 1 else 'are'} missing",
            tuple(absent),
        )
    ]
    if retry_only:
        reasons.append(
            Reason(
                "retry_only_attempts",
                f"{_fmt_attempts(retry_only)} left only a retry count, no result",
                tuple(retry_only),
            )
        )
    if facts.gap_or_unstopped and recorded:
        last = max(recorded)
        if sorted(recorded) != list(range(1, len(recorded) + 1)):
            text = "the pass early stop is not credited: the recorded attempts have a gap"
        else:
            text = f"the pass early stop is not credited: attempt {last} is not a completed success"
        reasons.append(Reason("early_stop_not_credited", text, (last,)))
    return reasons


_Resolved = tuple[SeriesPlan, MetricReducer, str]
"""A series, its reducer and its id, resolved once per run (not once per task)."""


def resolve_series(series: Sequence[SeriesPlan]) -> list[_Resolved]:
    return [(plan, resolve_metric_reducer(plan.reducer), plan.series_id) for plan in series]


def reduce_resolved(
    task: TaskRecord,
    series: Sequence[_Resolved],
    contract: MetricContract,
    k: int,
    coverages: dict[tuple[int, int, int, int], Coverage],
) -> list[TaskReduction]:
    """``coverages``: the equal coverages of a run's tasks as one object each (they repeat
    across tasks, and a large run holds one per task and series)."""
    validate_task(task, contract, k)
    facts = _facts(task, contract, k)
    ordered = facts.ordered
    missing = facts.missing
    invalidated = bool(facts.fatal_attempts)
    error_count = len(facts.error_attempts)
    recorded = len(ordered)
    # Whatever the series and its value: an ERROR issue or a missing attempt is an error.
    troubled = error_count > 0 or missing > 0
    task_id = task.task_id
    out = []
    for plan, reducer, series_id in series:
        metric_id = plan.metric_id
        values = [a.metrics[metric_id] for a in ordered if metric_id in a.metrics]
        valid = len(values)
        key = (k, recorded, valid, error_count)
        coverage = coverages.get(key)
        if coverage is None:
            coverage = coverages[key] = Coverage(*key)
        value = reducer.reduce(ReducerContext(plan.kind, values, k, valid))
        if invalidated:
            state, value = INVALIDATED, None
        elif value is not None:
            state = EVALUATED
        elif troubled:
            state = ERROR
        else:
            state = UNAVAILABLE
        # As spec §6.3 states it (ERROR comes only from trouble; INVALIDATED is troubled too).
        has_error = troubled or invalidated
        reasons: tuple[Reason, ...] = ()
        if has_error or state != EVALUATED:
            reasons = tuple(_reasons(task, facts, plan, state, k))
        out.append(
            TaskReduction(
                task_id,
                series_id,
                value,
                state,
                has_error,
                coverage,
                missing,
                invalidated,
                facts.early_stopped,
                reasons,
            )
        )
    return out


def _reasons(
    task: TaskRecord, facts: _TaskFacts, plan: SeriesPlan, state: str, k: int
) -> list[Reason]:
    if state == INVALIDATED:
        return _issue_reasons(facts.fatal_attempts, "fatal", "fatal_issue")
    reasons = _missing_reasons(task, facts, k)
    reasons += _issue_reasons(facts.error_attempts, "error", "error_issue")
    if state in (ERROR, UNAVAILABLE):
        lacking = [a.index for a in facts.ordered if plan.metric_id not in a.metrics]
        if lacking:
            reasons.append(
                Reason(
                    "metric_not_observed",
                    f"{_fmt_attempts(lacking)} recorded no {plan.metric_id!r} observation",
                    tuple(lacking),
                )
            )
        elif not facts.ordered:
            reasons.append(Reason("metric_not_observed", "no attempt was recorded"))
    return reasons


def reduce_tasks(
    tasks: Sequence[TaskRecord],
    series: Sequence[SeriesPlan],
    contract: MetricContract,
    k: int,
) -> dict[str, list[TaskReduction]]:
    """Reductions of every task, per series id, aligned with ``tasks``."""
    by_series: dict[str, list[TaskReduction]] = {plan.series_id: [] for plan in series}
    resolved = resolve_series(series)
    coverages: dict[tuple[int, int, int, int], Coverage] = {}
    for task in tasks:
        for reduction in reduce_resolved(task, resolved, contract, k, coverages):
            by_series[reduction.series_id].append(reduction)
    return by_series
