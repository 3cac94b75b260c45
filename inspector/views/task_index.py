"""The rows of one series, ready to filter and sort tens of thousands of tasks per keystroke.

A :class:`TaskIndex` is built once per series (in a worker: about half a second for 50,000
tasks) and then answers :meth:`TaskIndex.select` with exactly what
``sort_rows(filter_rows(rows, task_filter), column, reverse)`` of :mod:`inspector.views.tasks`
returns, in a few milliseconds: each column's sort values (``sort_value``) and each state /
count filter's mask are worked out once, in the worker (:meth:`TaskIndex.prepare`), each order
once (``sorted_positions``, as ``sort_rows`` sorts), and a filter is then a pass over
precomputed lists. Sorting is stable, so a filtered subsequence of the sorted rows is the
sorted filtered rows. Pure: imports neither textual nor rich.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Sequence

from inspector.engine.recomputation import Recomputation
from inspector.views.audit import EVERY_TASK, TaskSet
from inspector.views.tasks import (
    STATE_FILTERS,
    TEXT_COLUMNS,
    TaskFilter,
    TaskRow,
    in_set,
    natural_key,
    searched_text,
    sort_value,
    sorted_positions,
    task_rows,
)

SORT_COLUMNS = (
    "task", "category", "state", "outcomes", "value", "reduction", "error", "attempts",
    "severity", "retries",
)  # fmt: skip
"""The columns of the tasks table (what :func:`sort_value` knows)."""


def text_ranks(texts: Sequence[str]) -> array[int]:
    """Each text's rank in :func:`natural_key` order (equal texts, equal ranks): it sorts
    exactly as the keys do, forwards and reversed (a stable sort keeps ties in their order
    either way), in 4 bytes a row where a key tuple takes 0.3–1 KB. Each distinct text's key
    is made once."""
    distinct = sorted(set(texts), key=natural_key)
    rank = {text: position for position, text in enumerate(distinct)}
    return array("i", [rank[text] for text in texts])


class TaskIndex:
    """The rows of one series with what filtering and sorting them needs."""

    def __init__(self, series_id: str, rows: Sequence[TaskRow]) -> None:
        self.series_id = series_id
        self.rows: tuple[TaskRow, ...] = tuple(rows)
        self._texts: list[str] | None = None
        """What the text filter looks in, per row (:func:`searched_text`), made on first use."""
        self._sort_values: dict[str, Sequence[object]] = {}
        self._orders: dict[tuple[str, bool], list[int]] = {}
        self._states: dict[TaskSet, list[bool]] = {}

    @classmethod
    def build(cls, recomputation: Recomputation, series_id: str) -> TaskIndex:
        return cls(series_id, task_rows(recomputation, series_id))

    def __len__(self) -> int:
        return len(self.rows)

    def prepare(self) -> None:
        """Work out every sort column's values and every state filter's mask now (in the
        worker), so that no first sort or first state filter has to."""
        for column in SORT_COLUMNS:
            self._values(column)
        for which, _ in STATE_FILTERS:
            self._state_mask(which)

    def _values(self, column: str) -> Sequence[object]:
        if column not in self._sort_values:
            if column in TEXT_COLUMNS:
                texts = [getattr(row, TEXT_COLUMNS[column]) for row in self.rows]
                self._sort_values[column] = text_ranks(texts)
            else:
                self._sort_values[column] = [sort_value(row, column) for row in self.rows]
        return self._sort_values[column]

    def order(self, column: str | None, reverse: bool = False) -> list[int]:
        """Row positions sorted by ``column`` as :func:`sort_rows` sorts (None: engine order)."""
        if column is None:
            return list(range(len(self.rows)))
        key = (column, reverse)
        if key not in self._orders:
            self._orders[key] = sorted_positions(self._values(column), reverse)
        return self._orders[key]

    def _state_mask(self, which: TaskSet) -> list[bool]:
        if which not in self._states:
            self._states[which] = [in_set(row, which) for row in self.rows]
        return self._states[which]

    def masks(self, task_filter: TaskFilter) -> list[Sequence[bool]]:
        """One mask per active part of ``task_filter`` (rows pass where every mask is True)."""
        rows = self.rows
        out: list[Sequence[bool]] = []
        if task_filter.state is not None and task_filter.state != EVERY_TASK:
            out.append(self._state_mask(task_filter.state))
        if task_filter.categories is not None:
            categories = task_filter.categories
            out.append([row.category in categories for row in rows])
        if task_filter.task_ids is not None:
            task_ids = task_filter.task_ids
            out.append([row.task_id in task_ids for row in rows])
        severity, phase, code = task_filter.severity, task_filter.phase, task_filter.code
        if severity or phase or code:
            out.append(
                [
                    any(
                        (not severity or s == severity)
                        and (not phase or p == phase)
                        and (not code or c == code)
                        for s, p, c in row.issue_keys
                    )
                    for row in rows
                ]
            )
        if task_filter.text:
            needle = task_filter.text.casefold()
            if self._texts is None:
                self._texts = [searched_text(row) for row in rows]
            out.append([needle in text for text in self._texts])
        return out

    def select(
        self, task_filter: TaskFilter, column: str | None = None, reverse: bool = False
    ) -> list[TaskRow]:
        """The rows passing ``task_filter``, sorted by ``column`` (None: engine order)."""
        positions = self.order(column, reverse)
        for mask in self.masks(task_filter):
            positions = [i for i in positions if mask[i]]
        rows = self.rows
        return [rows[i] for i in positions]


class TaskIndexes:
    """The task indexes of one recomputation, one per series, each built once.

    :meth:`build` may be called from several worker threads; a series is built by the first
    caller and the others wait for it.
    """

    def __init__(self, recomputation: Recomputation) -> None:
        self.recomputation = recomputation
        self._indexes: dict[str, TaskIndex] = {}
        self._lock = threading.Lock()

    def get(self, series_id: str) -> TaskIndex | None:
        return self._indexes.get(series_id)

    def build(self, series_id: str) -> TaskIndex:
        with self._lock:
            index = self._indexes.get(series_id)
            if index is None:
                index = TaskIndex.build(self.recomputation, series_id)
                index.prepare()
                self._indexes[series_id] = index
            return index
