"""Category hierarchies: parsing and node values (spec §7.2, §10 items 19–23, 51)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.engine.errors import AggregationError, HierarchyError
from inspector.engine.report import ZERO_BREAKDOWN, MetricBreakdown, sum_counts

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy.typing import NDArray

NODE_FIELDS = frozenset({"aggregation", "children", "weight"})
NODE_AGGREGATIONS = frozenset({"leaf", "unweighted", "weighted", "weighted_by_count"})


def path_segment(name: str) -> str:
    """Escape a node name JSON-Pointer style: ``~`` → ``~0``, ``/`` → ``~1``."""
    return name.replace("~", "~0").replace("/", "~1")


@dataclass(frozen=True, slots=True)
class HierarchyNode:
    name: str
    path: str
    aggregation: str
    weight: float | None
    children: tuple[HierarchyNode, ...]

    @property
    def is_leaf(self) -> bool:
        return self.aggregation == "leaf"

    def walk(self) -> list[HierarchyNode]:
        """This node and every descendant, parents first."""
        out = [self]
        for child in self.children:
            out.extend(child.walk())
        return out


def _weight(value: Any, path: str) -> float | None:
    if value is None:
        return None
    if type(value) not in (int, float):
        raise HierarchyError(f"hierarchy node '{path}' weight must be a finite non-negative number")
    try:
        weight = float(value)
    except OverflowError:
        raise HierarchyError(f"hierarchy node '{path}' weight must be finite") from None
    if not math.isfinite(weight) or weight < 0:
        raise HierarchyError(f"hierarchy node '{path}' weight must be a finite non-negative number")
    return weight


def _parse_node(
    name: Any, payload: Any, parent: str | None, ancestors: frozenset[int]
) -> HierarchyNode:
    if type(name) is not str or not name.strip() or name != name.strip():
        raise HierarchyError(
            "hierarchy node names must be non-empty strings without surrounding whitespace"
        )
    path = path_segment(name) if parent is None else f"{parent}/{path_segment(name)}"
    if not isinstance(payload, Mapping):
        raise HierarchyError(f"hierarchy node '{path}' must be a mapping")
    if id(payload) in ancestors:
        raise HierarchyError(f"hierarchy node '{path}' contains a cycle")
    unknown = set(payload) - NODE_FIELDS
    if unknown:
        raise HierarchyError(
            f"hierarchy node '{path}' has unsupported fields: {', '.join(sorted(map(str, unknown)))}"
        )
    aggregation = payload.get("aggregation", "leaf")
    if type(aggregation) is not str or aggregation not in NODE_AGGREGATIONS:
        raise HierarchyError(
            f"hierarchy node '{path}' aggregation must be one of: {', '.join(sorted(NODE_AGGREGATIONS))}"
        )
    weight = _weight(payload.get("weight"), path)
    raw_children = payload.get("children")
    if aggregation == "leaf":
        if raw_children not in (None, {}):
            raise HierarchyError(f"leaf hierarchy node '{path}' cannot have children")
        return HierarchyNode(name, path, aggregation, weight, ())
    if not isinstance(raw_children, Mapping) or not raw_children:
        raise HierarchyError(f"hierarchy node '{path}' requires a non-empty children mapping")
    inner = ancestors | {id(payload)}
    children = tuple(_parse_node(n, p, path, inner) for n, p in raw_children.items())
    if aggregation == "weighted":
        missing = [c.name for c in children if c.weight is None]
        if missing:
            raise HierarchyError(
                f"weighted hierarchy node '{path}' requires a weight for every child: {', '.join(missing)}"
            )
    return HierarchyNode(name, path, aggregation, weight, children)


def parse_hierarchy(value: Any) -> HierarchyNode | None:
    """Parse ``category_hierarchy``; ``None`` or ``{}`` means no hierarchy."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise HierarchyError("category_hierarchy must be a mapping or null")
    if not value:
        return None
    if set(value) != {"overall"}:
        raise HierarchyError("category_hierarchy must contain exactly one 'overall' root")
    root = _parse_node("overall", value["overall"], None, frozenset())
    leaves: dict[str, str] = {}
    for node in root.walk():
        if node.is_leaf:
            if node.name in leaves:
                raise HierarchyError(
                    f"hierarchy category leaf '{node.name}' is repeated at '{leaves[node.name]}' and '{node.path}'"
                )
            leaves[node.name] = node.path
    return root


def _count_weight(part: MetricBreakdown) -> float:
    if part.aggregation_weight is not None:
        return part.aggregation_weight
    return float(part.counts.evaluated)


def hierarchy_breakdowns(
    root: HierarchyNode,
    categories: Mapping[str, MetricBreakdown],
    *,
    aggregation_override: str | None = None,
) -> dict[str, MetricBreakdown]:
    """Every node's breakdown keyed by escaped path (children before parents)."""
    out: dict[str, MetricBreakdown] = {}

    def reduce(node: HierarchyNode) -> MetricBreakdown:
        if node.is_leaf:
            result = categories.get(node.name, ZERO_BREAKDOWN)
            out[node.path] = result
            return result
        results = [(child, reduce(child)) for child in node.children]
        counts = sum_counts(r.counts for _, r in results)
        weight_total = math.fsum(_count_weight(r) for _, r in results)
        valid = [(c, r, r.value) for c, r in results if r.value is not None]
        value: float | None = None
        if valid and aggregation_override == "sum":
            value = math.fsum(v for _, _, v in valid)
        elif valid and node.aggregation == "unweighted":
            value = math.fsum(v / len(valid) for _, _, v in valid)
        elif valid and node.aggregation == "weighted":
            weights = [c.weight or 0.0 for c, _, _ in valid]
            scale = max(weights)
            if scale <= 0:
                raise AggregationError(
                    f"weighted hierarchy node '{node.path}' has no positive weight among valid children"
                )
            scaled = [w / scale for w in weights]
            denominator = math.fsum(scaled)
            value = math.fsum(
                v * (w / denominator) for (_, _, v), w in zip(valid, scaled, strict=True)
            )
        elif valid and node.aggregation == "weighted_by_count":
            weights = [_count_weight(r) for _, r, _ in valid]
            denominator = math.fsum(weights)
            if denominator <= 0:
                value = 0.0
            else:
                value = math.fsum(
                    v * (w / denominator) for (_, _, v), w in zip(valid, weights, strict=True)
                )
        result = MetricBreakdown(value=value, counts=counts, aggregation_weight=weight_total)
        out[node.path] = result
        return result

    reduce(root)
    return out


def node_weights(
    node: HierarchyNode, breakdowns: Mapping[str, MetricBreakdown]
) -> dict[str, float]:
    """The effective weight of each valid child after re-normalisation (for "explain")."""
    children = [(c, breakdowns.get(c.path, ZERO_BREAKDOWN)) for c in node.children]
    valid = [(c, b) for c, b in children if b.shown_value is not None]
    if not valid:
        return {}
    if node.aggregation == "unweighted":
        return {c.path: 1.0 / len(valid) for c, _ in valid}
    if node.aggregation == "weighted":
        weights = [c.weight or 0.0 for c, _ in valid]
        scale = max(weights)
        if scale <= 0:
            return {}
        scaled = [w / scale for w in weights]
        total = math.fsum(scaled)
        return {c.path: w / total for (c, _), w in zip(valid, scaled, strict=True)}
    weights = [_count_weight(b) for _, b in valid]
    total = math.fsum(weights)
    if total <= 0:
        return {c.path: 0.0 for c, _ in valid}
    return {c.path: w / total for (c, _), w in zip(valid, weights, strict=True)}


def resampled_node_values(
    root: HierarchyNode,
    leaves: Mapping[str, tuple[NDArray[np.float64], NDArray[np.float64]]],
    resamples: int,
) -> NDArray[np.float64]:
    """The root's value for many resamples at once, by the rules of
    :func:`hierarchy_breakdowns`: ``leaves[name]`` is each resample's (category mean, NaN
    when null; number of evaluated tasks). A child without a value drops out and the
    weights of the others are re-normalised; a ``weighted`` node with no positive weight
    left is NaN (the report would refuse it); ``weighted_by_count`` with no count is 0."""
    import numpy as np  # the report path needs no numpy

    nothing = (np.full(resamples, np.nan), np.zeros(resamples))

    def reduce(node: HierarchyNode) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        if node.is_leaf:
            return leaves.get(node.name, nothing)
        parts = [reduce(child) for child in node.children]
        values = np.stack([v for v, _ in parts])
        counts = np.stack([w for _, w in parts])
        valid = ~np.isnan(values)
        filled = np.where(valid, values, 0.0)
        any_valid = valid.any(axis=0)
        if node.aggregation == "unweighted":
            weights = valid.astype(float)
        elif node.aggregation == "weighted":
            fixed = np.array([c.weight or 0.0 for c in node.children])[:, None]
            weights = np.where(valid, fixed, 0.0)
        else:  # weighted_by_count
            weights = np.where(valid, counts, 0.0)
        total = weights.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = (filled * weights).sum(axis=0) / np.where(total > 0, total, 1.0)
        if node.aggregation == "weighted":
            value = np.where(total > 0, value, np.nan)
        elif node.aggregation == "weighted_by_count":
            value = np.where(total > 0, value, 0.0)
        return np.where(any_valid, value, np.nan), counts.sum(axis=0)

    return reduce(root)[0]
