"""The delta of a series split into parts (Shapley over groups) that sum to it exactly."""

from __future__ import annotations

import math
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.engine.decomposition import (
    RATIO,
    Side,
    Structure,
    TaskRow,
    decompose,
    side_value,
)
from inspector.engine.hierarchy import parse_hierarchy

HIERARCHIES = [
    {"overall": {"aggregation": "unweighted", "children": {"a": {}, "b": {}, "c": {}}}},
    {"overall": {"aggregation": "weighted", "children": {
        "ab": {"aggregation": "weighted_by_count", "weight": 2, "children": {"a": {}, "b": {}}},
        "c": {"weight": 0.5}, "d": {"weight": 1}}}},
    {"overall": {"aggregation": "weighted", "children": {
        "ab": {"aggregation": "unweighted", "weight": 1, "children": {"a": {}, "b": {}}},
        "c": {"weight": 3}, "d": {"weight": 1}}}},
]  # fmt: skip
STATES = ["evaluated", "evaluated", "evaluated", "error", "unavailable", "invalidated"]
AGGREGATIONS = ["micro_weighted", "category_mean", 0, 1, 2]


def _structure(how: object, ratio: bool, respect: bool) -> Structure:
    formula = RATIO if ratio else "mean"
    if isinstance(how, int):
        return Structure("category_hierarchy", parse_hierarchy(HIERARCHIES[how]), formula, respect)
    return Structure(str(how), None, formula, respect)


def _sides(draw: st.DrawFn, *, binary: bool, ratio: bool) -> tuple[Side, Side]:
    respect = draw(st.booleans())
    sides = []
    for _ in range(2):
        present = draw(st.lists(st.integers(0, 11), min_size=0, max_size=12, unique=True))
        rows = []
        for i in present:
            state = draw(st.sampled_from(STATES))
            value = draw(st.sampled_from([0.0, 1.0]) if binary else st.floats(0, 10))
            weight = draw(st.one_of(st.just(0.0), st.floats(0.5, 5))) if ratio else None
            category = draw(st.sampled_from("abcd"))
            evaluated = state == "evaluated"
            rows.append(TaskRow(f"t{i}", category, state, value if evaluated else None,
                                weight if evaluated else None, category))  # fmt: skip
        structure = _structure(draw(st.sampled_from(AGGREGATIONS)), ratio, respect)
        sides.append(Side(tuple(rows), structure, side_value(rows, structure)))
    return sides[0], sides[1]


@st.composite
def pairs(draw: st.DrawFn) -> tuple[Side, Side, bool]:
    binary = draw(st.booleans())
    ratio = not binary and draw(st.booleans())
    a, b = _sides(draw, binary=binary, ratio=ratio)
    return a, b, binary


@settings(max_examples=400, deadline=None)
@given(pair=pairs())
def test_the_parts_sum_to_the_delta_exactly(pair: tuple[Side, Side, bool]) -> None:
    """micro, category_mean, hierarchies and ratios of sums; tasks on one side, state
    changes, values up and down, categories and hierarchies that differ."""
    a, b, binary = pair
    d = decompose(a, b, binary=binary)
    if a.value is None or b.value is None:
        assert d is None
        return
    assert d is not None
    assert (d.a, d.b) == (a.value, b.value)
    assert abs(math.fsum(p.value for p in d.parts) - (b.value - a.value)) <= 1e-12
    assert len(d.parts) <= 6 and d.evaluations == 2 ** len(d.parts)


def test_two_groups_split_as_the_mean_of_both_orders() -> None:
    """Worked by hand: A = 1, 1, 0, 0 (micro 0.5); in B t1 errors and t2 flips down (0).
    v(∅) = 1/2, v(state) = 1/3 (t2..t4), v(down) = 1/4, v(both) = 0: the state part is
    ½((1/3 − 1/2) + (0 − 1/4)) = −5/24 and the flip part ½((1/4 − 1/2) + (0 − 1/3)) = −7/24."""
    micro = Structure("micro_weighted")
    rows_a = [TaskRow(f"t{i}", "x", "evaluated", v) for i, v in enumerate([1.0, 1.0, 0.0, 0.0], 1)]
    rows_b = [TaskRow("t1", "x", "error", None), TaskRow("t2", "x", "evaluated", 0.0), *rows_a[2:]]
    d = decompose(Side(tuple(rows_a), micro, 0.5), Side(tuple(rows_b), micro, 0.0), binary=True)
    assert d is not None
    parts = {p.group: p for p in d.parts}
    assert set(parts) == {"state", "down"}
    assert parts["state"].value == pytest.approx(-5 / 24, abs=1e-15)
    assert parts["down"].value == pytest.approx(-7 / 24, abs=1e-15)
    assert (parts["state"].task_ids, parts["down"].task_ids) == (("t1",), ("t2",))


def test_tasks_on_one_side_and_a_moved_weight_each_get_a_part() -> None:
    """A has t1 (a: 1) and t2 (c: 0); B drops t2, adds t3 (c: 1) and weights c 3 to 1
    against ab: the groups are only_a, only_b and weights, and the weights part names
    the node whose weight moved."""
    h1, h2 = parse_hierarchy(HIERARCHIES[1]), parse_hierarchy(HIERARCHIES[2])
    a = [TaskRow("t1", "a", "evaluated", 1.0), TaskRow("t2", "c", "evaluated", 0.0)]
    b = [TaskRow("t1", "a", "evaluated", 1.0), TaskRow("t3", "c", "evaluated", 1.0)]
    sa, sb = Structure("category_hierarchy", h1), Structure("category_hierarchy", h2)
    d = decompose(Side(tuple(a), sa, side_value(a, sa)), Side(tuple(b), sb, side_value(b, sb)))
    assert d is not None
    parts = {p.group: p for p in d.parts}
    assert set(parts) == {"only_a", "only_b", "weights"}
    assert parts["only_a"].task_ids == ("t2",) and parts["only_b"].task_ids == ("t3",)
    assert "overall/ab" in parts["weights"].nodes and "overall/c" in parts["weights"].nodes
    # B = 1 (every valid leaf is 1), A = (2·1 + 0.5·0) / 2.5 = 0.8 under h1
    assert (d.a, d.b) == (pytest.approx(0.8), 1.0)


def test_the_split_does_not_depend_on_the_order_of_the_groups() -> None:
    """Shapley: the parts are averages over every order; brute force over the 3! orders."""
    micro = Structure("category_mean")
    a = [TaskRow("t1", "a", "evaluated", 1.0), TaskRow("t2", "b", "evaluated", 0.0),
         TaskRow("t3", "b", "evaluated", 1.0)]  # fmt: skip
    b = [TaskRow("t1", "a", "evaluated", 0.0), TaskRow("t2", "b", "error", None),
         TaskRow("t4", "c", "evaluated", 1.0)]  # fmt: skip
    d = decompose(Side(tuple(a), micro, side_value(a, micro)),
                  Side(tuple(b), micro, side_value(b, micro)))  # fmt: skip
    assert d is not None
    groups = {"only_a": {"t3"}, "only_b": {"t4"}, "state": {"t2"}, "down": {"t1"}}

    def v(applied: set[str]) -> float:
        ids = set().union(*(groups[g] for g in applied)) if applied else set()
        rows = [r for r in a if not (r.task_id == "t3" and "only_a" in applied)]
        rows = [next(x for x in b if x.task_id == r.task_id) if r.task_id in ids else r
                for r in rows]  # fmt: skip
        rows += [r for r in b if r.task_id == "t4" and "only_b" in applied]
        value = side_value(rows, micro)
        assert value is not None
        return value

    names = list(groups)
    orders = list(__import__("itertools").permutations(names))
    for group in names:
        marginal = []
        for order in orders:
            before = set(order[: order.index(group)])
            marginal.append(v(before | {group}) - v(before))
        expected = math.fsum(marginal) / len(orders)
        got = next(p.value for p in d.parts if p.group == group)
        assert got == pytest.approx(expected, abs=1e-15)
    assert len(list(combinations(names, 2))) == 6  # four groups: 2⁴ mixes evaluated
    assert d.evaluations == 16


def test_a_mix_the_hierarchy_refuses_gives_no_decomposition() -> None:
    """B weights c at 0: the hybrid with B's hierarchy and A's tasks (only c has a value)
    has no positive weight left, which the engine refuses — no decomposition, not a crash."""
    zero = parse_hierarchy({"overall": {"aggregation": "weighted", "children": {
        "c": {"weight": 0}, "d": {"weight": 1}}}})  # fmt: skip
    one = parse_hierarchy({"overall": {"aggregation": "weighted", "children": {
        "c": {"weight": 1}, "d": {"weight": 1}}}})  # fmt: skip
    a = [TaskRow("t1", "c", "evaluated", 1.0)]
    b = [TaskRow("t1", "c", "evaluated", 1.0), TaskRow("t2", "d", "evaluated", 0.0)]
    sa, sb = Structure("category_hierarchy", one), Structure("category_hierarchy", zero)
    assert decompose(Side(tuple(a), sa, 1.0), Side(tuple(b), sb, 0.0)) is None
