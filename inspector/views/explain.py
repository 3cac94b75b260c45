""" "Explain this number": the formula, the weights and the task values behind a value.

Pure (no textual, no rich, no I/O). The inputs are read from one
:class:`~inspector.engine.Recomputation` — task reductions, category breakdowns and
hierarchy nodes of its report — and the weights after re-normalisation come from
:func:`inspector.engine.hierarchy.node_weights`. ``Explanation.check`` re-combines the shown
inputs with the engine's own arithmetic (``mean`` = ``fsum(v/n)``, ``fsum(v·w)``), so a view
can show that the parts add up to the number; it is never shown *instead of* the number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from inspector.engine.aggregation import mean
from inspector.engine.hierarchy import HierarchyNode, node_weights
from inspector.engine.recomputation import Recomputation
from inspector.engine.report import (
    CATEGORY_HIERARCHY,
    CATEGORY_MEAN,
    ZERO_BREAKDOWN,
    MetricBreakdown,
    MetricSeries,
)
from inspector.engine.strategies import metric_series_id
from inspector.engine.vocabulary import EVALUATED
from inspector.views.audit import (
    SERIES_SCOPE,
    AuditError,
    LedgerTask,
    Scope,
    find_node,
    reductions_of,
    scoped_tasks,
    series_of,
)


@dataclass(frozen=True, slots=True)
class Term:
    """One input of a formula: a task, a category or a child node."""

    label: str
    value: float | None
    # The effective weight after re-normalisation; None where the formula has no weights.
    weight: float | None = None
    # What the term is: "task", "category", "node"; a child's scope for drilling down.
    kind: str = "task"
    scope: Scope | None = None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Explanation:
    """How one value of the report is made."""

    series_id: str
    scope: Scope
    value: float | None
    is_reference: bool
    formula: str
    terms: tuple[Term, ...]
    # The evaluated tasks that fed the value (all of them, also under a node).
    tasks: tuple[LedgerTask, ...]
    notes: tuple[str, ...]
    # The inputs re-combined with the engine's arithmetic; None when there is no formula.
    check: float | None

    @property
    def agrees(self) -> bool:
        """True when the shown inputs re-combine to exactly the reported value."""
        if self.value is None or self.check is None:
            return self.value == self.check
        return self.value == self.check


def _task_terms(tasks: Sequence[LedgerTask]) -> tuple[Term, ...]:
    n = len(tasks)
    return tuple(Term(t.task_id, t.value, 1.0 / n, "task", detail=t.category) for t in tasks)


def _evaluated(tasks: Sequence[LedgerTask]) -> tuple[LedgerTask, ...]:
    return tuple(t for t in tasks if t.state == EVALUATED)


def _part(series: MetricSeries, scope: Scope) -> MetricBreakdown | MetricSeries:
    if scope.node is not None:
        return series.hierarchy.get(scope.node, ZERO_BREAKDOWN)
    if scope.category is not None:
        if scope.category not in series.categories:
            raise AuditError(f"no category {scope.category!r} in {series.series_id}")
        return series.categories[scope.category]
    return series


Parts = tuple[str, tuple[Term, ...], float | None]


def explain(rec: Recomputation, series_id: str | None, scope: Scope = SERIES_SCOPE) -> Explanation:
    """Explain the value of a series, one of its categories, or one hierarchy node."""
    series = series_of(rec, series_id)
    part = _part(series, scope)
    value = part.shown_value
    is_reference = part.value is None and part.reference_value is not None
    notes: list[str] = []
    if is_reference:
        notes.append(
            "the evaluation failed (a task is invalidated): this is the reference value over "
            "the non-invalidated tasks, and the official value is null"
        )
    if reductions_of(rec, series.series_id) is None:
        formula = "no task reductions stand behind this series"
        return Explanation(
            series.series_id, scope, value, is_reference, formula, (), (), tuple(notes), value
        )
    if scope.node is not None:
        node = find_node(rec, scope.node)
        if node.is_leaf:
            notes.append(f"a leaf is the category of the same name, {node.name!r}")
            if node.name not in series.categories:
                notes.append("no task has this category: a zero-count null node")
                return Explanation(
                    series.series_id, scope, value, is_reference,
                    "leaf with no category of this name", (), (), tuple(notes), None,
                )  # fmt: skip
            scope = Scope(category=node.name)
    formula, terms, check, scope = _formula(rec, series, scope, notes)
    tasks = _evaluated(scoped_tasks(rec, series.series_id, scope))
    return Explanation(
        series.series_id, scope, value, is_reference, formula, terms, tasks, tuple(notes), check
    )


def _formula(
    rec: Recomputation, series: MetricSeries, scope: Scope, notes: list[str]
) -> tuple[str, tuple[Term, ...], float | None, Scope]:
    aggregation = series.aggregation
    if aggregation == "benchmark":
        if scope == SERIES_SCOPE:
            text = "the value is supplied by the benchmark (not computed)"
        else:
            text = "mean of the task values the benchmark supplied (the engine keeps no copy)"
        return text, (), _part(series, scope).shown_value, scope
    if scope.node is not None:
        return (*_node(rec, series, find_node(rec, scope.node), notes), scope)
    if scope == SERIES_SCOPE:
        root_value = _root_value(rec, series)
        if rec.root is not None and (
            aggregation == CATEGORY_HIERARCHY
            or (aggregation == "ratio_of_sums" and root_value == series.shown_value)
        ):
            notes.append(_outside_tree(rec, series))
            node_scope = Scope(node=rec.root.path)
            return (*_node(rec, series, rec.root, notes), node_scope)
        if aggregation == CATEGORY_MEAN or (
            aggregation == "ratio_of_sums" and _is_category_mean(rec, series)
        ):
            return (*_category_mean(series, notes), scope)
    if aggregation == "ratio_of_sums":
        return (*_ratio(rec, series, scope, notes), scope)
    tasks = _evaluated(scoped_tasks(rec, series.series_id, scope))
    values = [t.value for t in tasks]
    if aggregation == "sum":
        terms = tuple(Term(t.task_id, t.value, None, "task", detail=t.category) for t in tasks)
        check = math.fsum(values) if values else None  # type: ignore[arg-type]
        return "fsum of the evaluated task values", terms, check, scope
    formula = f"mean of the {len(values)} evaluated task values: fsum(v / n)"
    return formula, _task_terms(tasks), mean(values), scope  # type: ignore[arg-type]


def _root_value(rec: Recomputation, series: MetricSeries) -> float | None:
    if rec.root is None or rec.root.path not in series.hierarchy:
        return None
    return series.hierarchy[rec.root.path].shown_value


def _is_category_mean(rec: Recomputation, series: MetricSeries) -> bool:
    """A ratio series that respects ``category_mean`` (spec §7.3)."""
    values = [b.shown_value for b in series.categories.values() if b.shown_value is not None]
    return (
        rec.report.aggregation == CATEGORY_MEAN
        and series.shown_value is not None
        and mean(values) == series.shown_value
    )


def _category_mean(series: MetricSeries, notes: list[str]) -> Parts:
    valid = [(k, b) for k, b in series.categories.items() if b.shown_value is not None]
    nulls = [k for k, b in series.categories.items() if b.shown_value is None]
    if nulls:
        notes.append(f"categories with no evaluated task are left out: {', '.join(nulls)}")
    terms = tuple(
        Term(k, b.shown_value, 1.0 / len(valid), "category", Scope(category=k)) for k, b in valid
    )
    formula = f"unweighted mean of the {len(valid)} category values that are not null"
    return formula, terms, mean(b.shown_value for _, b in valid)  # type: ignore[misc]


def _outside_tree(rec: Recomputation, series: MetricSeries) -> str:
    assert rec.root is not None
    leaves = {n.name for n in rec.root.walk() if n.is_leaf}
    outside = [k for k in series.categories if k not in leaves]
    text = "the series value is the hierarchy root's value"
    if outside:
        text += (
            "; categories outside the tree count in the series counts but not in its value: "
            + ", ".join(outside)
        )
    return text


def _node(rec: Recomputation, series: MetricSeries, node: HierarchyNode, notes: list[str]) -> Parts:
    """An internal node: its children's values and their weights after re-normalisation."""
    breakdowns = series.hierarchy
    children = [(c, breakdowns.get(c.path, ZERO_BREAKDOWN)) for c in node.children]
    valid = [(c, b) for c, b in children if b.shown_value is not None]
    null = [c.name for c, b in children if b.shown_value is None]
    if null:
        notes.append(f"children with a null value are left out: {', '.join(null)}")
    if series.aggregation == "sum":
        terms = tuple(
            Term(c.name, b.shown_value, None, "node", Scope(node=c.path)) for c, b in valid
        )
        check = math.fsum(b.shown_value for _, b in valid) if valid else None  # type: ignore[misc]
        return "fsum of the children's values (sum series)", terms, check
    weights = node_weights(node, breakdowns)
    terms = tuple(
        Term(
            c.name, b.shown_value, weights.get(c.path), "node", Scope(node=c.path),
            detail=_weight_detail(node, c, b),
        )
        for c, b in valid
    )  # fmt: skip
    if not valid:
        return f"{node.aggregation}: no child has a value, so the node is null", terms, None
    if node.aggregation == "unweighted":
        formula = f"unweighted mean of the {len(valid)} children with a value"
        return formula, terms, mean(b.shown_value for _, b in valid)  # type: ignore[misc]
    if node.aggregation == "weighted":
        formula = (
            "weighted: the declared weights of the children with a value, divided by their "
            "largest and re-normalised to sum to 1; value = fsum(v · w)"
        )
    else:
        formula = (
            "weighted_by_count: each child's aggregation_weight, re-normalised over the "
            "children with a value; value = fsum(v · w)"
        )
        if not math.fsum(_count(b) for _, b in valid) > 0:
            notes.append("every valued child has weight 0, so AgentCompass gives the value 0.0")
            return formula, terms, 0.0
    check = math.fsum(b.shown_value * weights[c.path] for c, b in valid)  # type: ignore[operator]
    return formula, terms, check


def _count(part: MetricBreakdown) -> float:
    if part.aggregation_weight is not None:
        return part.aggregation_weight
    return float(part.counts.evaluated)


def _weight_detail(node: HierarchyNode, child: HierarchyNode, part: MetricBreakdown) -> str:
    if node.aggregation == "weighted":
        return f"declared weight {child.weight:g}" if child.weight is not None else "no weight"
    if node.aggregation == "weighted_by_count":
        return f"aggregation_weight {_count(part):g}"
    return ""


def _ratio(rec: Recomputation, series: MetricSeries, scope: Scope, notes: list[str]) -> Parts:
    """Σ numerator / Σ denominator over the evaluated tasks of the scope (spec §7.3)."""
    formula = "Σ numerator / Σ denominator over the evaluated tasks (0.0 when Σ denominator is 0)"
    evaluated = [t.task_id for t in _evaluated(scoped_tasks(rec, series.series_id, scope))]
    numerator_id = series.extra.get("numerator_metric")
    denominator_id = series.extra.get("denominator_metric")
    if not (isinstance(numerator_id, str) and isinstance(denominator_id, str)):
        notes.append("the per-task numerators and denominators were supplied by the benchmark")
        if scope != SERIES_SCOPE:
            return formula, (), _part(series, scope).shown_value
        total_n = series.extra.get("numerator_total")
        total_d = series.extra.get("denominator_total")
        terms: tuple[Term, ...] = (
            Term("numerator_total", total_n, kind="sum"),
            Term("denominator_total", total_d, kind="sum"),
        )
        if not evaluated or not isinstance(total_n, float) or not isinstance(total_d, float):
            return formula, terms, series.shown_value
        return formula, terms, (total_n / total_d if total_d else 0.0)
    num = _values(rec, metric_series_id(numerator_id, series.reducer, series.k))
    den = _values(rec, metric_series_id(denominator_id, series.reducer, series.k))
    terms = tuple(
        Term(t, num[t], den[t], "task", detail=f"{num[t]:g} / {den[t]:g}") for t in evaluated
    )
    if not terms:
        return formula, terms, None
    sum_n = math.fsum(num[t] for t in evaluated)
    sum_d = math.fsum(den[t] for t in evaluated)
    notes.append(
        f"Σ {numerator_id} = {sum_n:g}, Σ {denominator_id} = {sum_d:g}; "
        "each task's weight column holds its denominator"
    )
    return formula, terms, (sum_n / sum_d if sum_d else 0.0)


def _values(rec: Recomputation, series_id: str) -> dict[str, float]:
    rows = rec.reductions.get(series_id, ())
    return {r.task_id: float(r.value) for r in rows if r.value is not None}
