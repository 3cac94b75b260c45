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
from inspector.results.layout import AttemptDirs
from inspector.results.problems import LoadProblem


def encode_entry(entry: Any) -> tuple[Any, ...]:
    """A TaskEntry as plain data (tuples, dicts, str, int, float, bool, None).

    Equal small mappings are one object (:func:`shared`): :mod:`marshal` writes each once
    and the others as references, and one marshal string taken apart gives one object for
    all of them again (a reader process's chunk: :func:`trusted_entry` keeps them)."""
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
                    shared(_as_dict(a.metrics)),
                    tuple((i.severity, i.phase, i.code, i.message) for i in a.issues),
                    shared(_as_dict(a.scoring_artifacts)),
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
        _dirs(entry.attempt_dirs),
        tuple((p.path, p.message, p.rule, p.blocking) for p in entry.problems),
        entry.schema_version,
    )


def _dirs(attempt_dirs: Any) -> tuple[Any, ...]:
    """An entry's attempt folders: their numbers when they are the usual ``attempt-N`` of
    the task folder (:class:`~inspector.results.layout.AttemptDirs`), else the items."""
    if type(attempt_dirs) is AttemptDirs:
        return attempt_dirs.numbers
    return tuple(attempt_dirs.items())


def _undirs(folder: str, dirs: tuple[Any, ...]) -> Any:
    """:func:`_dirs` taken apart (numbers alone, or pairs)."""
    if not dirs or type(dirs[0]) is int:
        return AttemptDirs(folder, dirs)
    return dict(dirs)


def _as_dict(mapping: Any) -> dict[str, Any]:
    """``mapping`` itself when it is a dict (nothing changes an attempt's mappings once it
    is read), else a dict of it."""
    return mapping if type(mapping) is dict else dict(mapping)


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


def trusted_entry(data: tuple[Any, ...], folder: str | None = None) -> Any:
    """The TaskEntry :func:`encode_entry` made ``data`` from, without checking its shape:
    only for data this inspector's own reader processes just made (a cache file is
    checked: :func:`decode_entry`). Its small mappings are shared already (one object per
    chunk: :func:`encode_entry`). ``folder``, when given, is the folder string the entry
    was asked for (equal to the one sent back): the entry keeps that one object and the
    copy that came through the pipe is freed with the chunk."""
    # results.tasks (the reader's validation, the v2 layout): when an entry is made; a
    # report answered from the cache loads this module (through the task cache) and makes none.
    from inspector.results.tasks import TaskEntry

    task_id, sent, state, published, rec, dirs, problems, schema = data
    if folder is None:
        folder = sent
    record = None
    if rec is not None:
        tid, category, k, strategy, attempts, retries, truth, source = rec
        # Positional, in field order: keywords cost a tenth of a decode on large runs.
        record = TaskRecord(
            tid,
            category,
            k,
            strategy,
            {
                a[0]: Attempt(
                    a[0], a[1], a[2], tuple([Issue(*i) for i in a[3]]) if a[3] else (), a[4]
                )
                for a in attempts
            },
            dict(retries),
            truth,
            source,
        )
    return TaskEntry(
        task_id,
        folder,
        state,
        published,
        record,
        _undirs(folder, dirs),
        [LoadProblem(*p) for p in problems] if problems else [],
        schema,
    )


def decode_entry(data: Any) -> Any:
    """The TaskEntry :func:`encode_entry` made ``data`` from, or None when ``data`` does not
    have that shape or those types (a cache file from elsewhere: a miss, never a problem).

    Every entry of a reopened run passes through here: the checks are written out as
    plain loops, and an attempt's issues (nearly always none) are only looked into when
    there are some."""
    from inspector.results.tasks import TaskEntry  # when an entry is made: see trusted_entry

    try:
        task_id, folder, state, published, rec, dirs, problems, schema = data
        record = None if rec is None else _decode_record(rec)
        if type(folder) is not str or type(dirs) is not tuple:
            return None
        attempt_dirs = _undirs(folder, dirs)
        load_problems = [LoadProblem(*p) for p in problems]
    except (TypeError, ValueError):
        return None
    if not (
        (task_id is None or type(task_id) is str)
        and type(folder) is str
        and state in STATES
        and type(published) is bool
        and (rec is None or record is not None)
        and (schema is None or type(schema) is str)
    ):
        return None
    if type(attempt_dirs) is dict:
        for number, name in attempt_dirs.items():
            if type(number) is not int or type(name) is not str:
                return None
    elif any(type(number) is not int for number in dirs):
        return None
    for p in load_problems:
        if not (type(p.path) is str and type(p.rule) is str and type(p.blocking) is bool):
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
_ISSUE_FIELDS = Issue.__slots__


def _decode_record(rec: Any) -> TaskRecord | None:
    tid, category, k, strategy, attempts, retries, truth, source = rec
    if not (type(tid) is str and type(k) is int and type(strategy) is str and type(source) is str):
        return None
    decoded = {}
    observations = _OBSERVATIONS
    for index, status, metrics, issues, artifacts in attempts:
        if not (type(index) is int and type(status) is str and type(metrics) is dict):
            return None
        if type(artifacts) is not dict or type(issues) is not tuple:
            return None
        for name, value in metrics.items():
            if type(value) not in observations or type(name) is not str:
                return None
        shaped: tuple[Issue, ...] = ()
        if issues:
            shaped = tuple([Issue(*i) for i in issues])
            for issue in shaped:
                for field in _ISSUE_FIELDS:
                    if type(getattr(issue, field)) is not str:
                        return None
        decoded[index] = Attempt(index, status, shared(metrics), shaped, shared(artifacts))
    retry_counts = dict(retries)
    for number, count in retry_counts.items():
        if type(number) is not int or type(count) is not int:
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
