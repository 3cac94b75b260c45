"""The app's texts for intervals (series table, category tree, compare screen).

The numbers come from :mod:`inspector.views.run_stats`; here they only become short strings that
the dumb widgets show. The app always uses 95 % intervals.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from inspector.engine.recomputation import Recomputation
from inspector.views.run_stats import SeriesStats, series_stats
from inspector.views.stats import Interval
from widgets.category_tree import category_interval_key

NONE = "—"


def bounds_text(interval: Interval) -> str:
    """``[0.268, 0.826]``, or ``—`` where there is no interval."""
    if interval.ci_low is None or interval.ci_high is None:
        return NONE
    return f"[{interval.ci_low:.3g}, {interval.ci_high:.3g}]"


def half_width_text(interval: Interval) -> str:
    """``±0.139``: half the interval's width (it is symmetric), or ``—``."""
    if interval.ci_low is None or interval.ci_high is None:
        return NONE
    return f"±{(interval.ci_high - interval.ci_low) / 2:.2g}"


def tree_texts(stats: SeriesStats) -> dict[str, str]:
    """The category tree's ``±95%`` column: hierarchy path or category key → text."""
    texts = {h.key: half_width_text(h.interval) for h in stats.hierarchy}
    texts.update({category_interval_key(c.key): half_width_text(c.interval)
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
