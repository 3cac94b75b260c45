"""The machine-readable rows of task reductions: ``inspector tasks --format csv|jsonl`` prints
them and ``inspector export`` writes them to files. Pure: no textual, no rich; values kept
exactly (JSON escapes control characters itself)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TextIO

from inspector.engine import strict_json
from inspector.engine.reduction import Reason
from inspector.views.audit import LedgerTask
from inspector.views.csv_cells import csv_writer


def write_task_rows(out: TextIO, fmt: str, tasks: Iterable[LedgerTask]) -> None:
    """The machine-readable task rows (``jsonl`` or ``csv``); ``inspector export`` writes
    the same rows to files."""
    if fmt == "jsonl":
        for task in tasks:
            out.write(strict_json.dumps(task_json(task), ensure_ascii=False, sort_keys=True) + "\n")
        return
    writer = csv_writer(out)
    writer.writerow(CSV_COLUMNS)
    writer.writerows(task_csv_row(task) for task in tasks)


CSV_COLUMNS = (
    "series_id", "task_id", "category", "state", "has_error", "value",
    "requested", "observed", "valid", "error_attempts", "missing_attempts",
    "invalidated", "early_stopped", "reason_codes", "reasons",
)  # fmt: skip


def _reason_json(reason: Reason) -> dict[str, Any]:
    issue = reason.issue
    return {
        "code": reason.code,
        "text": reason.text,
        "attempts": list(reason.attempts),
        "issue": None
        if issue is None
        else {"severity": issue.severity, "phase": issue.phase, "code": issue.code,
              "message": issue.message},
    }  # fmt: skip


def task_json(task: LedgerTask) -> dict[str, Any]:
    """One task reduction as a JSON object (one ``jsonl`` line)."""
    r = task.reduction
    return {
        "series_id": r.series_id,
        "task_id": task.task_id,
        "category": task.category,
        "state": r.state,
        "has_error": r.has_error,
        "value": r.value,
        "coverage": {
            "requested": r.coverage.requested,
            "observed": r.coverage.observed,
            "valid": r.coverage.valid,
            "error": r.coverage.error,
        },
        "missing_attempts": r.missing_attempts,
        "invalidated": r.invalidated,
        "early_stopped": r.early_stopped,
        "reasons": [_reason_json(reason) for reason in r.reasons],
    }


def task_csv_row(task: LedgerTask) -> list[Any]:
    r = task.reduction
    return [
        r.series_id, task.task_id, task.category, r.state, r.has_error,
        "" if r.value is None else r.value,  # a number (csv writes its repr): never escaped
        r.coverage.requested, r.coverage.observed, r.coverage.valid, r.coverage.error,
        r.missing_attempts, r.invalidated, r.early_stopped,
        " ".join(reason.code for reason in r.reasons), task.reason_text,
    ]  # fmt: skip
