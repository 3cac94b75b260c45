"""The rows of :mod:`inspector.api`'s tables: frozen dataclasses whose fields are the
columns of :mod:`inspector.export.run_tables` (lists as tuples)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class RunRow:
    """A row of ``runs``: one run and the plan it was scored with."""

    run_id: str
    k: int
    strategy: str
    aggregation: str
    derived: str | None
    evaluation_failed: bool
    tasks: int
    headline_series_id: str | None
    headline_value: float | None
    headline_reference_value: float | None
    path: str
    benchmark: str
    model: str


@dataclass(frozen=True, slots=True)
class SeriesRow:
    """A row of ``series``: a series (``scope == "series"``), one of its categories or one
    of its hierarchy nodes (``key``), with its value, counts and interval."""

    run_id: str
    series_id: str
    scope: str
    key: str | None
    metric_id: str
    kind: str
    reducer: str
    role: str
    aggregation: str
    k: int
    value: float | None
    reference_value: float | None
    total: int
    evaluated: int
    error: int
    unavailable: int
    invalidated: int
    estimate: float | None
    n: int
    se: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    df: float | None
    interval_method: str
    path: str
    benchmark: str
    model: str


@dataclass(frozen=True, slots=True)
class TaskRow:
    """A row of ``tasks``: one task's reduction in one series (``inspector tasks``)."""

    run_id: str
    series_id: str
    task_id: str
    category: str
    state: str
    has_error: bool
    value: float | None
    requested: int
    observed: int
    valid: int
    error_attempts: int
    missing_attempts: int
    invalidated: bool
    early_stopped: bool
    reason_codes: tuple[str, ...]
    reasons: str
    path: str
    benchmark: str
    model: str


@dataclass(frozen=True, slots=True)
class AttemptRow:
    """A row of ``attempts``: one terminal attempt of a task."""

    run_id: str
    task_id: str
    category: str | None
    attempt: int
    status: str
    primary_metric: str
    primary_value: float | None
    metrics_json: str
    issue_severities: tuple[str, ...]
    issue_phases: tuple[str, ...]
    issue_codes: tuple[str, ...]
    has_fatal: bool
    has_error_issue: bool
    retry_count: int
    path: str
    benchmark: str
    model: str


@dataclass(frozen=True, slots=True)
class IssueRow:
    """A row of ``issues``: one issue of a terminal attempt, its message as written."""

    run_id: str
    task_id: str
    attempt: int
    severity: str
    phase: str
    code: str
    message: str
    path: str
    benchmark: str
    model: str


@dataclass(frozen=True, slots=True)
class PassRow:
    """A row of ``pass_curves``: Chen et al.'s unbiased pass@j (``curve == "pass@"``) or
    pass^j (``"pass^"``) of a binary metric at ``j`` attempts of ``k``, with its interval
    (as ``inspector stats`` gives it)."""

    run_id: str
    metric_id: str
    curve: str
    j: int
    k: int
    tasks: int
    excluded: int
    estimate: float | None
    n: int
    se: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    df: float | None
    interval_method: str
    path: str
    benchmark: str
    model: str


ROW_TYPES: dict[str, type[Any]] = {
    "runs": RunRow, "series": SeriesRow, "tasks": TaskRow, "attempts": AttemptRow,
    "issues": IssueRow, "pass_curves": PassRow,
}  # fmt: skip
