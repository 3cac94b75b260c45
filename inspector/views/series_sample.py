"""Both sides' tasks of one series pair, as arrays for resampling (:mod:`inspector.views.paired`).

Pure (no textual, no rich, no I/O). A :class:`SeriesSample` holds, per task id of either
side, each side's value, whether it is evaluated, its category and whether the side has the
task; :meth:`SeriesSample.values` recomputes a side's series value for any rows of task
indices with the engine's :func:`~inspector.engine.aggregation.resampled_values`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from inspector.engine.aggregation import resampled_values
from inspector.engine.hierarchy import HierarchyNode
from inspector.engine.recomputation import Recomputation
from inspector.engine.report import CATEGORY_HIERARCHY, CATEGORY_MEAN, MICRO_WEIGHTED, MetricSeries
from inspector.views.run_stats import Shape
from inspector.views.side_tasks import SideTasks, side_tasks

RESAMPLED = frozenset({MICRO_WEIGHTED, CATEGORY_MEAN, CATEGORY_HIERARCHY})
"""The aggregations recomputed from resampled tasks (corpus formulas are not, yet)."""


@dataclass(frozen=True)
class Side:
    """One side's tasks for a series, aligned with the sample's task ids."""

    values: NDArray[np.float64]  # the task value where evaluated, else 0
    evaluated: NDArray[np.float64]  # 1 where evaluated with a value, else 0 (absent too)
    categories: NDArray[np.intp]  # index into ``names``
    present: NDArray[np.bool_]  # the task id is among the side's tasks
    aggregation: str
    root: HierarchyNode | None
    value: float  # the engine's series value (shown value)
    # what the task values are (decides the side's interval): from the metric
    shape: Shape


@dataclass(frozen=True)
class SeriesSample:
    """The tasks of both sides, by task id, for resampling."""

    task_ids: tuple[str, ...]
    names: tuple[str, ...]  # category keys of either side
    a: Side
    b: Side

    def values(self, side: Side, index: NDArray[np.intp]) -> NDArray[np.float64]:
        """The side's series value for each row of task indices (any leading shape)."""
        shape = index.shape[:-1]
        rows = index.reshape(-1, index.shape[-1])
        r, g = rows.shape[0], len(self.names)
        flat = (side.categories[rows] + g * np.arange(r)[:, None]).ravel()
        weights = side.evaluated[rows].ravel()
        sums = _bincount(flat, side.values[rows].ravel() * weights, r * g)
        counts = _bincount(flat, weights, r * g)
        out = resampled_values(side.aggregation, sums.reshape(r, g), counts.reshape(r, g),
                               self.names, side.root)  # fmt: skip
        return out.reshape(shape)

    def delta(self, index: NDArray[np.intp]) -> NDArray[np.float64]:
        return self.values(self.b, index) - self.values(self.a, index)


def series_sample(
    a: Recomputation, b: Recomputation, series_a: MetricSeries, series_b: MetricSeries
) -> SeriesSample | None:
    """Both sides' tasks for one series pair; None when a side's value is not the
    aggregate of its task values (corpus formula, carried over) or is null."""
    if series_a.shown_value is None or series_b.shown_value is None:
        return None
    side_a, side_b = side_tasks(a, series_a), side_tasks(b, series_b)
    return None if side_a is None or side_b is None else sample_of(side_a, side_b)


def sample_of(a: SideTasks, b: SideTasks) -> SeriesSample | None:
    """:func:`series_sample` of two runs' kept tasks."""
    if a.value is None or b.value is None:
        return None
    if not {a.aggregation, b.aggregation} <= RESAMPLED:
        return None  # a corpus formula (ratio of sums, a benchmark's own series)
    ids = list(dict.fromkeys([*a.task_ids, *b.task_ids]))
    names = sorted(set(a.categories) | set(b.categories))
    slot = {t: i for i, t in enumerate(ids)}
    index = {name: g for g, name in enumerate(names)}

    def side(tasks: SideTasks) -> Side | None:
        n = len(ids)
        values, evaluated = np.zeros(n), np.zeros(n)
        categories = np.zeros(n, dtype=np.intp)
        present = np.zeros(n, dtype=bool)
        for task_id, key, value in zip(tasks.task_ids, tasks.categories, tasks.values,
                                       strict=True):  # fmt: skip
            i = slot[task_id]
            categories[i], present[i] = index[key], True
            if value is not None:
                values[i], evaluated[i] = value, 1.0
        assert tasks.value is not None
        out = Side(values, evaluated, categories, present, tasks.aggregation, tasks.root,
                   tasks.value, tasks.shape)  # fmt: skip
        whole = resampled_values(
            out.aggregation, *_sums(out, len(names)), names, out.root
        )[0]  # fmt: skip
        return out if math.isclose(whole, out.value, rel_tol=1e-9, abs_tol=1e-12) else None

    side_a, side_b = side(a), side(b)
    if side_a is None or side_b is None:
        return None
    return SeriesSample(tuple(ids), tuple(names), side_a, side_b)


def _sums(side: Side, g: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    sums = _bincount(side.categories, side.values * side.evaluated, g)
    counts = _bincount(side.categories, side.evaluated, g)
    return sums[None, :], counts[None, :]


def _bincount(
    index: NDArray[np.intp], weights: NDArray[np.float64], size: int
) -> NDArray[np.float64]:
    """Σ weights per index value (numpy's weighted bincount, a float array)."""
    return np.asarray(np.bincount(index, weights=weights, minlength=size), dtype=np.float64)
