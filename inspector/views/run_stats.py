"""Intervals for every series, category and hierarchy node of a run, and :func:`run_stats`:
them with the flaky tasks and pass@j curves of :mod:`inspector.views.attempt_stats`.

Pure (no I/O, no textual, no rich). Everything is read from one
:class:`~inspector.engine.Recomputation`: the value of every scope is the engine's own
number (bit for bit; a failed evaluation's reference value is marked as such), and the
interval around it comes from the engine's per-task reductions through :mod:`inspector.views.stats`:

- a category: the mean of its evaluated task values;
- a ``micro_weighted`` series: the mean of every evaluated task value;
- a ``category_mean`` series: ``Σ m_g / G`` over the G categories with a value;
- a hierarchy node: ``Σ a_g · m_g`` over its leaf categories, where ``a_g`` is the product
  of the effective (re-normalised) weights on the path from the node down to the leaf.

The last two use :func:`inspector.views.stats.combination_interval` for their se. For a
binary metric (its task values lie in [0, 1] by construction: :func:`value_shape`, decided
by the metric, never by the values seen) the bounds are
:mod:`inspector.views.bounded`'s exact interval at an effective n (in [0, 1], never
zero width, coverage measured by ``benchmarks/bench_coverage.py --grid``); for a scalar
Student t, and no interval where every value is equal or there is one task. A series whose value is a
corpus formula (a ratio of sums, a benchmark's own formula) gets no
interval, and the ``method`` says why; so does a scope whose value is not the mean the
formula above gives (checked, never assumed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspector.engine.aggregation import mean
from inspector.engine.contract import BINARY
from inspector.engine.hierarchy import HierarchyNode, node_weights
from inspector.engine.recomputation import Recomputation
from inspector.engine.report import CATEGORY_HIERARCHY, CATEGORY_MEAN, MICRO_WEIGHTED, MetricSeries
from inspector.engine.vocabulary import EVALUATED, plural
from inspector.views.attempt_stats import (
    FlakyTask,
    PassCurve,
    flaky_tasks,
    pass_curves,
    pass_curves_note,
)
from inspector.views.audit import category_keys, reductions_of
from inspector.views.bounded import bounded, kish_n, moderated_variance
from inspector.views.skewed import skewed_mean_interval
from inspector.views.stats import (
    DEFAULT_CONFIDENCE,
    Group,
    Interval,
    check_confidence,
    combination_interval,
    mean_interval,
    no_interval,
    pooled_variance,
)

# Tolerance for "this value is that weighted mean" (the engine re-normalises in another order).
_SAME = 1e-9


@dataclass(frozen=True, slots=True)
class ScopeStats:
    """One scope's engine value (or reference value) and the interval around it."""

    key: str
    value: float | None
    reference_value: float | None
    interval: Interval

    @property
    def reference(self) -> bool:
        """The number shown is a failed evaluation's reference value, not a value."""
        return self.value is None and self.reference_value is not None


@dataclass(frozen=True, slots=True)
class SeriesStats:
    series_id: str
    metric_id: str
    kind: str
    aggregation: str
    own: ScopeStats
    categories: tuple[ScopeStats, ...]
    hierarchy: tuple[ScopeStats, ...]


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= _SAME * max(1.0, abs(a), abs(b))


def _scope(key: str, part: Any, interval: Interval) -> ScopeStats:
    return ScopeStats(key, part.value, part.reference_value, interval)


def _values_by_category(rec: Recomputation, series: MetricSeries) -> dict[str, list[float]]:
    rows = reductions_of(rec, series.series_id) or ()
    keys = category_keys(rec, series)
    groups: dict[str, list[float]] = {}
    for key, r in zip(keys, rows, strict=True):
        if r.state == EVALUATED and r.value is not None:
            groups.setdefault(key, []).append(r.value)
    return groups


def _leaf_weights(
    node: HierarchyNode, series: MetricSeries, memo: dict[str, dict[str, float]]
) -> dict[str, float]:
    """Category → coefficient of this node's value as ``Σ a_g · m_g``."""
    if node.path in memo:
        return memo[node.path]
    part = series.hierarchy.get(node.path)
    out: dict[str, float] = {}
    if node.is_leaf:
        if part is not None and part.shown_value is not None:
            out = {node.name: 1.0}
    else:
        for child in node.children:
            _leaf_weights(child, series, memo)
        for path, weight in node_weights(node, series.hierarchy).items():
            for category, a in memo.get(path, {}).items():
                out[category] = out.get(category, 0.0) + weight * a
    memo[node.path] = out
    return out


@dataclass(frozen=True, slots=True)
class Shape:
    """What a series' task values are, which decides the interval (see views.bounded).

    ``attempts``: None for a scalar metric (Student t); else the most binary observations
    one task value stands for (k for a binary metric averaged over k attempts, 1 for binary
    task values)."""

    attempts: float | None
    text: str


def value_shape(series: MetricSeries) -> Shape:
    """The :class:`Shape` of ``series``' task values, from its metric alone (kind, reducer,
    k), never from the values that happen to occur: a binary metric's task values (native,
    pass@k, avg@k) lie in [0, 1] by construction; a scalar's have no declared range (the
    contract declares none), so it gets Student t whatever its values."""
    if series.kind != BINARY:
        return Shape(None, "scalar task values")
    if series.reducer == "avg" and series.k > 1:
        return Shape(series.k, f"fractions of {series.k} attempts; the task is the cluster")
    return Shape(1, "binary task values")


def combined_interval(
    weights: Mapping[str, float],
    groups: Mapping[str, list[float]],
    estimate: float | None,
    confidence: float,
    what: str,
    shape: Shape,
) -> Interval:
    parts = [Group(key, a, tuple(groups.get(key, ()))) for key, a in weights.items()]
    check = math.fsum(g.weight * (mean(g.values) or 0.0) for g in parts if g.values)
    if estimate is not None and not _close(check, estimate):
        n = sum(len(g.values) for g in parts)
        return no_interval(estimate, n, confidence, f"no interval: the value is not a {what}")
    used = [(g.weight, len(g.values)) for g in parts if g.weight != 0 and g.values]
    if shape.attempts is None or not used:
        pooled = pooled_variance(list(groups.values()))
        return _unbounded(combination_interval(
            parts, estimate=estimate, confidence=confidence, pooled=pooled, what=what
        ))  # fmt: skip
    t = combination_interval(parts, estimate=estimate, confidence=confidence, what=what,
                             variance=moderated_variance)  # fmt: skip
    head = f"{what} over {len(used)} categories, {t.n} tasks"
    return bounded(t, n_tasks=kish_n(used), attempts=shape.attempts, head=head,
                   values_text=shape.text,
                   se_text="se = √Σ w²s̃²/n, each s² moderated towards m̃(1 − m̃) with 2 df")  # fmt: skip


def _unbounded(t: Interval) -> Interval:
    """A t interval, or none where it would have zero width (no spread among the values)."""
    if t.se == 0:
        why = f"no interval: all {t.n} task values are equal (no spread to estimate)"
        return no_interval(t.estimate, t.n, t.confidence, why)
    return t


def mean_of_values(
    values: list[float], estimate: float | None, confidence: float, shape: Shape
) -> Interval:
    if not _close(mean(values), estimate):
        why = "no interval: the value is not the mean of its task values"
        return no_interval(estimate, len(values), confidence, why)
    head = f"mean of {plural(len(values), 'task value')}"
    if shape.attempts is None and values and estimate is not None:
        return _unbounded(skewed_mean_interval(
            values, confidence=confidence, estimate=estimate, head=f"{head} ({shape.text})"
        ))  # fmt: skip
    t = mean_interval(values, confidence=confidence, estimate=estimate)
    if shape.attempts is None or not values:
        return _unbounded(t)
    return bounded(t, n_tasks=len(values), attempts=shape.attempts, head=head,
                   values_text=shape.text)  # fmt: skip


def series_stats(
    rec: Recomputation, series: MetricSeries, *, confidence: float = DEFAULT_CONFIDENCE
) -> SeriesStats:
    """The interval of one series and of each of its categories and hierarchy nodes."""
    confidence = check_confidence(confidence)
    why = _no_interval_reason(rec, series)
    if why is not None:
        return SeriesStats(
            series.series_id, series.metric_id, series.kind, series.aggregation,
            _scope(series.series_id, series, no_interval(series.shown_value, 0, confidence, why)),
            tuple(_scope(k, b, no_interval(b.shown_value, 0, confidence, why))
                  for k, b in series.categories.items()),
            tuple(_scope(k, b, no_interval(b.shown_value, 0, confidence, why))
                  for k, b in series.hierarchy.items()),
        )  # fmt: skip
    groups = _values_by_category(rec, series)
    shape = value_shape(series)
    categories = []
    for key, part in series.categories.items():
        interval = mean_of_values(groups.get(key, []), part.shown_value, confidence, shape)
        categories.append(_scope(key, part, interval))
    by_key = {c.key: c for c in categories}
    hierarchy: list[ScopeStats] = []
    if series.aggregation == CATEGORY_HIERARCHY and rec.root is not None:
        memo: dict[str, dict[str, float]] = {}
        _leaf_weights(rec.root, series, memo)
        nodes = {node.path: node for node in rec.root.walk()}
        # parents first (the engine keeps children first)
        order = [p for p in nodes if p in series.hierarchy]
        order += [p for p in series.hierarchy if p not in nodes]
        for path in order:
            part = series.hierarchy[path]
            node = nodes.get(path)
            if node is not None and node.is_leaf and node.name in by_key:
                interval = by_key[node.name].interval
            else:
                what = "Σ w·category mean"
                interval = combined_interval(
                    memo.get(path, {}), groups, part.shown_value, confidence, what, shape
                )
            hierarchy.append(_scope(path, part, interval))
        own_interval = next(h.interval for h in hierarchy if h.key == rec.root.path)
    else:
        own_interval = _own(rec, series, groups, confidence, shape)
    return SeriesStats(
        series.series_id, series.metric_id, series.kind, series.aggregation,
        _scope(series.series_id, series, own_interval), tuple(categories), tuple(hierarchy),
    )  # fmt: skip


def own_interval(
    rec: Recomputation, series: MetricSeries, *, confidence: float = DEFAULT_CONFIDENCE
) -> Interval:
    """``series_stats(rec, series).own.interval`` alone, without the intervals of the
    categories and nodes it does not depend on (the runs screen's headline, one a run)."""
    confidence = check_confidence(confidence)
    why = _no_interval_reason(rec, series)
    if why is not None:
        return no_interval(series.shown_value, 0, confidence, why)
    groups = _values_by_category(rec, series)
    return _own(rec, series, groups, confidence, value_shape(series))


def _no_interval_reason(rec: Recomputation, series: MetricSeries) -> str | None:
    """Why a series has no interval at all (None: it has one)."""
    standard = series.aggregation in (MICRO_WEIGHTED, CATEGORY_MEAN, CATEGORY_HIERARCHY)
    if reductions_of(rec, series.series_id) is not None and standard:
        return None
    return f"no interval: the value is a corpus formula ({series.aggregation})"


def _own(
    rec: Recomputation,
    series: MetricSeries,
    groups: dict[str, list[float]],
    confidence: float,
    shape: Shape,
) -> Interval:
    """The interval of the series' own value (as :func:`series_stats` finds it)."""
    root = rec.root
    if series.aggregation == CATEGORY_HIERARCHY and root is not None:
        part = series.hierarchy[root.path]
        if root.is_leaf and root.name in series.categories:
            shown = series.categories[root.name].shown_value
            return mean_of_values(groups.get(root.name, []), shown, confidence, shape)
        memo: dict[str, dict[str, float]] = {}
        _leaf_weights(root, series, memo)
        weights = memo.get(root.path, {})
        what = "Σ w·category mean"
        return combined_interval(weights, groups, part.shown_value, confidence, what, shape)
    if series.aggregation == CATEGORY_MEAN:
        valid = [k for k, b in series.categories.items() if b.shown_value is not None]
        weights = {k: 1.0 / len(valid) for k in valid}
        what = "mean of category means"
        return combined_interval(weights, groups, series.shown_value, confidence, what, shape)
    values = [v for vs in groups.values() for v in vs]
    return mean_of_values(values, series.shown_value, confidence, shape)


@dataclass(frozen=True, slots=True)
class RunStats:
    confidence: float
    series: tuple[SeriesStats, ...]
    flaky: tuple[FlakyTask, ...]
    pass_curves: tuple[PassCurve, ...]
    pass_note: str | None


def run_stats(
    rec: Recomputation,
    *,
    series_ids: Sequence[str] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> RunStats:
    """Everything above for a run (``series_ids``: these series only, default all)."""
    chosen = [s for s in rec.report.series if series_ids is None or s.series_id in series_ids]
    return RunStats(
        confidence=check_confidence(confidence),
        series=tuple(series_stats(rec, s, confidence=confidence) for s in chosen),
        flaky=flaky_tasks(rec),
        pass_curves=pass_curves(rec, confidence=confidence),
        pass_note=pass_curves_note(rec),
    )
