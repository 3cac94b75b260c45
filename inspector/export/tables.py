"""Parquet tables of one recomputed run: per-task and per-attempt reductions (pyarrow); the
other three tables (``runs``, ``series``, ``issues``), and the ``benchmark`` and ``model``
columns that end every table, are :mod:`inspector.export.run_tables`'s.

``<run>.tasks.parquet`` — one row per series and task, the rows of
``inspector tasks RUN --series all --format jsonl`` flattened:

| column | type | meaning |
|---|---|---|
| run_id | string | ``run_info.run_id`` (else the folder name) |
| series_id | string | e.g. ``correct.avg@3`` |
| task_id | string | |
| category | string | the category key (``uncategorized`` when absent) |
| state | string | ``evaluated`` / ``error`` / ``unavailable`` / ``invalidated`` |
| has_error | bool | the flag behind the ``error`` count |
| value | float64, null | the task's value in this series (null when not evaluated) |
| requested, observed, valid, error_attempts | int64 | coverage of the k attempts |
| missing_attempts | int64 | |
| invalidated, early_stopped | bool | |
| reason_codes | list<string> | machine-readable reasons, in order |
| reasons | string | the reasons as text, ``; ``-separated |

``<run>.attempts.parquet`` — one row per task and attempt with a terminal result:

| column | type | meaning |
|---|---|---|
| run_id, task_id, category | string | ``category`` as the task records it (null when absent) |
| attempt | int64 | the attempt number (1..k) |
| status | string | the attempt's status |
| primary_metric | string | the contract's primary metric id (``correct`` / ``score``) |
| primary_value | float64, null | that metric's observation (true = 1.0), null when absent |
| metrics_json | string | every metric observation, as JSON |
| issue_severities, issue_phases, issue_codes | list<string> | the attempt's issues, aligned |
| has_fatal, has_error_issue | bool | a FATAL issue; a FATAL or ERROR issue |
| retry_count | int64 | retries recorded for this attempt |

All five files are plain Parquet: ``pyarrow.parquet.read_table``, ``pandas.read_parquet`` and
DuckDB's ``read_parquet`` read them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import IO, Any

from inspector.engine import strict_json
from inspector.engine.recomputation import Recomputation


def task_rows(run_id: str, tasks: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Flatten ``tasks --format jsonl`` objects into Parquet rows."""
    rows = []
    for task in tasks:
        coverage = task["coverage"]
        rows.append({
            "run_id": run_id, "series_id": task["series_id"], "task_id": task["task_id"],
            "category": task["category"], "state": task["state"], "has_error": task["has_error"],
            "value": None if task["value"] is None else float(task["value"]),
            "requested": coverage["requested"], "observed": coverage["observed"],
            "valid": coverage["valid"], "error_attempts": coverage["error"],
            "missing_attempts": task["missing_attempts"], "invalidated": task["invalidated"],
            "early_stopped": task["early_stopped"],
            "reason_codes": [reason["code"] for reason in task["reasons"]],
            "reasons": "; ".join(reason["text"] for reason in task["reasons"]),
        })  # fmt: skip
    return rows


def attempt_rows(run_id: str, rec: Recomputation) -> list[dict[str, Any]]:
    primary = rec.plan.contract.primary_id
    rows = []
    for task in rec.tasks:
        for index in sorted(task.attempts):
            attempt = task.attempts[index]
            observed = attempt.metrics.get(primary)
            rows.append({
                "run_id": run_id, "task_id": task.task_id,
                "category": task.category if isinstance(task.category, str) else
                (None if task.category is None else strict_json.dumps(task.category)),
                "attempt": index, "status": attempt.status, "primary_metric": primary,
                "primary_value": None if observed is None else float(observed),
                "metrics_json": strict_json.dumps(dict(attempt.metrics), sort_keys=True),
                "issue_severities": [issue.severity for issue in attempt.issues],
                "issue_phases": [issue.phase for issue in attempt.issues],
                "issue_codes": [issue.code for issue in attempt.issues],
                "has_fatal": attempt.has_fatal, "has_error_issue": attempt.has_error_issue,
                "retry_count": task.retry_counts.get(index, 0),
            })  # fmt: skip
    return rows


def table_schemas() -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
    """The columns and pyarrow types of ``tasks`` and ``attempts`` (before the keys
    :data:`inspector.export.run_tables.KEYS`)."""
    import pyarrow as pa  # the optional parquet extra: Parquet only

    text, flag, count, number = pa.string(), pa.bool_(), pa.int64(), pa.float64()
    texts = pa.list_(pa.string())
    tasks = [
        ("run_id", text), ("series_id", text), ("task_id", text), ("category", text),
        ("state", text), ("has_error", flag), ("value", number), ("requested", count),
        ("observed", count), ("valid", count), ("error_attempts", count),
        ("missing_attempts", count), ("invalidated", flag), ("early_stopped", flag),
        ("reason_codes", texts), ("reasons", text),
    ]  # fmt: skip
    attempts = [
        ("run_id", text), ("task_id", text), ("category", text), ("attempt", count),
        ("status", text), ("primary_metric", text), ("primary_value", number),
        ("metrics_json", text), ("issue_severities", texts), ("issue_phases", texts),
        ("issue_codes", texts), ("has_fatal", flag), ("has_error_issue", flag),
        ("retry_count", count),
    ]  # fmt: skip
    return tasks, attempts


def import_pyarrow() -> None:
    """pyarrow, or the one line saying which extra brings it."""
    try:  # the optional parquet extra: only when Parquet is written
        import pyarrow  # noqa: F401
    except ImportError:
        raise ImportError(
            "Parquet export needs pyarrow: pip install 'agentcompass-inspector[parquet]'"
        ) from None


def write_parquet(out: IO[bytes], table: Any) -> None:
    """One pyarrow Table to the open binary file ``out``."""
    import pyarrow.parquet as pq

    pq.write_table(table, out)
