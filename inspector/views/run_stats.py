"""Intervals for every series, category and hierarchy node of a run; flaky tasks; pass@j curves.

Pure (no I/O, no textual, no rich). Everything is read from one
:class:`~inspector.engine.Recomputation`: the value of every scope is the engine's own
number (bit for bit; a failed evaluation's reference value is marked as such), and the
interval around it comes from the engine's per-task reductions through :mod:`inspector.views.stats`:

- a category: the mean of its evaluated task values (Student t, n − 1 df);
- a ``micro_weighted`` series: the mean of every evaluated task value;
- a ``category_mean`` series: ``Σ m_g / G`` over the G categories with a value;
- a hierarchy node: ``Σ a_g · m_g`` over its leaf categories, where ``a_g`` is the product
  of the effective (re-normalised) weights on the path from the node down to the leaf.

The last two use :func:`inspector.views.stats.combination_interval`. A series whose value is a
corpus formula (a ratio of sums, a benchmark's own formula) or was carried over gets no
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
from inspector.engine.vocabulary import EVALUATED
from inspector.views.audit import category_keys, reductions_of
from inspector.views.stats import (
    DEFAULT_CONFIDENCE,
    Group,
    Interval,
    check_confidence,
    combination_interval,
    mean_interval,
    no_interval,
    pass_at_j,
    pass_hat_j,
    pooled_variance,
)

WHAT_CHEN = "tasks' unbiased estimates (Chen et al. 2021)"
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


def _combined(
    weights: Mapping[str, float],
    groups: Mapping[str, list[float]],
    estimate: float | None,
    confidence: float,
    what: str,
) -> Interval:
    parts = [Group(key, a, tuple(groups.get(key, ()))) for key, a in weights.items()]
    pooled = pooled_variance(list(groups.values()))
    check = math.fsum(g.weight * (mean(g.values) or 0.0) for g in parts if g.values)
    if estimate is not None and not _close(check, estimate):
        n = sum(len(g.values) for g in parts)
        return no_interval(estimate, n, confidence, f"no interval: the value is not a {what}")
    return combination_interval(
        parts, estimate=estimate, confidence=confidence, pooled=pooled, what=what
    )


def _mean_of(values: list[float], estimate: float | None, confidence: float) -> Interval:
    if _close(mean(values), estimate):
        return mean_interval(values, confidence=confidence, estimate=estimate)
    why = "no interval: the value is not the mean of its task values"
    return no_interval(estimate, len(values), confidence, why)


def series_stats(
    rec: Recomputation, series: MetricSeries, *, confidence: float = DEFAULT_CONFIDENCE
) -> SeriesStats:
    """The interval of one series and of each of its categories and hierarchy nodes."""
    confidence = check_confidence(confidence)
    standard = series.aggregation in (MICRO_WEIGHTED, CATEGORY_MEAN, CATEGORY_HIERARCHY)
    if reductions_of(rec, series.series_id) is None or not standard:
        why = (
            "no interval: carried over from the stored metrics.json"
            if series.series_id in rec.not_recomputed
            else f"no interval: the value is a corpus formula ({series.aggregation})"
        )
        return SeriesStats(
            series.series_id, series.metric_id, series.kind, series.aggregation,
            _scope(series.series_id, series, no_interval(series.shown_value, 0, confidence, why)),
            tuple(_scope(k, b, no_interval(b.shown_value, 0, confidence, why))
                  for k, b in series.categories.items()),
            tuple(_scope(k, b, no_interval(b.shown_value, 0, confidence, why))
                  for k, b in series.hierarchy.items()),
        )  # fmt: skip
    groups = _values_by_category(rec, series)
    categories = []
    for key, part in series.categories.items():
        interval = _mean_of(groups.get(key, []), part.shown_value, confidence)
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
                interval = _combined(memo.get(path, {}), groups, part.shown_value, confidence, what)
            hierarchy.append(_scope(path, part, interval))
        own_interval = next(h.interval for h in hierarchy if h.key == rec.root.path)
    elif series.aggregation == CATEGORY_MEAN:
        valid = [k for k, b in series.categories.items() if b.shown_value is not None]
        weights = {k: 1.0 / len(valid) for k in valid}
        what = "mean of category means"
        own_interval = _combined(weights, groups, series.shown_value, confidence, what)
    else:
        values = [v for vs in groups.values() for v in vs]
        own_interval = _mean_of(values, series.shown_value, confidence)
    return SeriesStats(
        series.series_id, series.metric_id, series.kind, series.aggregation,
        _scope(series.series_id, series, own_interval), tuple(categories), tuple(hierarchy),
    )  # fmt: skip


# -- flaky tasks --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AttemptOutcome:
    attempt: int
    status: str | None  # None: the attempt has no result
    value: bool | float | None  # None: no observation of the metric


@dataclass(frozen=True, slots=True)
class FlakyTask:
    """A task whose recorded attempts disagree on a metric.

    ``disagreement`` is ``4 p (1 − p)`` for a binary metric, p = c / n the share of the n
    observations that pass (1 for an even split, 8/9 for 1 of 3 or 2 of 3), and
    ``max − min`` of the observations for a scalar one.
    """

    task_id: str
    category: str
    metric_id: str
    kind: str
    outcomes: tuple[AttemptOutcome, ...]
    passes: int | None
    observed: int
    disagreement: float


def outcomes_text(f: FlakyTask) -> str:
    """``1:✓ 2:✗ 3:—`` (binary) or ``1:0.5 2:1`` (scalar); ``—`` no observation."""
    parts = []
    for o in f.outcomes:
        if o.value is None:
            mark = "—" if o.status is None else f"— ({o.status})"
        elif isinstance(o.value, bool):
            mark = "✓" if o.value else "✗"
        else:
            mark = f"{o.value:g}"
        parts.append(f"{o.attempt}:{mark}")
    return " ".join(parts)


def flaky_metrics(rec: Recomputation) -> list[str]:
    """The metrics checked for flakiness: the primary and every binary metric."""
    contract = rec.plan.contract
    return [m for m, spec in contract.metrics.items() if spec.primary or spec.kind == BINARY]


def flaky_tasks(rec: Recomputation) -> tuple[FlakyTask, ...]:
    """Tasks whose attempts disagree, most disagreement first (then task order)."""
    k = rec.plan.k
    keys = rec.category_keys
    out: list[tuple[float, int, FlakyTask]] = []
    contract = rec.plan.contract
    metrics = [(m, contract.metrics[m].kind) for m in flaky_metrics(rec)]
    for position, task in enumerate(rec.tasks):
        if len(task.attempts) < 2:
            continue
        for metric_id, kind in metrics:
            observed = [a.metrics[metric_id] for a in task.attempts.values()
                        if metric_id in a.metrics]  # fmt: skip
            if len({float(v) for v in observed}) < 2:
                continue
            outcomes = []
            for index in range(1, k + 1):
                attempt = task.attempts.get(index)
                value = None if attempt is None else attempt.metrics.get(metric_id)
                outcomes.append(AttemptOutcome(index, attempt.status if attempt else None, value))
            numbers = [float(v) for v in observed]
            if kind == BINARY:
                passes = sum(v is True for v in observed)
                share = passes / len(observed)
                spread = 4 * share * (1 - share)
            else:
                passes, spread = None, max(numbers) - min(numbers)
            flaky = FlakyTask(task.task_id, keys[position], metric_id, kind, tuple(outcomes),
                              passes, len(observed), spread)  # fmt: skip
            out.append((-spread, position, flaky))
    out.sort(key=lambda item: (item[0], item[1]))
    return tuple(f for _, _, f in out)


# -- pass@j / pass^j ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PassCurve:
    """Chen et al.'s pass@j and pass^j for j = 1..k of one binary metric, with se."""

    metric_id: str
    k: int
    tasks: int  # tasks with all k observations (the estimate's n)
    excluded: int  # tasks left out: invalidated, or an attempt without an observation
    pass_at: tuple[Interval, ...]
    pass_hat: tuple[Interval, ...]
    # AgentCompass's own series of this metric (series id → shown value), for comparison.
    agentcompass: Mapping[str, float | None]


def pass_curves_note(rec: Recomputation) -> str | None:
    """Why the run has no pass@j curves, or None when it has them."""
    plan = rec.plan
    if plan.k < 2:
        return "pass@j / pass^j need k ≥ 2 attempts per task (this plan has k=1)"
    if plan.strategy != "avg":
        return (
            f"pass@j / pass^j need every attempt run; under {plan.strategy} attempts "
            "stop early after a success"
        )
    return None


def pass_curves(
    rec: Recomputation, *, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[PassCurve, ...]:
    """pass@j / pass^j per binary metric over the tasks whose k attempts all observed it."""
    if pass_curves_note(rec) is not None:
        return ()
    k = rec.plan.k
    curves = []
    for metric_id, spec in rec.plan.contract.metrics.items():
        if spec.kind != BINARY:
            continue
        counts = []
        for task in rec.tasks:
            attempts = [task.attempts.get(i) for i in range(1, k + 1)]
            if any(a is None or a.has_fatal or metric_id not in a.metrics for a in attempts):
                continue
            counts.append(sum(a.metrics[metric_id] is True for a in attempts))  # type: ignore[union-attr]

        def curve(estimator: Any, counts: Sequence[int] = counts) -> tuple[Interval, ...]:
            out = []
            for j in range(1, k + 1):
                # one exact value per possible count c = 0..k, then one per task
                table = [estimator(k, c, j) for c in range(k + 1)]
                values = [table[c] for c in counts]
                out.append(mean_interval(values, confidence=confidence, what=WHAT_CHEN))
            return tuple(out)

        ours = {
            s.series_id: s.shown_value
            for s in rec.report.series
            if s.metric_id == metric_id and s.reducer in ("avg", "pass")
        }
        curves.append(PassCurve(metric_id, k, len(counts), len(rec.tasks) - len(counts),
                                curve(pass_at_j), curve(pass_hat_j), ours))  # fmt: skip
    return tuple(curves)


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
