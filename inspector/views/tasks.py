"""What the screens show, picked (never computed) from one :class:`Recomputation`.

Every number here is read from the engine's report and task reductions. Which tasks stand
behind a count is decided by :mod:`inspector.views.audit` (the count ledger) — this module only
turns its tasks into table rows, applies the remaining filters and sorts. It imports
neither textual nor rich.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from inspector.engine.model import SEVERITIES, TaskRecord
from inspector.engine.recomputation import Recomputation
from inspector.engine.reduction import TaskReduction
from inspector.engine.render import format_value
from inspector.engine.vocabulary import ERROR, EVALUATED, INVALIDATED, UNAVAILABLE, Count
from inspector.views import audit
from inspector.views.audit import EVERY_TASK, InCount, InState, TaskSet
from inspector.views.outcomes import attempt_marks, reduction_words

# What each count of a series means, in one line (spec §6.4, §10 items 1–3).
COUNT_MEANINGS: dict[Count, str] = {
    "total": "every task passed to aggregation, whatever its state",
    "evaluated": "tasks in state evaluated",
    "error": "tasks with has_error: an ERROR/FATAL issue or a missing attempt — overlaps the other counts",
    "unavailable": "tasks in state error or state unavailable (it includes error-state tasks)",
    "invalidated": "tasks with a FATAL issue in some attempt",
}

COUNTS_NOTE = (
    "total = evaluated + unavailable + invalidated.  “unavailable” includes error-state tasks; "
    "“error” counts tasks with an ERROR/FATAL issue or a missing attempt and overlaps the "
    "other counts, so evaluated + error can exceed total (AgentCompass counts them so)."
)

COUNTS_NOTE_SHORT = "total = evaluated + unavailable + invalidated · “error” overlaps them (see ?)"
"""The counts note on a screen narrower than 120 columns."""

STATE_FILTERS: tuple[tuple[TaskSet, str], ...] = (
    (InCount(EVALUATED), "evaluated"),
    (InCount(ERROR), "count: error"),
    (InCount(UNAVAILABLE), "count: unavailable"),
    (InCount(INVALIDATED), "invalidated"),
    (InState(ERROR), "state: error"),
    (InState(UNAVAILABLE), "state: unavailable"),
)
"""The state filter's choices with their labels: a count (``unavailable`` includes state error)
or a single reduction state."""

SEVERITY_RANK = {severity: rank for rank, severity in enumerate(reversed(SEVERITIES), start=1)}
"""warning < error < fatal."""


@dataclass(frozen=True, slots=True)
class TaskRow:
    """One task as the tasks table shows it, for one series."""

    index: int
    task_id: str
    category: str
    state: str
    value: float | None
    has_error: bool
    attempts: int
    k: int
    severity: str | None
    retries: int
    issue_keys: frozenset[tuple[str, str, str]]
    reduction: TaskReduction
    marks: str = ""
    """One mark per attempt: ✓ passed, ✗ failed, · not run, ! error (:mod:`.outcomes`)."""
    words: str = ""
    """The reduction in words: ``mean(0, 1, 1) = 0.6667``, or why there is no value."""

    @property
    def attempts_text(self) -> str:
        return f"{self.attempts}/{self.k}"


@dataclass(frozen=True)
class TaskFilter:
    """Which tasks the tasks screen lists.

    ``state`` is a count or a state (:data:`STATE_FILTERS`; None or ``InCount("total")``: all);
    ``categories`` the category keys (None for all); ``category_label`` names the category or
    hierarchy node they came from. ``task_ids`` narrows to a set of tasks picked elsewhere
    (the tasks behind a retry pattern), named by ``task_ids_label``.
    """

    series_id: str
    state: TaskSet | None = None
    categories: frozenset[str] | None = None
    category_label: str | None = None
    severity: str | None = None
    phase: str | None = None
    code: str | None = None
    text: str = ""
    task_ids: frozenset[str] | None = None
    task_ids_label: str | None = None

    def with_changes(self, **changes: object) -> TaskFilter:
        return replace(self, **changes)  # type: ignore[arg-type]

    def describe(self) -> str:
        """One line naming every active part of the filter."""
        parts = [self.series_id]
        if self.state is not None and self.state != EVERY_TASK:
            parts.append(self.state.words)
        if self.category_label is not None:
            parts.append(f"category {self.category_label}")
        for label, value in (
            ("severity", self.severity),
            ("phase", self.phase),
            ("code", self.code),
        ):
            if value:
                parts.append(f"{label} {value}")
        if self.task_ids is not None:
            parts.append(f"tasks of {self.task_ids_label or 'a selection'}")
        if self.text:
            parts.append(f"text “{self.text}”")
        return " · ".join(parts)


def highest_severity(task: TaskRecord) -> str | None:
    """The most severe issue of any attempt of the task (fatal > error > warning)."""
    best: str | None = None
    for attempt in task.attempts.values():
        for issue in attempt.issues:
            if best is None or SEVERITY_RANK.get(issue.severity, 0) > SEVERITY_RANK.get(best, 0):
                best = issue.severity
    return best


NO_ISSUES: frozenset[tuple[str, str, str]] = frozenset()


def task_rows(recomputation: Recomputation, series_id: str) -> list[TaskRow]:
    """One row per recomputed task for ``series_id``, in the engine's task order.

    The tasks, their category keys (as the series' breakdown groups them) and their
    reductions come from :func:`inspector.views.audit.scoped_tasks`.
    """
    k = recomputation.plan.k
    tasks = recomputation.tasks
    series = audit.series_of(recomputation, series_id)
    metric_id = series.metric_id

    def shown(value: float | None) -> str:
        return format_value(value, series)

    rows = []
    # One copy of each marks / words text and issue set: the same few recur in many tasks.
    texts: dict[str, str] = {}
    issue_sets: dict[frozenset[tuple[str, str, str]], frozenset[tuple[str, str, str]]] = {}
    for index, entry in enumerate(audit.scoped_tasks(recomputation, series_id)):
        task = tasks[index]
        issue_keys = [
            (issue.severity, issue.phase, issue.code)
            for attempt in task.attempts.values()
            for issue in attempt.issues
        ]
        rows.append(
            TaskRow(
                index=index,
                task_id=entry.task_id,
                category=entry.category,
                state=entry.state,
                value=entry.value,
                has_error=entry.has_error,
                attempts=len(task.attempts),
                k=k,
                severity=highest_severity(task) if issue_keys else None,
                retries=task.retry_count,
                issue_keys=issue_sets.setdefault(keys := frozenset(issue_keys), keys)
                if issue_keys
                else NO_ISSUES,
                reduction=entry.reduction,
                marks=texts.setdefault(marks := attempt_marks(task, k, metric_id), marks),
                words=texts.setdefault(
                    words := reduction_words(task, entry.reduction, series, shown), words
                ),
            )
        )
    return rows


def in_set(row: TaskRow, which: TaskSet | None) -> bool:
    """True when the row belongs to the count or state ``which`` (None: every row), by the
    ledger's rules (:func:`inspector.views.audit.holds`)."""
    return which is None or audit.holds(row.reduction, which)


def matches(row: TaskRow, task_filter: TaskFilter) -> bool:
    """True when ``row`` passes every part of ``task_filter``."""
    if not in_set(row, task_filter.state):
        return False
    if task_filter.categories is not None and row.category not in task_filter.categories:
        return False
    if task_filter.task_ids is not None and row.task_id not in task_filter.task_ids:
        return False
    if (task_filter.severity or task_filter.phase or task_filter.code) and not any(
        (not task_filter.severity or severity == task_filter.severity)
        and (not task_filter.phase or phase == task_filter.phase)
        and (not task_filter.code or code == task_filter.code)
        for severity, phase, code in row.issue_keys
    ):
        return False
    return not task_filter.text or task_filter.text.casefold() in searched_text(row)


def searched_text(row: TaskRow) -> str:
    """What the text filter looks in, casefolded: the task id, its category, its reduction
    in words (why it has no value) and its issue codes, one per line."""
    codes = sorted({code for _, _, code in row.issue_keys})
    return "\n".join((row.task_id, row.category, row.words, *codes)).casefold()


def filter_rows(rows: Iterable[TaskRow], task_filter: TaskFilter) -> list[TaskRow]:
    return [row for row in rows if matches(row, task_filter)]


_STATE_ORDER = {EVALUATED: 0, UNAVAILABLE: 1, ERROR: 2, INVALIDATED: 3}

_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key that orders the digit runs of ``text`` as numbers: ``task-5`` before
    ``task-13`` (text order puts 13, 20, 25, 39 before 5 and 7). Case is ignored, then
    kept as the tie-break."""
    parts: list[tuple[int, int | str]] = []
    for index, part in enumerate(_DIGITS.split(text)):
        if index % 2:
            parts.append((0, int(part)))
        elif part:
            parts.append((1, part.casefold()))
    parts.append((-1, text))
    return tuple(parts)


TEXT_COLUMNS = {"task": "task_id", "category": "category", "reduction": "words"}
"""The columns sorted by :func:`natural_key` of a row's text: which attribute."""


def sort_value(row: TaskRow, column: str) -> object:
    """What ``column`` sorts ``row`` by (None: a missing value)."""
    if column in TEXT_COLUMNS:
        return natural_key(getattr(row, TEXT_COLUMNS[column]))
    if column == "state":
        return _STATE_ORDER.get(row.state, 9)
    if column == "value":
        return row.value
    if column == "error":
        return row.has_error
    if column == "attempts":
        return row.attempts
    if column == "outcomes":
        return row.marks
    if column == "severity":
        return SEVERITY_RANK.get(row.severity or "", 0)
    if column == "retries":
        return row.retries
    return row.index


def sorted_positions(values: Sequence[object], reverse: bool = False) -> list[int]:
    """Positions of ``values`` in sorted order: missing (None) last, ties in their order."""
    present = [i for i, value in enumerate(values) if value is not None]
    present.sort(key=values.__getitem__, reverse=reverse)  # type: ignore[arg-type]
    return present + [i for i, value in enumerate(values) if value is None]


def sort_rows(rows: Sequence[TaskRow], column: str, reverse: bool = False) -> list[TaskRow]:
    """Rows sorted by a column; missing values always last."""
    values = [sort_value(row, column) for row in rows]
    return [rows[i] for i in sorted_positions(values, reverse)]


@dataclass(frozen=True)
class IssueChoices:
    """The severities, phases and codes that occur in a run (filter options)."""

    severities: tuple[str, ...] = ()
    phases: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    categories: tuple[str, ...] = field(default=())


def issue_choices(recomputation: Recomputation) -> IssueChoices:
    keys = {
        (issue.severity, issue.phase, issue.code)
        for task in recomputation.tasks
        for attempt in task.attempts.values()
        for issue in attempt.issues
    }
    return IssueChoices(
        severities=tuple(s for s in SEVERITIES if any(k[0] == s for k in keys)),
        phases=tuple(sorted({k[1] for k in keys})),
        codes=tuple(sorted({k[2] for k in keys})),
        categories=tuple(sorted(set(recomputation.category_keys))),
    )


def series_values(recomputation: Recomputation, series_id: str) -> list[float]:
    """The evaluated task values of a series, as the engine reduced them."""
    return [r.value for r in recomputation.reductions[series_id] if r.value is not None]


@dataclass(frozen=True, slots=True)
class PlanChoice:
    """A what-if plan the run's attempts can be re-read under (see ``inspector.engine.whatif``)."""

    k: int
    strategy: str
    label: str
    hint: str


def plan_choices(k: int, strategy: str) -> list[PlanChoice]:
    """The derived plans of a run scored ``strategy@k``: k=1, then avg@j / pass@j for j < k,
    then the other strategy at k. The stored plan itself is not a choice."""
    if k < 2:
        return []
    other = "pass" if strategy == "avg" else "avg"
    out = [PlanChoice(1, strategy, "k=1", "attempt 1 only")]
    for j in range(2, k):
        out.append(PlanChoice(j, "avg", f"avg@{j}", f"attempts 1..{j}, mean of the metric"))
        out.append(PlanChoice(j, "pass", f"pass@{j}", f"attempts 1..{j}, up to the first success"))
    out.append(PlanChoice(k, other, f"{other}@{k}", f"all {k} attempts under {other}"))
    if strategy == "pass":
        # Attempts skipped after an early success were never run (spec §6.3).
        out = [
            replace(choice, hint=f"{choice.hint} · not equivalent")
            if choice.strategy == "avg" and choice.k > 1
            else choice
            for choice in out
        ]
    return out
