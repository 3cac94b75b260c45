"""The app's texts for intervals (series table, category tree, compare screen).

The numbers come from :mod:`inspector.views.run_stats` and are written by
:func:`inspector.views.stats.bounds_text` / ``compact_bounds_text`` (as the command line writes
them); here they are picked for the dumb widgets. The app always uses 95 % intervals.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from inspector.engine.recomputation import Recomputation
from inspector.views.run_stats import SeriesStats, series_stats
from inspector.views.stats import compact_bounds_text
from widgets.category_tree import category_interval_key


def tree_texts(stats: SeriesStats) -> dict[str, str]:
    """The category tree's ``95% CI`` column (bounds in 7 characters, ``.54–.99``): hierarchy
    path or category key → text."""
    texts = {h.key: compact_bounds_text(h.interval) for h in stats.hierarchy}
    texts.update({category_interval_key(c.key): compact_bounds_text(c.interval)
                  for c in stats.categories})  # fmt: skip
    return texts


def all_series_stats(rec: Recomputation) -> dict[str, SeriesStats]:
    """Every series' interval statistics (run in a worker: it reads every reduction)."""
    return {s.series_id: series_stats(rec, s) for s in rec.report.series}


@dataclass
class IntervalsReady(Message):
    """The intervals of a recomputation's series, computed off the UI thread."""

    recomputation: Recomputation
    stats: dict[str, SeriesStats]
