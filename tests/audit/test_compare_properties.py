"""Property tests of the one comparison model (issue 37): sides by set membership, changes
at the reported precision, and the paired analysis of the series delta itself.

Runs are generated as the engine's input (tasks and attempts) and scored by ``recompute``;
the expectations are worked out here from the generated attempts (exact fractions, set
operations), not read from the comparison under test.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.cli.diff import comparison_json
from inspector.engine.contract import make_metric_contract
from inspector.engine.model import Attempt, TaskRecord
from inspector.engine.plan import Plan
from inspector.engine.recomputation import recompute
from inspector.views.compare import compare, compare_plans

BINARY = make_metric_contract("correct", binary=["correct"])
SCALAR = make_metric_contract("score", scalar=["score"])
CATEGORIES = ("a", "b", "c")
HIERARCHY = {
    "overall": {
        "aggregation": "weighted",
        "children": {
            "ab": {"aggregation": "weighted_by_count", "weight": 3,
                   "children": {"a": {}, "b": {}}},
            "c": {"weight": 1},
        },
    }
}  # fmt: skip
SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])  # fmt: skip

# A task: its category and its attempts' values (None: the attempt is missing).
task_st = st.tuples(
    st.sampled_from(CATEGORIES),
    st.lists(st.one_of(st.none(), st.integers(0, 10)), min_size=3, max_size=3),
)


def _task(tid: str, category: str, values: list[int | None], k: int, metric: str,
          tenths: bool) -> TaskRecord:  # fmt: skip
    attempts = {}
    for i, v in enumerate(values[:k], 1):
        if v is not None:
            observed: float | bool = v / 10 if tenths else v >= 5
            attempts[i] = Attempt(index=i, status="completed", metrics={metric: observed})
    return TaskRecord(tid, category, k, "avg", attempts)


def _run(tasks: dict[str, tuple[str, list[int | None]]], k: int, aggregation: str,
         scalar: bool = False):  # fmt: skip
    contract = SCALAR if scalar else BINARY
    metric = contract.primary_id
    records = [_task(t, c, v, k, metric, scalar) for t, (c, v) in tasks.items()]
    hierarchy = HIERARCHY if aggregation == "hierarchy" else None
    agg = "micro_weighted" if aggregation == "hierarchy" else aggregation
    plan = Plan(k=k, strategy="avg", contract=contract, aggregation=agg, hierarchy=hierarchy)
    return recompute(records, plan)


ids_st = st.sets(st.integers(0, 14), max_size=12).map(lambda s: [f"t{i}" for i in sorted(s)])


@SETTINGS
@given(ids_a=ids_st, ids_b=ids_st, tasks=st.lists(task_st, min_size=15, max_size=15),
       ks=st.sampled_from([(1, 1), (1, 3), (3, 1), (3, 3)]))  # fmt: skip
def test_the_side_of_every_task_is_the_set_relation_of_task_ids(ids_a, ids_b, tasks, ks) -> None:
    """Every series pair, including a series on one side only (k=3's pass@3 beside k=1)."""
    a = _run({t: tasks[int(t[1:])] for t in ids_a}, ks[0], "micro_weighted")
    b = _run({t: tasks[int(t[1:])] for t in ids_b}, ks[1], "micro_weighted")
    c = compare(a, b)
    only_a, only_b, both = set(ids_a) - set(ids_b), set(ids_b) - set(ids_a), set(ids_a) & set(ids_b)
    assert (set(c.only_a), set(c.only_b)) == (only_a, only_b)
    for pair in c.series:
        rows = c.tasks(pair)
        assert sorted(ch.task_id for ch in rows) == sorted(only_a | only_b | both)
        for ch in rows:
            if ch.task_id in only_a:
                assert ch.kind == "only in A"
            elif ch.task_id in only_b:
                assert ch.kind == "only in B"
            else:
                assert not ch.kind.startswith("only in"), (pair.label, ch.task_id, ch.kind)


@SETTINGS
@given(tasks=st.lists(task_st, min_size=1, max_size=12),
       equal=st.lists(st.booleans(), min_size=12, max_size=12))  # fmt: skip
def test_the_changes_listed_are_the_tasks_whose_state_or_value_differs(tasks, equal) -> None:
    """What-if k=1 against avg@3 on a scalar series (values in tenths: 0.9 beside the float
    mean of three 0.9s, 0.8999999999999999, is no change)."""
    run = {}
    for i, ((category, values), same) in enumerate(zip(tasks, equal, strict=False)):
        run[f"t{i}"] = (category, [values[0]] * 3 if same and values[0] is not None else values)
    rec = _run(run, 3, "micro_weighted", scalar=True)
    c = compare_plans(rec, k=1)
    pair = c.opening_pair()
    expected = set()
    for tid, (_, values) in run.items():
        first = values[0]
        k1_state = "evaluated" if first is not None else "error"
        avg_state = "evaluated" if None not in values else "error"
        if k1_state != avg_state:
            expected.add(tid)
        elif k1_state == "evaluated":
            mean = sum(Fraction(v, 10) for v in values) / 3  # type: ignore[misc]
            if mean != Fraction(first, 10):
                expected.add(tid)
    listed = {ch.task_id for ch in c.changes(pair)}
    assert listed == expected
    data = comparison_json(c)
    assert {ch["task_id"] for ch in data["series"][0]["changes"]} == expected


def _delta_expected(a, b, series_a: str, series_b: str) -> float:
    """B − A of the two reports' values (the number on screen), 0 when equal at 4 decimals."""
    va = next(s.shown_value for s in a.report.series if s.series_id == series_a)
    vb = next(s.shown_value for s in b.report.series if s.series_id == series_b)
    return 0.0 if round(va, 4) == round(vb, 4) else vb - va


@SETTINGS
@given(ids_a=ids_st, ids_b=ids_st, tasks_a=st.lists(task_st, min_size=15, max_size=15),
       tasks_b=st.lists(task_st, min_size=15, max_size=15),
       aggregation=st.sampled_from(["micro_weighted", "category_mean", "hierarchy"]),
       k=st.sampled_from([1, 3]))  # fmt: skip
def test_mean_diff_is_the_series_delta(ids_a, ids_b, tasks_a, tasks_b, aggregation, k) -> None:
    a = _run({t: tasks_a[int(t[1:])] for t in ids_a}, k, aggregation)
    b = _run({t: tasks_b[int(t[1:])] for t in ids_b}, k, aggregation)
    data = comparison_json(compare(a, b))
    for series in data["series"]:
        if series["a"] is None or series["b"] is None:
            continue
        va, vb = (s["value"] if s["value"] is not None else s["reference_value"]
                  for s in (series["a"], series["b"]))  # fmt: skip
        if va is None or vb is None:
            continue
        delta = _delta_expected(a, b, series["a"]["series_id"], series["b"]["series_id"])
        assert series["paired"]["mean_diff"] == delta
        if series["bootstrap"] is not None:
            assert series["bootstrap"]["mean_diff"] == delta
        paired = series["paired"]
        if paired["ci_low"] is not None:  # MOVER: around the delta, inside [-1, 1], wide
            assert paired["ci_low"] <= delta <= paired["ci_high"]
            assert -1 <= paired["ci_low"] < paired["ci_high"] <= 1
