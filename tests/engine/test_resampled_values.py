"""``resampled_values`` (the aggregation of resampled tasks the paired interval uses) gives
back the report's own value on the tasks as they are, for every aggregation."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.engine.aggregation import TaskOutcome, aggregate_series, resampled_values
from inspector.engine.contract import make_metric_contract
from inspector.engine.hierarchy import parse_hierarchy
from inspector.engine.strategies import resolve_attempt_strategy

CONTRACT = make_metric_contract("score", scalar=["score"])
PLAN = resolve_attempt_strategy("avg").resolve(CONTRACT, 1).series[0]
HIERARCHIES = [
    {"overall": {"aggregation": "unweighted", "children": {"a": {}, "b": {}, "c": {}}}},
    {"overall": {"aggregation": "weighted", "children": {
        "ab": {"aggregation": "weighted_by_count", "weight": 2, "children": {"a": {}, "b": {}}},
        "c": {"weight": 0.5}, "d": {"weight": 1}}}},
]  # fmt: skip

outcome_st = st.tuples(
    st.sampled_from("abcd"),
    st.one_of(st.none(), st.floats(0, 1, allow_nan=False)),
)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(outcome_st, min_size=1, max_size=30),
       how=st.sampled_from(["micro_weighted", "category_mean", 0, 1]))  # fmt: skip
def test_resampled_values_of_the_tasks_as_they_are_is_the_report_value(rows, how) -> None:
    keys = [k for k, _ in rows]
    outcomes = [TaskOutcome(v, "evaluated" if v is not None else "error", v is None)
                for _, v in rows]  # fmt: skip
    root = None
    aggregation = how
    if isinstance(how, int):
        root, aggregation = parse_hierarchy(HIERARCHIES[how]), "category_hierarchy"
    series = aggregate_series(PLAN, None, outcomes, keys, aggregation, root)
    names = sorted(set(keys))
    sums = np.array([[sum(v for k, v in rows if k == n and v is not None) for n in names]])
    counts = np.array([[sum(1.0 for k, v in rows if k == n and v is not None) for n in names]])
    got = float(resampled_values(aggregation, sums, counts, names, root)[0])
    if series.value is None:
        assert math.isnan(got)
    else:
        assert math.isclose(got, series.value, rel_tol=1e-12, abs_tol=1e-12)
