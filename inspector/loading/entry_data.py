"""A task entry as plain data and back, for the task cache and the reader processes.

:func:`encode_entry` turns a :class:`~inspector.results.tasks.TaskEntry` into tuples, dicts,
strings and numbers (what :mod:`marshal` stores and a pool passes cheaply); :func:`decode_entry`
takes such data apart again, checking every shape and type first (data from a cache file: a
malformed entry is a miss, never a task problem); :func:`trusted_entry` does the same
without the checks, for data this inspector's reader processes just made.
"""

from __future__ import annotations

from typing import Any

from inspector.engine.model import Attempt, Issue, TaskRecord
from inspector.results.problems import LoadProblem


def encode_entry(entry: Any) -> tuple[Any, ...]:
    """A TaskEntry as plain data (tuples, dicts, str, int, float, bool, None)."""
    record = entry.record
    encoded_record = None
    if record is not None:
        encoded_record = (
            record.task_id,
            record.category,
            record.plan_k,
            record.plan_strategy,
            tuple(
                (
                    a.index,
                    a.status,
                    dict(a.metrics),
                    tuple((i.severity, i.phase, i.code, i.message) for i in a.issues),
                    dict(a.scoring_artifacts),
                )
                for a in record.attempts.values()
            ),
            tuple(record.retry_counts.items()),
            record.ground_truth,
            record.source,
        )
    return (
        entry.task_id,
        entry.folder,
        entry.state,
        entry.published,
        encoded_record,
        tuple(entry.attempt_dirs.items()),
        tuple((p.path, p.message, p.rule, p.blocking) for p in entry.problems),
        entry.schema_version,
    )


_SHARED: dict[tuple[Any, ...], dict[str, Any]] = {}
_SHARED_MAX = 4096


def shared(mapping: dict[str, Any]) -> dict[str, Any]:
    """One object for equal small mappings of booleans (an attempt's ``{"correct": true}``,
    an empty ``scoring_artifacts``): a large run holds hundreds of thousands of them, and
    nothing changes an attempt's mappings once it is read. Only booleans: a key of values
    that compare equal across types (1, 1.0, True) or signs (0.0, -0.0) would mix them."""
    if len(mapping) > 4:
        return mapping
    for value in mapping.values():
        if type(value) is not bool:
            return mapping
    key = tuple(mapping.items())
    found = _SHARED.get(key)
    if found is None:
        if len(_SHARED) >= _SHARED_MAX:
            return mapping
        _SHARED[key] = found = mapping
    return found


def trusted_entry(data: tuple[Any, ...]) -> Any:
    """The TaskEntry :func:`encode_entry` made ``data`` from, without checking its shape:
    only for data this inspector's own reader processes just made (a cache file is
    checked: :func:`decode_entry`)."""
    from inspector.results.tasks import TaskEntry

    task_id, folder, state, published, rec, dirs, problems, schema = data
    record = None
    if rec is not None:
        tid, category, k, strategy, attempts, retries, truth, source = rec
        record = TaskRecord(
            task_id=tid,
            category=category,
            plan_k=k,
            plan_strategy=strategy,
            attempts={
                a[0]: Attempt(
                    a[0], a[1], shared(a[2]), tuple([Issue(*i) for i in a[3]]), shared(a[4])
                )
                for a in attempts
            },
            retry_counts=dict(retries),
            ground_truth=truth,
            source=source,
        )
    return TaskEntry(
        task_id=task_id,
        folder=folder,
        state=state,
        published=published,
        record=record,
        attempt_dirs=dict(dirs),
        problems=[LoadProblem(*p) for p in problems],
        schema_version=schema,
    )


def decode_entry(data: Any) -> Any:
    """The TaskEntry :func:`encode_entry` made ``data`` from, or None when ``data`` does not
    have that shape or those types (a cache file from elsewhere: a miss, never a problem)."""
    from inspector.results.tasks import TaskEntry

    try:
        task_id, folder, state, published, rec, dirs, problems, schema = data
        record = None if rec is None else _decode_record(rec)
        attempt_dirs = dict(dirs)
        load_problems = [LoadProblem(*p) for p in problems]
    except (TypeError, ValueError):
        return None
    if not (
        _optional_text(task_id)
        and type(folder) is str
        and state in STATES
        and type(published) is bool
        and (rec is None or record is not None)
        and all(type(k) is int and type(v) is str for k, v in attempt_dirs.items())
        and all(
            type(p.path) is str and type(p.rule) is str and type(p.blocking) is bool
            for p in load_problems
        )
        and _optional_text(schema)
    ):
        return None
    return TaskEntry(
        task_id=task_id,
        folder=folder,
        state=state,
        published=published,
        record=record,
        attempt_dirs=attempt_dirs,
        problems=load_problems,
        schema_version=schema,
    )


_OBSERVATIONS = (bool, int, float)
STATES = ("normal", "error", "fatal", "running", "v2")


def _decode_record(rec: Any) -> TaskRecord | None:
    tid, category, k, strategy, attempts, retries, truth, source = rec
    if not (type(tid) is str and type(k) is int and type(strategy) is str and type(source) is str):
        return None
    decoded = {}
    for index, status, metrics, issues, artifacts in attempts:
        if not (type(index) is int and type(status) is str and type(metrics) is dict):
            return None
        if type(artifacts) is not dict or type(issues) is not tuple:
            return None
        if not all(type(v) in _OBSERVATIONS and type(n) is str for n, v in metrics.items()):
            return None
        shaped = tuple(Issue(*i) for i in issues)
        if not all(type(getattr(i, f)) is str for i in shaped for f in Issue.__slots__):
            return None
        decoded[index] = Attempt(index, status, shared(metrics), shaped, shared(artifacts))
    retry_counts = dict(retries)
    if not all(type(a) is int and type(b) is int for a, b in retry_counts.items()):
        return None
    return TaskRecord(
        task_id=tid,
        category=category,
        plan_k=k,
        plan_strategy=strategy,
        attempts=decoded,
        retry_counts=retry_counts,
        ground_truth=truth,
        source=source,
    )


def _optional_text(value: Any) -> bool:
    return value is None or type(value) is str
