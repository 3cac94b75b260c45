"""Per-task reductions kept for the next read (issue 11).

Reducing a task (coverage, early stop, state, reasons) is a pure function of its scoring
record and the plan. After a run is read, each task's reductions under the plan it was
scored with are stored in the task cache with the task's entry
(:mod:`inspector.loading.task_cache`), so they are used exactly when the entry is: when
none of the task's files changed. Only the tasks whose files changed are reduced again, so
reopening after N changed folders costs N tasks' reduction, not the whole run's.

The plan is part of the key (its contract, k and strategy) and so is the inspector's own
code (:func:`~inspector.loading.report_cache.code_signature`): reductions made by other
code or for another plan are never reused. Everything taken from the cache is checked
before use; anything else is a miss, and the task is reduced as usual.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from inspector.engine.model import Issue, TaskRecord
from inspector.engine.reduction import Coverage, Reason, TaskReduction
from inspector.engine.reduction_stream import ReductionStream
from inspector.engine.vocabulary import STATES
from inspector.loading import task_cache
from inspector.loading.cache_files import code_signature

FORMAT = 1
_VALUES = (float, int)


def plan_key(stream: ReductionStream) -> str:
    """The plan a stream reduces under and the code that reduces, as one key."""
    contract, k, strategy = stream.key
    text = repr((code_signature(), list(contract.metrics.items()), k, strategy))
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def encode(reductions: Sequence[TaskReduction]) -> tuple[Any, ...]:
    """One task's reductions (one per series, in order) as plain data."""
    return tuple(
        (
            r.value,
            r.state,
            r.has_error,
            (r.coverage.requested, r.coverage.observed, r.coverage.valid, r.coverage.error),
            r.missing_attempts,
            r.invalidated,
            r.early_stopped,
            tuple(
                (
                    reason.code,
                    reason.text,
                    reason.attempts,
                    None
                    if reason.issue is None
                    else (
                        reason.issue.severity,
                        reason.issue.phase,
                        reason.issue.code,
                        reason.issue.message,
                    ),
                )
                for reason in r.reasons
            ),
        )
        for r in reductions
    )


class Decoder:
    """Takes stored reductions apart (:meth:`decode`), checking them before use.

    Coverages and reason lists repeat across tasks (most tasks of a run share a handful):
    each distinct one is checked and made once and then shared, as they are immutable.
    """

    def __init__(self, series: Sequence[str]) -> None:
        self.series = tuple(series)
        self.coverages: dict[Any, Coverage] = {}
        self.reasons: dict[Any, tuple[Reason, ...]] = {(): ()}

    def decode(self, data: Any, task_id: str) -> list[TaskReduction] | None:
        """The reductions :func:`encode` made ``data`` from, or None when ``data`` does not
        have that shape and those types (a miss)."""
        series = self.series
        if type(data) is not tuple or len(data) != len(series):
            return None
        coverages, known_reasons = self.coverages, self.reasons
        out = []
        try:
            for series_id, item in zip(series, data, strict=True):
                value, state, has_error, coverage, missing, invalidated, early, reasons = item
                if not (
                    (value is None or type(value) in _VALUES)
                    and type(state) is str
                    and state in STATES
                    and type(has_error) is bool
                    and type(invalidated) is bool
                    and type(early) is bool
                    and type(missing) is int
                ):
                    return None
                shared = coverages.get(coverage)
                if shared is None:
                    shared = _coverage(coverage)
                    coverages[coverage] = shared
                told = known_reasons.get(reasons)
                if told is None:
                    told = _reasons(reasons)
                    known_reasons[reasons] = told
                out.append(
                    TaskReduction(
                        task_id,
                        series_id,
                        value,
                        state,
                        has_error,
                        shared,
                        missing,
                        invalidated,
                        early,
                        told,
                    )
                )
        except (TypeError, ValueError):  # not a tuple of that length; unhashable
            return None
        return out


def _coverage(data: Any) -> Coverage:
    if type(data) is not tuple or len(data) != 4 or not all(type(n) is int for n in data):
        raise TypeError("not a coverage")
    return Coverage(*data)


def _reasons(data: Any) -> tuple[Reason, ...]:
    if type(data) is not tuple:
        raise TypeError("not reasons")
    return tuple([_reason(reason) for reason in data])


def _reason(data: Any) -> Reason:
    code, text, attempts, issue = data
    if not (
        type(code) is str
        and type(text) is str
        and type(attempts) is tuple
        and all(type(n) is int for n in attempts)
    ):
        raise TypeError("not a reason")
    shaped = None
    if issue is not None:
        shaped = Issue(*issue)
        if not all(type(getattr(shaped, name)) is str for name in Issue.__slots__):
            raise TypeError("not an issue")
    return Reason(code, text, attempts, shaped)


def _folder(task: TaskRecord) -> str:
    return task.source.rpartition("/")[0]


class ReductionCache:
    """The reductions of one run's tasks under one plan, kept in its task cache beside
    each task's entry (so they are valid exactly as long as the entry is): looked up as
    the tasks arrive, attached for storing once the run is scored. Never raises: what
    does not check out is a miss.

    Args:
        cache: The run's task cache.
        stream: The reduction stream the run is scored with.
    """

    def __init__(self, cache: task_cache.TaskCache, stream: ReductionStream) -> None:
        self.cache = cache
        self.stream = stream
        self.series = stream.series_ids
        self.key = plan_key(stream)
        self.decoder = Decoder(self.series)
        self.reused: dict[str, Any] = {}

    def add(self, tasks: Sequence[TaskRecord]) -> None:
        """Hand ``tasks`` to the stream, with the reductions kept for those whose entry
        came from the task cache."""
        kept = self.cache.kept
        if not kept:
            self.stream.add(tasks)
            return
        known: list[list[TaskReduction] | None] = []
        key, decode = self.key, self.decoder.decode
        for task in tasks:
            folder = _folder(task)
            stored = kept.get(folder)
            done = None
            if type(stored) is tuple and len(stored) == 2 and stored[0] == key:
                done = decode(stored[1], task.task_id)
                if done is not None:
                    self.reused[folder] = stored
            known.append(done)
        self.stream.add(tasks, known)

    def attach(self) -> None:
        """Give the task cache each cacheable task's reductions to store with its entry."""
        stream, fresh = self.stream, self.cache.fresh
        if stream.failed:
            return
        columns = [stream.by_series[series_id] for series_id in self.series]
        attached = self.cache.attached
        reused, key = self.reused, self.key
        for position, task in enumerate(stream.tasks):
            folder = _folder(task)
            stored = reused.get(folder)
            if stored is not None:
                attached[folder] = stored
            elif folder in fresh:
                attached[folder] = (key, encode([column[position] for column in columns]))
