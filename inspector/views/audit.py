"""Which tasks stand behind every count of every series, and why (spec §6.3, §6.4, §10 items 1–3).

Pure (no textual, no rich). Everything here reads one
:class:`~inspector.engine.Recomputation`: the states, ``has_error`` flags, values and
reasons of its task reductions, and the counts and breakdowns of its report. Nothing is
reduced or averaged a second way; :mod:`inspector.views.explain` re-combines the report's own
parts only to show the formula; :mod:`inspector.views.attribution` ties issues and retries to
the counts.

The five counts and the overlaps between them (spec §6.4):

- ``total``: every task in scope;
- ``evaluated`` / ``invalidated``: the tasks in that state;
- ``unavailable``: total − evaluated − invalidated, i.e. state ``error`` **plus** state
  ``unavailable`` (item 1);
- ``error``: every task with ``has_error`` — it overlaps ``evaluated`` and ``unavailable``
  and always includes the invalidated tasks (item 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from inspector.engine.aggregation import UNCATEGORIZED
from inspector.engine.hierarchy import HierarchyNode
from inspector.engine.model import TaskRecord
from inspector.engine.recomputation import Recomputation
from inspector.engine.reduction import Reason, TaskReduction
from inspector.engine.report import MetricSeries, SeriesCounts
from inspector.engine.vocabulary import (
    COUNTS,
    ERROR,
    EVALUATED,
    INVALIDATED,
    STATES,
    UNAVAILABLE,
    Count,
    State,
)

HasError = Literal["has_error"]
HAS_ERROR: Final = "has_error"
LEDGER_STATES: Final[tuple[State | HasError, ...]] = (*STATES, HAS_ERROR)
"""Reduction states, plus ``has_error`` (the flag behind the ``error`` count)."""


@dataclass(frozen=True, slots=True)
class InCount:
    """The tasks counted in one of the five counts (``unavailable`` includes state error,
    ``error`` overlaps the others)."""

    count: Count

    @property
    def words(self) -> str:
        return f"count {self.count}"


@dataclass(frozen=True, slots=True)
class InState:
    """The tasks in one reduction state (``has_error``: with the flag behind the error count)."""

    state: State | HasError

    @property
    def words(self) -> str:
        return f"state {self.state}"


TaskSet = InCount | InState
"""Which tasks of a series a filter keeps by their reduction: a count or a state."""

EVERY_TASK: Final = InCount("total")

# Corpus formulas whose categories are keyed as BenchmarkAggregationContext keys them.
_CONTEXT_KEYED = frozenset({"ratio_of_sums", "benchmark"})


class AuditError(ValueError):
    """A series, category, hierarchy node, count or state that the recomputation lacks."""


@dataclass(frozen=True, slots=True)
class Scope:
    """Where a count is taken: the whole series, one category, or one hierarchy node."""

    category: str | None = None
    node: str | None = None

    @property
    def label(self) -> str:
        if self.node is not None:
            return f"node {self.node}"
        if self.category is not None:
            return f"category {self.category}"
        return "series"


SERIES_SCOPE = Scope()


@dataclass(frozen=True, slots=True)
class LedgerTask:
    """One task as the ledger lists it: its reduction for one series, and why."""

    task_id: str
    category: str
    state: str
    has_error: bool
    value: float | None
    reasons: tuple[Reason, ...]
    reduction: TaskReduction

    @property
    def reason_text(self) -> str:
        return "; ".join(reason.text for reason in self.reasons)


@dataclass(frozen=True, slots=True)
class CountLedger:
    """The exact tasks behind one count of one series in one scope."""

    series_id: str
    count: str
    scope: Scope
    reported: int | None
    tasks: tuple[LedgerTask, ...]
    note: str

    @property
    def agrees(self) -> bool:
        """True when the ledger lists as many tasks as the report counts."""
        return self.reported == len(self.tasks)

    @property
    def task_ids(self) -> tuple[str, ...]:
        return tuple(task.task_id for task in self.tasks)


def in_count(reduction: TaskReduction, count: str) -> bool:
    """Whether a task reduction is counted in ``count`` (spec §6.4)."""
    if count == "total":
        return True
    if count == "error":
        return reduction.has_error
    if count == "unavailable":
        return reduction.state in (ERROR, UNAVAILABLE)
    if count in (EVALUATED, INVALIDATED):
        return reduction.state == count
    raise AuditError(f"unknown count {count!r}: expected one of {', '.join(COUNTS)}")


def in_state(reduction: TaskReduction, state: str) -> bool:
    """Whether a reduction is in ``state`` (or has ``has_error`` for ``"has_error"``)."""
    if state == HAS_ERROR:
        return reduction.has_error
    if state not in LEDGER_STATES:
        raise AuditError(f"unknown state {state!r}: expected one of {', '.join(LEDGER_STATES)}")
    return reduction.state == state


def holds(reduction: TaskReduction, which: TaskSet) -> bool:
    """Whether a task reduction belongs to ``which`` (a count or a state)."""
    if isinstance(which, InCount):
        return in_count(reduction, which.count)
    return in_state(reduction, which.state)


def series_of(rec: Recomputation, series_id: str | None) -> MetricSeries:
    """The series ``series_id``, or the summary series when it is None."""
    if series_id is None:
        return rec.report.summary_series
    try:
        return rec.report.series_by_id(series_id)
    except KeyError:
        known = ", ".join(s.series_id for s in rec.report.series)
        raise AuditError(f"no series {series_id!r} in this report (it has {known})") from None


def reductions_of(rec: Recomputation, series_id: str) -> tuple[TaskReduction, ...] | None:
    """The task reductions behind a series (every series of a recomputation has them; None
    only for a series id the recomputation does not hold)."""
    return rec.reductions.get(series_id)


def category_keys(rec: Recomputation, series: MetricSeries) -> tuple[str, ...]:
    """Each task's category key *as this series' breakdown groups it*, aligned with tasks.

    Standard series use ``str(c).strip()`` (spec §7.1 step 5). Ratio and benchmark series
    are grouped by ``BenchmarkAggregationContext``, which does not strip (§7.3, §10 item 16).
    """
    if series.aggregation in _CONTEXT_KEYED:
        return tuple(str(t.category or UNCATEGORIZED) for t in rec.tasks)
    return rec.category_keys


def find_node(rec: Recomputation, path: str) -> HierarchyNode:
    if rec.root is None:
        raise AuditError("this report has no category hierarchy")
    for node in rec.root.walk():
        if node.path == path:
            return node
    raise AuditError(f"no hierarchy node {path!r}")


def scope_indices(rec: Recomputation, series: MetricSeries, scope: Scope) -> list[int]:
    """Positions in ``rec.tasks`` of the tasks in ``scope`` for ``series``."""
    keys = category_keys(rec, series)
    if scope.node is not None:
        node = find_node(rec, scope.node)
        leaves = {n.name for n in node.walk() if n.is_leaf}
        wanted = leaves & set(series.categories)
        return [i for i, key in enumerate(keys) if key in wanted]
    if scope.category is not None:
        if scope.category not in series.categories:
            known = ", ".join(series.categories) or "none"
            raise AuditError(
                f"no category {scope.category!r} in {series.series_id} (categories: {known})"
            )
        return [i for i, key in enumerate(keys) if key == scope.category]
    return list(range(len(rec.tasks)))


def reported_counts(series: MetricSeries, scope: Scope) -> SeriesCounts | None:
    """The counts the report shows for ``scope``."""
    if scope.node is not None:
        part = series.hierarchy.get(scope.node)
        return part.counts if part is not None else None
    if scope.category is not None:
        part = series.categories.get(scope.category)
        return part.counts if part is not None else None
    return series.counts


def _ledger_task(task: TaskRecord, key: str, reduction: TaskReduction) -> LedgerTask:
    return LedgerTask(
        task_id=task.task_id,
        category=key,
        state=reduction.state,
        has_error=reduction.has_error,
        value=reduction.value,
        reasons=reduction.reasons,
        reduction=reduction,
    )


def scoped_tasks(
    rec: Recomputation, series_id: str | None, scope: Scope = SERIES_SCOPE
) -> tuple[LedgerTask, ...]:
    """Every task in ``scope`` with its reduction for the series (empty if not recomputed)."""
    series = series_of(rec, series_id)
    rows = reductions_of(rec, series.series_id)
    if rows is None:
        return ()
    keys = category_keys(rec, series)
    return tuple(
        _ledger_task(rec.tasks[i], keys[i], rows[i]) for i in scope_indices(rec, series, scope)
    )


def count_note(count: str, tasks: Sequence[LedgerTask]) -> str:
    """How this count overlaps the others, with the numbers of this ledger."""
    states = {
        state: sum(t.state == state for t in tasks)
        for state in (EVALUATED, ERROR, UNAVAILABLE, INVALIDATED)
    }
    if count == "unavailable":
        return (
            f"unavailable = total − evaluated − invalidated: {states[ERROR]} in state error "
            f"plus {states[UNAVAILABLE]} in state unavailable"
        )
    if count == "error":
        return (
            f"error counts every task with has_error and overlaps the other counts: "
            f"{states[EVALUATED]} evaluated, {states[ERROR]} in state error, "
            f"{states[UNAVAILABLE]} unavailable, {states[INVALIDATED]} invalidated "
            "(invalidated tasks always count as error)"
        )
    if count == "total":
        return (
            f"total = evaluated {states[EVALUATED]} + unavailable "
            f"{states[ERROR] + states[UNAVAILABLE]} + invalidated {states[INVALIDATED]}"
        )
    if count == INVALIDATED:
        return "a FATAL issue in any recorded attempt invalidates the task in every series"
    return "evaluated tasks may still count as error (an ERROR issue or a missing attempt)"


def tasks_behind(
    rec: Recomputation,
    series_id: str | None,
    count: str,
    scope: Scope = SERIES_SCOPE,
) -> CountLedger:
    """The exact tasks behind one count of a series (or of one of its categories / nodes)."""
    series = series_of(rec, series_id)
    if count not in COUNTS:
        raise AuditError(f"unknown count {count!r}: expected one of {', '.join(COUNTS)}")
    counts = reported_counts(series, scope)
    reported = getattr(counts, count) if counts is not None else None
    if reductions_of(rec, series.series_id) is None:
        note = "no task reductions stand behind this series' counts"
        return CountLedger(series.series_id, count, scope, reported, (), note)
    tasks = tuple(
        t for t in scoped_tasks(rec, series.series_id, scope) if in_count(t.reduction, count)
    )
    return CountLedger(series.series_id, count, scope, reported, tasks, count_note(count, tasks))


def task_filter(
    rec: Recomputation,
    series_id: str | None,
    *,
    count: str | None = None,
    state: str | None = None,
    scope: Scope = SERIES_SCOPE,
) -> tuple[LedgerTask, ...]:
    """Tasks of a series in ``scope``, narrowed to a count and/or a state."""
    if count is not None:
        tasks = tasks_behind(rec, series_id, count, scope).tasks
    else:
        tasks = scoped_tasks(rec, series_id, scope)
    if state is not None:
        tasks = tuple(t for t in tasks if in_state(t.reduction, state))
    return tasks
