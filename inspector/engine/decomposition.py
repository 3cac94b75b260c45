"""B − A of one series split into parts that sum to it exactly: the Shapley split over groups.

Pure (no I/O). Side A and side B of a comparison are each a set of per-task rows (task id,
category, state, value — and a denominator for a ratio of sums) and a *structure* (the
aggregation: micro, category_mean or a hierarchy with its node weights; or a ratio of sums).
The tasks fall into at most six groups of changes:

- ``only_a``: tasks only side A has;  ``only_b``: tasks only side B has;
- ``state``: tasks on both sides whose state differs (evaluated ↔ error / unavailable /
  invalidated, or between those): the denominator;
- ``up`` / ``down``: tasks evaluated on both sides whose value rose / fell (for a binary
  series with one attempt a side, flips 0→1 and 1→0); for a ratio of sums, by the task's
  own ratio (numerator / denominator; a changed pair with an equal ratio counts as ``up``);
- ``weights``: the structure itself — the categories of tasks on both sides whose category
  moved, the hierarchy (its nodes' weights and aggregations) and the aggregation.

**Applying a set S of groups to A** makes a hybrid side: a task only in A is absent if
``only_a`` ∈ S, else it keeps A's row; a task only in B is present with B's row if
``only_b`` ∈ S; a task on both sides takes B's state and value if its group (``state``,
``up`` or ``down``) is in S, else A's (a task in no group has the same state and value on
both sides); its category — and the aggregation, hierarchy and ratio rule — are B's if
``weights`` ∈ S, else A's. ``v(S)`` is the hybrid's series value by the engine's rules
(micro, category mean, hierarchy: :func:`~inspector.engine.hierarchy.hierarchy_breakdowns`;
ratio of sums: :func:`~inspector.engine.ratio.ratio_of_totals`) from partial sums: the
tasks fall into blocks (group, B's row taken, B's category taken), each block's
per-category sums are taken once (O(tasks)), and a hybrid is the union of 2–6 blocks, so
each of the 2^|G| values costs O(categories), not O(tasks) (``benchmarks/
bench_decomposition.py``: 3.7-5.9 s → 0.11-0.13 s a series at 10,000 tasks). ``v(∅)`` must give A's
value and ``v(all)`` B's as :func:`side_value` computes them row by row (both checked, to
1e-12 relative; a pair where they are not, or where a hybrid's hierarchy is refused, gets
no decomposition). A ratio-of-sums series is rebuilt from the reductions of its numerator and
denominator metrics, under the report's aggregation or not (``respect``): whichever gives
the series' own value.

**Shapley over groups**: part_i = Σ over S ⊆ G∖{i} of |S|!(|G|−|S|−1)!/|G|! ·
(v(S ∪ {i}) − v(S)), over the non-empty groups G (2^|G| ≤ 64 evaluations). The parts sum
to v(all) − v(∅) = B − A (up to float rounding, < 1e-12) whatever the order of the groups,
and two groups with the same effect get the same part. A hybrid with no evaluated task
has no value; it counts as 0 and the decomposition says so (``null_mixes``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations

from inspector.engine.aggregation import TaskOutcome, aggregate_value, mean
from inspector.engine.corpus import UNCATEGORIZED
from inspector.engine.errors import AggregationError
from inspector.engine.hierarchy import HierarchyNode, hierarchy_breakdowns
from inspector.engine.ratio import RatioPair, ratio_breakdown, ratio_of_totals, ratio_value
from inspector.engine.recomputation import Recomputation
from inspector.engine.reduction import TaskReduction
from inspector.engine.report import (
    CATEGORY_HIERARCHY,
    CATEGORY_MEAN,
    MICRO_WEIGHTED,
    MetricBreakdown,
    MetricSeries,
    SeriesCounts,
)
from inspector.engine.strategies import metric_series_id
from inspector.engine.vocabulary import EVALUATED

METHOD = "Shapley over groups"
GROUPS = ("only_a", "only_b", "state", "up", "down", "weights")
MEAN, RATIO = "mean", "ratio_of_sums"
TOLERANCE = 1e-12


@dataclass(frozen=True, slots=True)
class TaskRow:
    """One task of one side for one series: what its aggregation reads."""

    task_id: str
    key: str  # the standard path's category key
    state: str
    value: float | None
    weight: float | None = None  # a ratio of sums: the task's denominator
    raw_category: str = UNCATEGORIZED  # a ratio of sums: the unstripped category


@dataclass(frozen=True, slots=True)
class Structure:
    """How a side turns rows into its value."""

    aggregation: str  # micro_weighted, category_mean, category_hierarchy
    root: HierarchyNode | None = None
    formula: str = MEAN  # or RATIO
    respect: bool = True  # a ratio of sums under the report's aggregation


@dataclass(frozen=True, slots=True)
class Side:
    rows: tuple[TaskRow, ...]
    structure: Structure
    value: float | None  # the side's own value (what v(∅) / v(all) must give)


@dataclass(frozen=True, slots=True)
class Part:
    group: str
    value: float
    task_ids: tuple[str, ...]
    nodes: tuple[str, ...] = ()  # weights: the categories / nodes whose weight moved


@dataclass(frozen=True)
class Decomposition:
    a: float
    b: float
    parts: tuple[Part, ...]
    binary: bool
    method: str = METHOD
    null_mixes: int = 0
    evaluations: int = 0
    notes: tuple[str, ...] = field(default=())

    @property
    def total(self) -> float:
        return self.b - self.a


def side_value(rows: Sequence[TaskRow], structure: Structure) -> float | None:
    """The series value of ``rows`` by the engine's own aggregation for ``structure``."""
    if structure.formula == RATIO:
        pairs = [
            RatioPair(r.task_id, r.raw_category, float(r.value), float(r.weight))
            for r in rows
            if r.state == EVALUATED and r.value is not None and r.weight is not None
        ]
        by_category: dict[str, list[RatioPair]] = {}
        for p in pairs:
            by_category.setdefault(p.category, []).append(p)
        names = sorted({r.key for r in rows})
        categories = {
            name: ratio_breakdown(by_category.get(name, []), SeriesCounts()) for name in names
        }
        root = structure.root
        return ratio_value(pairs, categories, structure.aggregation, root, structure.respect)[0]
    outcomes = [TaskOutcome(r.value, r.state, False) for r in rows]
    return aggregate_value(outcomes, [r.key for r in rows], structure.aggregation, structure.root)


def _group_of(a: TaskRow, b: TaskRow, formula: str) -> str | None:
    if a.state != b.state:
        return "state"
    if a.state != EVALUATED or (a.value, a.weight) == (b.value, b.weight):
        return None
    va, vb = float(a.value or 0.0), float(b.value or 0.0)
    if formula == RATIO:  # compare the task's own ratios, cross-multiplied (no division)
        va, vb = va * float(b.weight or 0.0), vb * float(a.weight or 0.0)
    return "down" if vb < va else "up"


def _node_changes(a: Structure, b: Structure) -> tuple[str, ...]:
    if (a.aggregation, a.formula, a.respect) != (b.aggregation, b.formula, b.respect):
        return ("(aggregation)",)
    nodes_a = {n.path: (n.aggregation, n.weight) for n in (a.root.walk() if a.root else ())}
    nodes_b = {n.path: (n.aggregation, n.weight) for n in (b.root.walk() if b.root else ())}
    return tuple(p for p in dict.fromkeys([*nodes_a, *nodes_b]) if nodes_a.get(p) != nodes_b.get(p))


def decompose(a: Side, b: Side, *, binary: bool = False) -> Decomposition | None:
    """B − A in parts per group (Shapley over groups); None when a side has no value or the
    hybrids do not reproduce the sides' own values."""
    if a.value is None or b.value is None:
        return None
    rows_a = {r.task_id: r for r in a.rows}
    rows_b = {r.task_id: r for r in b.rows}
    members: dict[str, list[str]] = {g: [] for g in GROUPS}
    group_of: dict[str, str | None] = {}
    for tid, row in rows_a.items():
        other = rows_b.get(tid)
        if other is None:
            members["only_a"].append(tid)
            continue
        group_of[tid] = _group_of(row, other, a.structure.formula)
        if group_of[tid] is not None:
            members[str(group_of[tid])].append(tid)
        if (row.key, row.raw_category) != (other.key, other.raw_category):
            members["weights"].append(tid)
    members["only_b"] = [t for t in rows_b if t not in rows_a]
    nodes = _node_changes(a.structure, b.structure)
    groups = [g for g in GROUPS if members[g] or (g == "weights" and nodes)]
    tallies = _tallies(rows_a, rows_b, group_of, a.structure.formula == RATIO)
    null = 0

    def v(applied: frozenset[str]) -> float:
        nonlocal null
        weights = "weights" in applied
        chosen = [tally for (block, taken, moved), tally in tallies.items()
                  if moved == weights and taken == (block in applied)]  # fmt: skip
        value = _hybrid_value(chosen, b.structure if weights else a.structure)
        if value is None:
            null += 1
            return 0.0
        return value

    try:
        values = {
            frozenset(s): v(frozenset(s))
            for n in range(len(groups) + 1)
            for s in combinations(groups, n)
        }
    except AggregationError:  # a mix the hierarchy refuses (a weighted node left weightless)
        return None
    if not _same(values[frozenset()], a.value) or not _same(values[frozenset(groups)], b.value):
        return None
    count = len(groups)
    parts = []
    for group in groups:
        rest = [g for g in groups if g != group]
        terms = []
        for n in range(count):
            share = math.factorial(n) * math.factorial(count - n - 1) / math.factorial(count)
            for subset in combinations(rest, n):
                s = frozenset(subset)
                terms.append(share * (values[s | {group}] - values[s]))
        parts.append(
            Part(
                group, math.fsum(terms), tuple(members[group]), nodes if group == "weights" else ()
            )
        )
    return Decomposition(a.value, b.value, tuple(parts), binary, null_mixes=null,
                         evaluations=len(values))  # fmt: skip


@dataclass(slots=True)
class _Tally:
    """The partial sums a series value reads of a set of task rows: per category, Σ of the
    evaluated values (a ratio: the numerators) and their number; for a ratio of sums, per
    (raw) category Σ denominators too, and the category keys the rows name."""

    sums: dict[str, float]
    counts: dict[str, int]
    weights: dict[str, float]
    keys: set[str]


def _tally(rows: Sequence[TaskRow], ratio: bool) -> _Tally:
    values: dict[str, list[float]] = {}
    weights: dict[str, list[float]] = {}
    for r in rows:
        if r.state != EVALUATED or r.value is None or (ratio and r.weight is None):
            continue
        category = r.raw_category if ratio else r.key
        values.setdefault(category, []).append(float(r.value))
        if ratio:
            weights.setdefault(category, []).append(float(r.weight or 0.0))
    return _Tally({c: math.fsum(v) for c, v in values.items()},
                  {c: len(v) for c, v in values.items()},
                  {c: math.fsum(w) for c, w in weights.items()}, {r.key for r in rows})  # fmt: skip


Block = tuple[str | None, bool, bool]
"""(group, B's state and value taken, B's category taken) of a set of task rows."""


def _tallies(
    rows_a: Mapping[str, TaskRow],
    rows_b: Mapping[str, TaskRow],
    group_of: Mapping[str, str | None],
    ratio: bool,
) -> dict[Block, _Tally]:
    """The partial sums of every block of tasks, once: a hybrid (a set S of groups applied)
    is the union of the blocks (g, g ∈ S, weights ∈ S), so its value is O(categories)."""
    blocks: dict[Block, list[TaskRow]] = {}
    for tid, row in rows_a.items():
        other = rows_b.get(tid)
        for moved in (False, True):
            if other is None:
                blocks.setdefault(("only_a", False, moved), []).append(row)
                continue
            shape = other if moved else row
            group = group_of[tid]
            for taken in (False, True) if group is not None else (False,):
                source = other if taken else row
                blocks.setdefault((group, taken, moved), []).append(
                    replace(source, key=shape.key, raw_category=shape.raw_category)
                )
    for tid, row in rows_b.items():
        if tid not in rows_a:
            for moved in (False, True):
                blocks.setdefault(("only_b", True, moved), []).append(row)
    return {block: _tally(rows, ratio) for block, rows in blocks.items()}


def _hybrid_value(tallies: Sequence[_Tally], structure: Structure) -> float | None:
    """What :func:`side_value` gives the union of the tallies' rows, from their sums."""
    sums: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    weights: dict[str, list[float]] = {}
    for tally in tallies:
        for c, total in tally.sums.items():
            sums.setdefault(c, []).append(total)
            counts[c] = counts.get(c, 0) + tally.counts[c]
        for c, total in tally.weights.items():
            weights.setdefault(c, []).append(total)
    if structure.formula == RATIO:
        categories = {}
        for name in sorted(set().union(*(t.keys for t in tallies))):
            num, den = math.fsum(sums.get(name, ())), math.fsum(weights.get(name, ()))
            value = (num / den if den else 0.0) if counts.get(name) else None
            categories[name] = MetricBreakdown(value, SeriesCounts(), den)
        totals = None
        if any(counts.values()):
            totals = (math.fsum(math.fsum(v) for v in sums.values()),
                      math.fsum(math.fsum(w) for w in weights.values()))  # fmt: skip
        return ratio_of_totals(totals, categories, structure.aggregation, structure.root,
                               structure.respect)  # fmt: skip
    means = {c: math.fsum(sums[c]) / counts[c] for c in sorted(sums) if counts[c]}
    if structure.aggregation == MICRO_WEIGHTED:
        total = sum(counts.values())
        return math.fsum(math.fsum(v) for v in sums.values()) / total if total else None
    if structure.aggregation == CATEGORY_MEAN:
        return mean(means.values())
    if structure.aggregation == CATEGORY_HIERARCHY and structure.root is not None:
        leaves = {c: MetricBreakdown(m, SeriesCounts(), float(counts[c])) for c, m in means.items()}
        return hierarchy_breakdowns(structure.root, leaves)[structure.root.path].value
    raise ValueError(f"unknown aggregation {structure.aggregation!r}")


def _same(x: float, y: float) -> bool:
    return x == y or abs(x - y) <= TOLERANCE * max(1.0, abs(y))


def series_side(rec: Recomputation, series: MetricSeries) -> Side | None:
    """The rows and structure of one series of a recomputation (None: a series the
    decomposition does not rebuild — a sum, a benchmark's own number)."""
    rows = rec.reductions.get(series.series_id)
    if rows is None or len(rows) != len(rec.tasks):
        return None
    keys = rec.category_keys
    raw = [str(t.category or UNCATEGORIZED) for t in rec.tasks]
    aggregation = rec.report.aggregation
    if series.aggregation == aggregation and aggregation in (
        MICRO_WEIGHTED, CATEGORY_MEAN, CATEGORY_HIERARCHY,
    ):  # fmt: skip
        structure = Structure(aggregation, rec.root)
        out = tuple(
            TaskRow(r.task_id, k, r.state, r.value, raw_category=c)
            for r, k, c in zip(rows, keys, raw, strict=True)
        )
        return Side(out, structure, series.shown_value)
    numerator, denominator = (
        series.extra.get("numerator_metric"),
        series.extra.get("denominator_metric"),
    )
    if (
        series.aggregation != RATIO
        or not isinstance(numerator, str)
        or not isinstance(denominator, str)
    ):
        return None
    k = rec.report.k
    num = _values(rec.reductions.get(metric_series_id(numerator, series.reducer, k)))
    den = _values(rec.reductions.get(metric_series_id(denominator, series.reducer, k)))
    out = tuple(
        TaskRow(r.task_id, key, r.state, num.get(r.task_id), den.get(r.task_id), c)
        for r, key, c in zip(rows, keys, raw, strict=True)
    )
    for respect in (True, False):  # which rule the benchmark used: the one giving its value
        structure = Structure(aggregation, rec.root, RATIO, respect)
        value = side_value(out, structure)
        if (
            value is not None
            and series.shown_value is not None
            and _same(value, series.shown_value)
        ):
            return Side(out, structure, series.shown_value)
    return None


def _values(rows: Sequence[TaskReduction] | None) -> Mapping[str, float]:
    return {
        r.task_id: float(r.value)
        for r in rows or ()
        if r.state == EVALUATED and r.value is not None
    }


def decompose_series(
    a: Recomputation,
    b: Recomputation,
    series_a: MetricSeries,
    series_b: MetricSeries,
    *,
    binary: bool = False,
) -> Decomposition | None:
    """B − A of one series pair of two recomputations, in parts (see the module)."""
    side_a, side_b = series_side(a, series_a), series_side(b, series_b)
    if side_a is None or side_b is None:
        return None
    return decompose(side_a, side_b, binary=binary)
