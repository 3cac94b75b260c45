"""Cross-task aggregation: counts, categories, micro / category_mean / hierarchy (spec §6.4, §7.1)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from inspector.engine.hierarchy import HierarchyNode, hierarchy_breakdowns, resampled_node_values
from inspector.engine.report import (
    CATEGORY_HIERARCHY,
    CATEGORY_MEAN,
    MICRO_WEIGHTED,
    MetricBreakdown,
    MetricReport,
    MetricSeries,
    SeriesCounts,
    select_value_role,
)
from inspector.engine.strategies import SeriesPlan, resolve_attempt_strategy
from inspector.engine.vocabulary import ERROR, EVALUATED, INVALIDATED, UNAVAILABLE

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy.typing import NDArray

    from inspector.engine.plan import Plan

UNCATEGORIZED = "__uncategorized__"


class Outcome(Protocol):
    """What aggregation reads of a task's reduction for one series (a
    :class:`~inspector.engine.reduction.TaskReduction` is one)."""

    @property
    def value(self) -> float | None: ...
    @property
    def state(self) -> str: ...
    @property
    def has_error(self) -> bool: ...


class TaskOutcome(NamedTuple):
    """An :class:`Outcome` on its own: the three fields of a reduction that the report
    is aggregated from (kept for the next read by :mod:`inspector.loading`)."""

    value: float | None
    state: str
    has_error: bool


def category_key(category: Any) -> str:
    """The standard path's category key: ``str(c).strip()``, empty → ``__uncategorized__``.

    Non-string categories are named by Python's ``str()`` (spec Addendum item 50).
    """
    text = str(category).strip() if category is not None else ""
    return text or UNCATEGORIZED


def mean(values: Iterable[float]) -> float | None:
    """``fsum(v / n)``, null for an empty set (spec §10 item 15)."""
    items = tuple(values)
    return math.fsum(v / len(items) for v in items) if items else None


def series_counts(reductions: Iterable[Outcome]) -> SeriesCounts:
    total = evaluated = error = unavailable = invalidated = 0
    for r in reductions:
        total += 1
        if r.state == EVALUATED:
            evaluated += 1
        elif r.state == INVALIDATED:
            invalidated += 1
        elif r.state in (ERROR, UNAVAILABLE):
            unavailable += 1
        if r.has_error:
            error += 1
    return SeriesCounts(total, evaluated, error, unavailable, invalidated)


def group_by_category(
    reductions: Sequence[Outcome], keys: Sequence[str]
) -> dict[str, list[Outcome]]:
    grouped: dict[str, list[Outcome]] = {}
    for key, reduction in zip(keys, reductions, strict=True):
        grouped.setdefault(key, []).append(reduction)
    return {key: grouped[key] for key in sorted(grouped)}


def category_breakdowns(
    reductions: Sequence[Outcome], keys: Sequence[str]
) -> dict[str, MetricBreakdown]:
    out = {}
    for key, items in group_by_category(reductions, keys).items():
        values = [r.value for r in items if r.state == EVALUATED and r.value is not None]
        out[key] = MetricBreakdown(
            value=mean(values),
            counts=series_counts(items),
            aggregation_weight=float(len(values)),
        )
    return out


def _aggregate(
    reductions: Sequence[Outcome],
    categories: dict[str, MetricBreakdown],
    aggregation: str,
    root: HierarchyNode | None,
) -> tuple[float | None, dict[str, MetricBreakdown]]:
    """The series value (and the hierarchy's nodes) from its tasks and categories."""
    hierarchy: dict[str, MetricBreakdown] = {}
    if aggregation == MICRO_WEIGHTED:
        value = mean(r.value for r in reductions if r.state == EVALUATED and r.value is not None)
    elif aggregation == CATEGORY_MEAN:
        value = mean(b.value for b in categories.values() if b.value is not None)
    elif aggregation == CATEGORY_HIERARCHY and root is not None:
        hierarchy = hierarchy_breakdowns(root, categories)
        value = hierarchy[root.path].value
    else:  # pragma: no cover - guarded by the plan
        raise ValueError(f"unknown aggregation {aggregation!r}")
    return value, hierarchy


def aggregate_value(
    reductions: Sequence[Outcome],
    keys: Sequence[str],
    aggregation: str,
    root: HierarchyNode | None,
) -> float | None:
    """The value :func:`aggregate_series` gives these tasks (by the same code)."""
    return _aggregate(reductions, category_breakdowns(reductions, keys), aggregation, root)[0]


def aggregate_series(
    plan: SeriesPlan,
    display: Any,
    reductions: Sequence[Outcome],
    keys: Sequence[str],
    aggregation: str,
    root: HierarchyNode | None,
) -> MetricSeries:
    """One standard series from its task reductions (before ``select_value_role``)."""
    counts = series_counts(reductions)
    categories = category_breakdowns(reductions, keys)
    value, hierarchy = _aggregate(reductions, categories, aggregation, root)
    return MetricSeries(
        series_id=plan.series_id,
        metric_id=plan.metric_id,
        kind=plan.kind,
        reducer=plan.reducer,
        role=plan.role,
        aggregation=aggregation,
        display=display,
        k=plan.k,
        value=value,
        counts=counts,
        categories=categories,
        hierarchy=hierarchy,
    )


def resampled_values(
    aggregation: str,
    sums: NDArray[np.float64],
    counts: NDArray[np.float64],
    names: Sequence[str],
    root: HierarchyNode | None,
) -> NDArray[np.float64]:
    """The series value of many resamples of tasks at once, by the rules of
    :func:`aggregate_series` (NaN where the value would be null).

    ``sums[r, g]`` / ``counts[r, g]``: the sum of the evaluated task values and their number
    in category ``names[g]`` of resample ``r`` — what every aggregation reads of its tasks
    (micro: Σ sums / Σ counts; ``category_mean``: the mean of the categories with a value;
    a hierarchy: :func:`~inspector.engine.hierarchy.resampled_node_values`). Sums are
    numpy's, not ``fsum``: equal to the report's value up to rounding (tests hold the two
    together), for intervals, never for a number the report prints.
    """
    import numpy as np  # the report path needs no numpy

    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), np.nan)
        if aggregation == MICRO_WEIGHTED:
            total = counts.sum(axis=1)
            return np.where(total > 0, sums.sum(axis=1) / np.where(total > 0, total, 1.0), np.nan)
        if aggregation == CATEGORY_MEAN:
            valid = ~np.isnan(means)
            n = valid.sum(axis=1)
            return np.where(n > 0, np.where(valid, means, 0.0).sum(axis=1) / np.maximum(n, 1), np.nan)
    if aggregation == CATEGORY_HIERARCHY and root is not None:
        leaves = {name: (means[:, g], counts[:, g]) for g, name in enumerate(names)}
        return resampled_node_values(root, leaves, sums.shape[0])
    raise ValueError(f"unknown aggregation {aggregation!r}")


def standard_report(
    plan: Plan,
    reductions: Mapping[str, Sequence[Outcome]],
    keys: Sequence[str],
    root: HierarchyNode | None,
    series_plans: Sequence[SeriesPlan] | None = None,
) -> MetricReport:
    """The report of the standard path (before a benchmark's corpus formula or its own
    series): every series aggregated from its tasks' outcomes (``reductions[series_id]``,
    aligned with the category ``keys``); ``series_plans``: the plan's strategy resolved
    already (else resolved here)."""
    aggregation = CATEGORY_HIERARCHY if root is not None else plan.aggregation
    strategy = resolve_attempt_strategy(plan.strategy)
    if series_plans is None:
        series_plans = strategy.resolve(plan.contract, plan.k).series
    series = [
        aggregate_series(
            sp,
            plan.contract.metrics[sp.metric_id].display,
            reductions[sp.series_id],
            keys,
            aggregation,
            root,
        )
        for sp in series_plans
    ]
    failed = any(s.counts.invalidated for s in series)
    return MetricReport(
        k=plan.k,
        strategy=strategy.id,
        aggregation=aggregation,
        series=tuple(select_value_role(s, failed) for s in series),
        evaluation_failed=failed,
    )
