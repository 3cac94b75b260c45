"""Issue attribution and retries: which issues put which tasks into which counts (spec §3, §1.6).

Pure (no textual, no rich). The issue table reads the scored attempts and the task
reductions of one :class:`~inspector.engine.Recomputation`; retries come from the tasks'
``retry_counts`` and, when read, from the retry records (the only file access here is
:func:`load_retry_records`, through the reader's lazy loader).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from inspector.engine.model import TaskRecord
from inspector.engine.recomputation import Recomputation
from inspector.engine.reduction import TaskReduction
from inspector.results.lazy import list_retry_records
from inspector.results.problems import ResultFileError
from inspector.results.reader import Run
from inspector.views.audit import in_count, reductions_of, series_of

SEVERITY_ORDER = ("fatal", "error", "warning")
PHASE_ORDER = ("setup", "run", "collect", "evaluate", "cleanup")
EFFECTS = {
    "fatal": "invalidates the task in every series (counts invalidated and error)",
    "error": "counts the task as error; with no value the task is in state error (in unavailable)",
    "warning": "no effect on metrics, counts or state folders",
}


@dataclass(frozen=True, slots=True)
class IssueRow:
    """One severity × phase × code: who carries it and where it put their tasks."""

    severity: str
    phase: str
    code: str
    # (task id, attempt index) of every recorded attempt carrying it
    attempts: tuple[tuple[str, int], ...]
    task_ids: tuple[str, ...]
    # count name -> the carrying tasks in that count of the chosen series (empty for WARNING)
    pushed: Mapping[str, tuple[str, ...]]
    effect: str
    # Set on a row with no issue behind it: the engine's reason code (``missing_attempts``,
    # ...), and each task's reason text as the engine words it, aligned with ``task_ids``.
    reason: str | None = None
    reason_texts: tuple[str, ...] = ()


def _rank(value: str, order: Sequence[str]) -> tuple[int, str]:
    return (order.index(value) if value in order else len(order), value)


def issue_table(rec: Recomputation, series_id: str | None = None) -> tuple[IssueRow, ...]:
    """Issues of the scored attempts by severity × phase × code (spec §3, §6.3).

    ``pushed`` names, for the series (default: the summary series), the counts the
    carrying tasks are in: ``invalidated`` + ``error`` for FATAL; ``error`` and the task's
    state count for ERROR. WARNING issues push nothing.
    """
    series = series_of(rec, series_id)
    rows = reductions_of(rec, series.series_id)
    found: dict[tuple[str, str, str], dict[str, list[int]]] = {}
    position: dict[str, int] = {}
    for index, task in enumerate(rec.tasks):
        position[task.task_id] = index
        for attempt_index in sorted(task.attempts):
            issues = task.attempts[attempt_index].issues
            for key in dict.fromkeys((i.severity, i.phase, i.code) for i in issues):
                found.setdefault(key, {}).setdefault(task.task_id, []).append(attempt_index)
    out = []
    for key in sorted(
        found, key=lambda k: (_rank(k[0], SEVERITY_ORDER), _rank(k[1], PHASE_ORDER), k[2])
    ):
        severity, phase, code = key
        carriers = found[key]
        pushed: dict[str, tuple[str, ...]] = {}
        if rows is not None and severity != "warning":
            for count in ("invalidated", "error", "unavailable", "evaluated"):
                ids = tuple(t for t in carriers if in_count(rows[position[t]], count))
                if ids:
                    pushed[count] = ids
        out.append(
            IssueRow(
                severity=severity,
                phase=phase,
                code=code,
                attempts=tuple((t, i) for t, indices in carriers.items() for i in indices),
                task_ids=tuple(carriers),
                pushed=pushed,
                effect=EFFECTS.get(severity, "unknown severity"),
            )
        )
    return tuple(out)


def issue_totals(rows: Sequence[IssueRow]) -> tuple[int, int]:
    """(attempts, tasks) carrying at least one issue of ``rows``, each counted once.

    An attempt carrying two codes is in two rows; the screen's totals count it once.
    """
    attempts = {attempt for row in rows for attempt in row.attempts}
    return len(attempts), len({task_id for task_id, _ in attempts})


NO_ISSUE = "none"
RULE = "rule"
"""Severity and phase of a row whose tasks a count holds by one of the engine's rules."""

REASON_NAMES = {
    "missing_attempts": "missing attempt",
    "retry_only_attempts": "retry-only attempt",
    "early_stop_not_credited": "early stop not credited",
    "metric_not_observed": "metric not observed",
    "corpus_formula": "corpus formula inputs",
}
"""The engine's reasons that carry no issue (:class:`inspector.engine.reduction.Reason`)."""

REASON_EFFECTS = {
    "missing_attempts": "a required attempt is missing: the task counts as error",
    "retry_only_attempts": "the attempt left only a retry count, no result: it is missing",
    "early_stop_not_credited": "the pass early stop does not forgive the missing attempts",
    "metric_not_observed": (
        "an attempt with no issue recorded no value of the metric: the task has none "
        "(state unavailable, or error beside a missing attempt)"
    ),
    "corpus_formula": "the corpus formula's per-task inputs decide the task's state",
}


def unexplained_rows(rec: Recomputation, series_id: str | None = None) -> tuple[IssueRow, ...]:
    """The tasks in a count of the series that no issue put there, by the engine's reason.

    A task is listed when it is in ``error`` or ``unavailable`` and the engine gives a reason
    that carries no issue (a missing attempt, a metric no attempt observed, ...); ``attempts``
    are the attempts that reason names (the missing ones, for a missing attempt). A metric not
    observed on attempts that each carry an ERROR or FATAL issue is that issue's doing: the
    issue's row holds the task, not this one.
    """
    series = series_of(rec, series_id)
    rows = reductions_of(rec, series.series_id)
    if rows is None:
        return ()
    found: dict[str, dict[str, tuple[TaskReduction, str, tuple[int, ...]]]] = {}
    for task, reduction in zip(rec.tasks, rows, strict=True):
        if not (reduction.has_error or in_count(reduction, "unavailable")):
            continue
        for reason in reduction.reasons:
            if reason.code == "metric_not_observed" and _issue_explains(task, reason.attempts):
                continue
            if reason.issue is None and reason.code in REASON_NAMES:
                by_task = found.setdefault(reason.code, {})
                by_task.setdefault(reduction.task_id, (reduction, reason.text, reason.attempts))
    out = []
    for code in (c for c in REASON_NAMES if c in found):
        by_task = found[code]
        pushed = {
            count: ids
            for count in ("invalidated", "error", "unavailable", "evaluated")
            if (ids := tuple(t for t, (r, _, _) in by_task.items() if in_count(r, count)))
        }
        out.append(
            IssueRow(
                severity=NO_ISSUE,
                phase=RULE,
                code=REASON_NAMES[code],
                attempts=tuple((t, i) for t, (_, _, indices) in by_task.items() for i in indices),
                task_ids=tuple(by_task),
                pushed=pushed,
                effect=REASON_EFFECTS[code],
                reason=code,
                reason_texts=tuple(text for _, text, _ in by_task.values()),
            )
        )
    return tuple(out)


def _issue_explains(task: TaskRecord, attempts: tuple[int, ...]) -> bool:
    """Whether every one of ``attempts`` is recorded with an ERROR or FATAL issue."""
    return bool(attempts) and all(
        index in task.attempts
        and any(i.severity in ("error", "fatal") for i in task.attempts[index].issues)
        for index in attempts
    )


def counted_with_no_issue(rows: Sequence[IssueRow]) -> tuple[str, ...]:
    """The tasks of the rule rows (severity ``none``) that no ERROR or FATAL row carries."""
    carried = {t for row in rows if row.severity in ("error", "fatal") for t in row.task_ids}
    ruled = (t for row in rows if row.severity == NO_ISSUE for t in row.task_ids)
    return tuple(dict.fromkeys(t for t in ruled if t not in carried))


# -- retries -----------------------------------------------------------------------------

RETRY_NOTE_NO_RECORDS = (
    "retry records (attempt-N/retries/*.json) were not read: stage, scope and matched "
    "pattern are unknown; retry counts come from each result.json's retry_count"
)


@dataclass(frozen=True, slots=True)
class RetryRow:
    """Retry records with one stage, scope and matched pattern (spec §1.6)."""

    stage: str
    scope: str
    matched_pattern: str
    records: int
    attempts: tuple[tuple[str, int], ...]
    task_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RetrySummary:
    """Retries of the scored tasks: counts from result.json, patterns from retry records."""

    total: int
    # (task id, attempt index, retry count) for every attempt with retries
    by_attempt: tuple[tuple[str, int, int], ...]
    # attempts that left only a retry count and no result (spec §10 item 32)
    retry_only: tuple[tuple[str, int], ...]
    rows: tuple[RetryRow, ...]
    records_read: bool
    notes: tuple[str, ...]
    # archived earlier executions (retries/<hex>/ folders), per (task id, attempt)
    archives: tuple[tuple[str, int], ...] = ()

    @property
    def task_ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t for t, _, _ in self.by_attempt))


RetryRecordLike = Mapping[str, object] | object
"""A parsed retry record (a mapping) or the reader's ``inspector.results.lazy.RetryRecord``."""


def _field(record: RetryRecordLike, name: str) -> object:
    if isinstance(record, Mapping):
        return record.get(name)
    return getattr(record, name, None)


def load_retry_records(run: Run, tasks: Sequence[TaskRecord]) -> dict[str, list[object]]:
    """The retry records of every scored task, through the reader's lazy loader.

    Reading is read-only and per task folder (``attempt-N/retries/``); a record that cannot
    be read comes back with its ``problem`` set and is reported by :func:`retry_summary`.
    """
    out: dict[str, list[object]] = {}
    for task in tasks:
        entry = run.entry_for(task.task_id)
        if entry is None:
            continue
        try:
            records = list_retry_records(run, entry)
        except ResultFileError:
            continue
        if records:
            out[task.task_id] = list(records)
    return out


def retry_summary(
    tasks: Sequence[TaskRecord],
    records: Mapping[str, Sequence[RetryRecordLike]] | None = None,
) -> RetrySummary:
    """Retries by attempt, and by stage × scope × matched pattern when records are given.

    Args:
        tasks: The scored tasks (their ``retry_counts``).
        records: Retry records per task id — from :func:`load_retry_records`, or parsed
            ``attempt-N/retries/*.json`` mappings (``stage``, ``scope``, ``matched_pattern``,
            ``attempt``); None when they were not read.
    """
    by_attempt = tuple(
        (t.task_id, i, n) for t in tasks for i, n in sorted(t.retry_counts.items()) if n
    )
    retry_only = tuple(
        (t.task_id, i)
        for t in tasks
        for i, n in sorted(t.retry_counts.items())
        if n and i not in t.attempts
    )
    total = sum(n for _, _, n in by_attempt)
    if records is None:
        said = (RETRY_NOTE_NO_RECORDS,) if total else ()
        return RetrySummary(total, by_attempt, retry_only, (), False, said)
    grouped: dict[tuple[str, str, str], list[tuple[str, int]]] = {}
    seen: dict[tuple[str, int], int] = {}
    archives: list[tuple[str, int]] = []
    notes: list[str] = []
    for task_id, items in records.items():
        for record in items:
            attempt = _field(record, "attempt")
            index = attempt if isinstance(attempt, int) and not isinstance(attempt, bool) else 0
            if _field(record, "kind") == "archive":
                archives.append((task_id, index))
                continue
            problem = _field(record, "problem")
            if problem is not None:
                notes.append(f"{task_id}: unreadable retry record {_field(record, 'path')}")
            stage, scope, pattern = (
                str(_field(record, f) or "?") for f in ("stage", "scope", "matched_pattern")
            )
            grouped.setdefault((stage, scope, pattern), []).append((task_id, index))
            seen[(task_id, index)] = seen.get((task_id, index), 0) + 1
    rows = tuple(
        RetryRow(
            stage=stage,
            scope=scope,
            matched_pattern=pattern,
            records=len(items),
            attempts=tuple(dict.fromkeys(items)),
            task_ids=tuple(dict.fromkeys(t for t, _ in items)),
        )
        for (stage, scope, pattern), items in sorted(grouped.items())
    )
    counted = {(t, i): n for t, i, n in by_attempt}
    for task_id, index in sorted(set(counted) | set(seen)):
        told, found = counted.get((task_id, index), 0), seen.get((task_id, index), 0)
        if told != found:
            notes.append(f"{task_id} attempt {index}: retry_count {told} but {found} retry records")
    return RetrySummary(total, by_attempt, retry_only, rows, True, tuple(notes), tuple(archives))
