"""A ratio of sums (spec §7.3): Σ numerators / Σ denominators, per category and for the
series under the report's aggregation — what ``AggregationContext.replace_with_ratio_of_sums``
and ``append_ratio_series`` compute (:mod:`inspector.engine.corpus`), and what the
decomposition of a delta re-aggregates (:mod:`inspector.engine.decomposition`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from inspector.engine.aggregation import mean
from inspector.engine.hierarchy import HierarchyNode, hierarchy_breakdowns
from inspector.engine.report import (
    CATEGORY_HIERARCHY,
    CATEGORY_MEAN,
    MetricBreakdown,
    SeriesCounts,
)


@dataclass(frozen=True, slots=True)
class RatioPair:
    """One evaluated task of a ratio of sums: its numerator (``value``) and denominator."""

    task_id: str
    category: str
    value: float
    weight: float


def ratio_breakdown(items: Sequence[RatioPair], counts: SeriesCounts) -> MetricBreakdown:
    """One category of a ratio of sums: Σ numerators / Σ denominators (0 over 0 is 0)."""
    numerator = math.fsum(p.value for p in items)
    denominator = math.fsum(p.weight for p in items)
    return MetricBreakdown(
        value=(numerator / denominator if denominator else 0.0) if items else None,
        counts=counts,
        aggregation_weight=denominator,
    )


def ratio_value(
    pairs: Sequence[RatioPair],
    categories: Mapping[str, MetricBreakdown],
    aggregation: str,
    root: HierarchyNode | None,
    respect: bool,
) -> tuple[float | None, dict[str, MetricBreakdown]]:
    """A ratio-of-sums series' value (and hierarchy) from its pairs and categories, under
    the report's aggregation when ``respect`` (``respect_report_aggregation``)."""
    hierarchy: dict[str, MetricBreakdown] = {}
    if aggregation == CATEGORY_HIERARCHY:
        if root is not None:
            hierarchy = hierarchy_breakdowns(root, categories)
            if respect:
                return hierarchy[root.path].value, hierarchy
        elif respect:
            return None, hierarchy
    elif aggregation == CATEGORY_MEAN and respect:
        return mean(b.value for b in categories.values() if b.value is not None), {}
    if not pairs:
        return None, hierarchy
    numerator = math.fsum(p.value for p in pairs)
    denominator = math.fsum(p.weight for p in pairs)
    return (numerator / denominator if denominator else 0.0), hierarchy


def ratio_of_totals(
    totals: tuple[float, float] | None,
    categories: Mapping[str, MetricBreakdown],
    aggregation: str,
    root: HierarchyNode | None,
    respect: bool,
) -> float | None:
    """:func:`ratio_value`'s value from the sums already taken: ``totals`` (Σ numerators,
    Σ denominators; None: no pair) and the categories' breakdowns."""
    if aggregation == CATEGORY_HIERARCHY and respect:
        return hierarchy_breakdowns(root, categories)[root.path].value if root else None
    if aggregation == CATEGORY_MEAN and respect:
        return mean(b.value for b in categories.values() if b.value is not None)
    if totals is None:
        return None
    numerator, denominator = totals
    return numerator / denominator if denominator else 0.0
