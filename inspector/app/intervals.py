"""The app's texts for intervals (series table, category tree, compare screen).

The numbers come from :mod:`inspector.views.run_stats` and are written by
:func:`inspector.views.stats.bounds_text` / ``compact_bounds_text`` (as the command line writes
them); here they are picked for the dumb widgets. The app always uses 95 % intervals.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from inspector.engine.recomputation import Recomputation
from inspector.views.audit import Scope
from inspector.views.run_stats import SeriesStats, series_stats
from inspector.views.stats import NO_INTERVAL_TEXT, Interval, bounds_text, compact_bounds_text
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


STATS_DIGITS = 4
"""Significant digits of an interval's bounds as ``inspector stats`` prints them."""


def scope_interval(stats: SeriesStats, scope: Scope) -> Interval | None:
    """The interval of a series, a category or a hierarchy node (None: not in ``stats``)."""
    if scope.node is not None:
        return next((h.interval for h in stats.hierarchy if h.key == scope.node), None)
    if scope.category is not None:
        return next((c.interval for c in stats.categories if c.key == scope.category), None)
    return stats.own.interval


def interval_words(interval: Interval) -> str:
    """``95% interval [0.1026, 0.9603] (n = 4; method…); the tables show .10–.97: …``: the
    bounds with the digits ``inspector stats`` prints, what the narrow columns make of them,
    and the method, said once."""
    level = f"{interval.confidence * 100:g}% interval"
    if interval.ci_low is None or interval.ci_high is None:
        return f"{level} {NO_INTERVAL_TEXT} ({interval.method})"
    text = f"{level} {bounds_text(interval, digits=STATS_DIGITS)} (n = {interval.n}; "
    text += f"{interval.method})"
    compact = compact_bounds_text(interval)
    if compact.startswith("±"):
        return text + f"; the tables show {compact}: half the interval's width"
    return text + f"; the tables show {compact}: the bounds rounded outwards to hundredths"
