"""The engine's input: tasks and attempts as the reader assembled them.

These are the *scoring* view of a published task (spec §2.1, §2.2): everything the engine
needs and nothing it does not (no trajectories, no artifacts). The reader builds them from
``task.json`` and ``attempt-N/result.json``; tests and the fuzzers build them directly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Metric observation values as they are on disk: JSON bool, int or finite float.
Observation = bool | int | float

SEVERITIES = ("fatal", "error", "warning")
PHASES = ("setup", "run", "collect", "evaluate", "cleanup")
STATUSES = (
    "completed",
    "skipped",
    "run_error",
    "eval_error",
    "run_error_or_eval_error",
    "cancelled",
    "interrupted",
)
# Statuses after which the pass strategy does not stop (spec §6.3 step 4).
NOT_COMPLETED_STATUSES = frozenset({"cancelled", "interrupted", "skipped"})


@dataclass(frozen=True, slots=True)
class Issue:
    """One ExecutionIssue of an attempt (spec §3)."""

    severity: str
    phase: str
    code: str
    message: str

    @property
    def is_fatal(self) -> bool:
        return self.severity == "fatal"

    @property
    def is_error(self) -> bool:
        """True for FATAL and ERROR: the issues that count in ``coverage.error``."""
        return self.severity in ("fatal", "error")


@dataclass(frozen=True, slots=True)
class Attempt:
    """The scoring part of one attempt payload (spec §2.2)."""

    index: int
    status: str
    metrics: Mapping[str, Observation]
    issues: tuple[Issue, ...] = ()
    # Benchmark-specific values some corpus formulas read (e.g. gdpval_ac's artifacts).
    scoring_artifacts: Mapping[str, Any] = field(default_factory=dict)

    @property
    def has_fatal(self) -> bool:
        return any(issue.is_fatal for issue in self.issues)

    @property
    def has_error_issue(self) -> bool:
        return any(issue.is_error for issue in self.issues)


class _OnDisk:
    """The ``ground_truth`` of a task read from a run: not held (it can be any JSON value,
    often the largest part of a task; nothing scores it), read again from the task's
    ``task.json`` (its ``source``) where it is shown or exported
    (:func:`inspector.results.lazy.ground_truth`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ON_DISK"

    def __reduce__(self) -> str:
        return "ON_DISK"  # one object, also across processes


ON_DISK = _OnDisk()


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """One published task, assembled from its index and its attempts (spec §2.1).

    ``category`` is the raw JSON value (``None`` when absent or empty); the engine derives
    the category key from it. ``attempts`` holds the attempts that have a terminal payload;
    retry-only attempts appear only in ``retry_counts`` (spec §10 item 32).
    """

    task_id: str
    category: Any
    plan_k: int
    plan_strategy: str
    attempts: Mapping[int, Attempt]
    retry_counts: Mapping[int, int] = field(default_factory=dict)
    ground_truth: Any = None  # ON_DISK when read from a run: see _OnDisk
    # Where the task came from, relative to the run directory (its task.json).
    source: str = ""

    @property
    def retry_count(self) -> int:
        return sum(self.retry_counts.values())


# Most attempts of a large run are alike (the same index, status and observations, no
# issue, no artifacts), and so are most tasks' attempt mappings: kept once each, as they
# are immutable, instead of once per task (435 bytes a task of three attempts). At most
# _ALIKE_MAX of each are kept, and never let go, so that an object's id stays its own.
_ALIKE_MAX = 4096
_ATTEMPTS: dict[tuple[object, ...], Attempt] = {}
_MAPPINGS: dict[tuple[int, ...], Mapping[int, Attempt]] = {}
NO_RETRIES: Mapping[int, int] = {}
"""The retry counts of a task with none (shared: never changed)."""


def alike_attempt(attempt: Attempt) -> Attempt:
    """The one kept attempt equal to ``attempt`` (its values of the same types), else
    ``attempt``: one with issues or artifacts, or an observation that is a float zero or
    NaN (equal to others that are written apart, or to none), is not shared."""
    found = _kept_attempt(attempt)
    return attempt if found is None else found


def observed_key(key: list[object], metrics: Mapping[str, Observation]) -> list[object] | None:
    """``key`` with each observation added as ``(name, type, value)`` (``True``, ``1`` and
    ``1.0`` are equal but differ), or None when one cannot be told apart by equality: a
    float zero (``-0.0 == 0.0`` but is written apart), NaN (never equal), not a number."""
    for name, value in metrics.items():
        kind = type(value)
        if kind is float:
            if not value or value != value:
                return None
        elif kind is not bool and kind is not int:
            return None
        key += (name, kind, value)
    return key


def _kept_attempt(attempt: Attempt) -> Attempt | None:
    if attempt.issues or attempt.scoring_artifacts:
        return None
    key = observed_key([attempt.index, attempt.status], attempt.metrics)
    if key is None:
        return None
    found = _ATTEMPTS.get(tuple(key))
    if found is None and len(_ATTEMPTS) < _ALIKE_MAX:
        found = _ATTEMPTS[tuple(key)] = attempt
    return found


def alike_attempts(attempts: dict[int, Attempt]) -> Mapping[int, Attempt]:
    """``attempts`` (number -> attempt, in order: a new dict, given up by the caller)
    with each attempt shared (:func:`alike_attempt`), and the mapping itself shared when
    all of them are."""
    key: list[int] = []
    for number, attempt in attempts.items():
        found = _kept_attempt(attempt)
        if found is None:
            return {n: alike_attempt(a) for n, a in attempts.items()}
        attempts[number] = found
        key += (number, id(found))
    mapping = _MAPPINGS.get(tuple(key))
    if mapping is None:
        if len(_MAPPINGS) >= _ALIKE_MAX:
            return attempts
        mapping = _MAPPINGS[tuple(key)] = attempts
    return mapping
