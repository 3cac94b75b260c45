"""One run's tasks of one series as a paired sample takes them
(:mod:`inspector.views.series_sample`), as plain data: what a run keeps for the
leaderboard's ties. Pure (no textual, no rich, no I/O), and no numpy: a run read for
another command keeps them without loading it.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.engine.hierarchy import HierarchyNode
from inspector.engine.recomputation import Recomputation
from inspector.engine.report import MetricSeries
from inspector.engine.vocabulary import EVALUATED
from inspector.views.audit import reductions_of
from inspector.views.run_stats import Shape, value_shape


@dataclass(frozen=True)
class SideTasks:
    """One run's tasks of one series as a sample takes them, in the run's task order: what
    a run keeps for the leaderboard's ties (:func:`side_tasks`), so a column is compared
    without reading its runs again."""

    task_ids: tuple[str, ...]
    categories: tuple[str, ...]  # each task's category key
    values: tuple[float | None, ...]  # the task value where evaluated with one, else None
    aggregation: str
    root: HierarchyNode | None
    value: float | None  # the engine's series value (shown value)
    shape: Shape


def side_tasks(rec: Recomputation, series: MetricSeries) -> SideTasks | None:
    """The series' tasks of a recomputed run (None: the run holds no such series)."""
    rows = reductions_of(rec, series.series_id)
    if rows is None:
        return None
    values = tuple(
        row.value if row.state == EVALUATED and row.value is not None else None for row in rows
    )
    return SideTasks(
        tuple(row.task_id for row in rows), tuple(rec.category_keys), values,
        series.aggregation, rec.root, series.shown_value, value_shape(series),
    )  # fmt: skip
