"""No interval and no p-value unless earned; the method from the metric, not the sample; one
verdict per delta (issue 49, items 1, 2, 5 and 6).

The pairs are generated as the engine's input and scored by ``recompute`` (as in
``test_compare_properties``); every expectation is a property of the output (no zero-width
interval, a p-value only with two paired tasks, "excludes 0" exactly when p ≤ 0.05) or a
fact worked out here (which tasks both sides evaluated), not read from the code under test.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.cli.diff import comparison_json
from inspector.engine.report import MICRO_WEIGHTED
from inspector.views.compare import compare, compare_plans
from inspector.views.paired import SeriesSample, Side, delta_interval, paired_lines
from inspector.views.run_stats import Shape, series_stats
from inspector.views.stats import Group, combination_interval, mean_interval

from .helpers import FIXTURE_RUNS, SCORE, attempt, rescore, run_cli, task
from .test_compare_properties import SETTINGS, _run, ids_st, task_st


def _every_paired(data: dict) -> list[dict]:
    return [s["paired"] for s in data["series"] if s["paired"] is not None]


def _check_paired(paired: dict, both: int) -> None:
    """One series' ``paired`` object: an interval with width and a p-value that agrees
    with it, or nulls and a reason said once."""
    low, high, p = paired["ci_low"], paired["ci_high"], paired["p_value"]
    if both < 2:
        assert low is high is p is None, paired
    if low is None:
        assert high is None and p is None, paired
        method = paired["method"]
        assert method.startswith(("no interval: ", "no delta: ")), method
        assert method.count("no interval") <= 1 and method.count(":") == method.count(": "), method
        return
    assert low < high, paired  # never a point
    assert 0 < p <= 1
    assert (low > 0 or high < 0) == (p <= 0.05), paired  # one verdict


@SETTINGS
@given(ids_a=ids_st, ids_b=ids_st, tasks_a=st.lists(task_st, min_size=15, max_size=15),
       tasks_b=st.lists(task_st, min_size=15, max_size=15),
       aggregation=st.sampled_from(["micro_weighted", "category_mean", "hierarchy"]),
       ks=st.sampled_from([(1, 1), (1, 3), (3, 3)]), scalar=st.booleans())  # fmt: skip
def test_every_delta_earns_its_interval(ids_a, ids_b, tasks_a, tasks_b, aggregation, ks,
                                        scalar) -> None:  # fmt: skip
    a = _run({t: tasks_a[int(t[1:])] for t in ids_a}, ks[0], aggregation, scalar)
    b = _run({t: tasks_b[int(t[1:])] for t in ids_b}, ks[1], aggregation, scalar)
    c = compare(a, b)
    data = comparison_json(c)
    for pair, series in zip(c.series, data["series"], strict=True):
        if series["paired"] is None:
            continue
        both = sum(1 for ch in c.tasks(pair) if ch.value_a is not None and ch.value_b is not None
                   and ch.state_a == ch.state_b == "evaluated")  # fmt: skip
        _check_paired(series["paired"], both)
        if series["mcnemar"] is not None:
            assert series["mcnemar"]["n"] >= 2


@SETTINGS
@given(tasks=st.lists(task_st, min_size=0, max_size=12), scalar=st.booleans(),
       k=st.sampled_from([1, 2]))  # fmt: skip
def test_every_what_if_earns_its_interval(tasks, scalar, k) -> None:
    """What-if k=1 / avg@2 of a k=3 run: the same tasks on both sides."""
    rec = _run({f"t{i}": t for i, t in enumerate(tasks)}, 3, "micro_weighted", scalar)
    c = compare_plans(rec, k=k)
    for pair, series in zip(c.series, comparison_json(c)["series"], strict=True):
        if series["paired"] is not None:
            both = sum(
                1
                for ch in c.tasks(pair)
                if ch.value_a is not None
                and ch.value_b is not None
                and ch.state_a == ch.state_b == "evaluated"
            )
            _check_paired(series["paired"], both)


def _side(values: list[float], evaluated: list[bool], shape: Shape) -> Side:
    x, ev = np.array(values, float), np.array(evaluated, float)
    mean = float((x * ev).sum() / ev.sum())
    return Side(x * ev, ev, np.zeros(len(x), np.intp), np.ones(len(x), bool), MICRO_WEIGHTED,
                None, mean, shape)  # fmt: skip


SCALAR_SHAPE = Shape(None, "scalar task values")


def test_a_side_without_spread_gives_no_interval_not_a_point() -> None:
    """Old: low = high = the delta, with a method saying a side had no interval."""
    a = _side([2.0] * 10, [True] * 10, SCALAR_SHAPE)
    b = _side([1.0, 3.0, 4.0, 2.0, 5.0, 1.5, 2.5, 3.5, 0.5, 6.0], [True] * 10, SCALAR_SHAPE)
    found = delta_interval(SeriesSample(tuple(f"t{i}" for i in range(10)), ("",), a, b))
    assert found == (
        "no interval: side A has none, all 10 task values are equal (no spread to estimate)"
    )


def test_no_tasks_in_common_gives_no_interval_and_no_p() -> None:
    """Two runs with no task in common (old: a 95% CI and a permutation p-value)."""
    _, out, _ = run_cli("diff", str(FIXTURE_RUNS / "k1_micro"), str(FIXTURE_RUNS / "k3_pass"),
                           "--format", "json")  # fmt: skip
    for series in json.loads(out)["series"]:
        if series["paired"] is not None and series["paired"]["series_delta"] is not None:
            assert series["paired"]["ci_low"] is None and series["paired"]["p_value"] is None
            assert series["paired"]["method"] == (
                "no interval: 0 tasks evaluated on both sides; a paired interval needs 2"
            )


def test_latency_with_one_evaluated_task_on_what_if_k1() -> None:
    """What-if k=1 of a k=3 latency run with one task that completed attempt 1: no
    interval (old: ``series delta B − A -1, 95% CI -1 … -1, p = 1``)."""
    tasks = [task("t1", [attempt(1, {"score": 1.0}), attempt(2, {"score": 2.0}),
                         attempt(3, {"score": 3.0})], "a", k=3),
             task("t2", [attempt(2, {"score": 5.0})], "a", k=3)]  # fmt: skip
    rec = rescore(tasks, SCORE, k=3)
    c = compare_plans(rec, k=1)
    stats = c.stats(c.opening_pair())
    assert stats.interval is None
    lines = paired_lines(stats)
    assert "CI" not in lines[0] and "p =" not in lines[0]
    assert lines[0].count("no interval") == 1, lines


def test_a_scalar_whose_one_value_is_1_gets_the_scalar_method() -> None:
    """Latency 1.0 s on one task: no interval (old: Clopper–Pearson .025–1)."""
    rec = rescore([task("t1", [attempt(1, {"score": 1.0})], "a")], SCORE)
    interval = series_stats(rec, rec.report.series[0]).own.interval
    assert interval.ci_low is None and interval.ci_high is None
    assert interval.method.startswith("no interval: 1 value of an unbounded metric (needs 10")


def _method(values: list[float], scalar: bool) -> str:
    contract = SCORE if scalar else None
    metric = "score" if scalar else "correct"
    tasks = [task(f"t{i}", [attempt(1, {metric: v if scalar else v >= 0.5})], "a")
             for i, v in enumerate(values)]  # fmt: skip
    rec = rescore(tasks, contract) if contract else rescore(tasks)
    return series_stats(rec, rec.report.series[0]).own.interval.method


def _family(method: str) -> str:
    if method.startswith("no interval"):
        return "none"
    return "Clopper–Pearson" if "Clopper–Pearson" in method else "Student t"


@SETTINGS
@given(values=st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, 30.0]), min_size=2,
                       max_size=10), scalar=st.booleans(), data=st.data())  # fmt: skip
def test_the_method_depends_on_the_metric_only(values, scalar, data) -> None:
    """Permuting or changing the values never changes the method's family: Student t for a
    scalar (or none, where it has no spread), Clopper–Pearson for a binary metric."""
    other = data.draw(st.permutations(values))
    changed = data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=2, max_size=10))
    families = {_family(_method(v, scalar)) for v in (values, other, changed)} - {"none"}
    assert families == ({"Student t"} if scalar else {"Clopper–Pearson"}) or not families
    if not scalar:
        assert families == {"Clopper–Pearson"}


@given(values=st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=0, max_size=6))
def test_no_point_from_the_interval_builders(values) -> None:
    """mean and weighted combination: an interval with width, or none."""
    for interval in (mean_interval(values), combination_interval(
            [Group("g", 1.0, tuple(values))], estimate=sum(values) / len(values) if values
            else None)):  # fmt: skip
        assert interval.ci_low is None or interval.ci_low < interval.ci_high


def test_the_bootstrap_key_is_a_marked_alias_of_paired() -> None:
    _, out, _ = run_cli("diff", str(FIXTURE_RUNS / "compare_a"), str(FIXTURE_RUNS / "compare_b"),
                           "--format", "json")  # fmt: skip
    (series, *_) = [s for s in json.loads(out)["series"] if s["bootstrap"] is not None]
    alias, paired = series["bootstrap"], series["paired"]
    assert alias["resamples"] == 0 and "deprecated" in alias["deprecated"]
    assert (alias["ci_low"], alias["ci_high"]) == (paired["ci_low"], paired["ci_high"])


@pytest.mark.parametrize("n", [2, 3, 30])
def test_p_inverts_the_interval_at_its_level(n) -> None:
    """The interval at confidence 1 − p has 0 on its edge (old: a permutation p)."""
    rng = np.random.default_rng(n)
    binary = Shape(1, "binary task values")
    a = _side(list(rng.integers(0, 2, n) * 1.0), [True] * n, binary)
    b = _side([1.0] * n, [True] * n, binary)
    ids = tuple(f"t{i}" for i in range(n))
    found = delta_interval(SeriesSample(ids, ("",), a, b))
    assert not isinstance(found, str)
    if found.p_value < 1:
        edge = delta_interval(SeriesSample(ids, ("",), a, b), confidence=1 - found.p_value)
        assert not isinstance(edge, str)
        assert edge.low == pytest.approx(0, abs=1e-6)


def test_one_verdict_over_simulated_pairs() -> None:
    """80 seeded pairs near the 0.05 boundary (k=1 micro, n = 30, p 0.5 against 0.75):
    the interval excludes 0 exactly when p ≤ 0.05 (old: MOVER interval beside a permutation
    p-value, which disagreed on some of them)."""
    binary = Shape(1, "binary task values")
    ids = tuple(f"t{i}" for i in range(30))
    verdicts = set()
    for seed in range(80):
        rng = np.random.default_rng(seed)
        a = _side(list(1.0 * (rng.random(30) < 0.5)), [True] * 30, binary)
        b = _side(list(1.0 * (rng.random(30) < 0.75)), [True] * 30, binary)
        found = delta_interval(SeriesSample(ids, ("",), a, b))
        assert not isinstance(found, str)
        excludes = found.low > 0 or found.high < 0
        assert excludes == (found.p_value <= 0.05), (seed, found.low, found.high, found.p_value)
        verdicts.add(excludes)
    assert verdicts == {True, False}  # the pairs straddle the boundary


@SETTINGS
@given(
    tasks=st.lists(task_st, min_size=0, max_size=12),
    aggregation=st.sampled_from(["micro_weighted", "category_mean", "hierarchy"]),
    k=st.sampled_from([1, 3]),
    scalar=st.booleans(),
)
def test_no_point_in_any_series_scope(tasks, aggregation, k, scalar) -> None:
    """Every series, category and node interval of ``inspector stats``: width, or none."""
    rec = _run({f"t{i}": t for i, t in enumerate(tasks)}, k, aggregation, scalar)
    for series in rec.report.series:
        got = series_stats(rec, series)
        for scope in (got.own, *got.categories, *got.hierarchy):
            i = scope.interval
            assert (i.ci_low is None) == (i.ci_high is None)
            assert i.ci_low is None or i.ci_low < i.ci_high, (series.series_id, scope.key, i)
            assert i.method.count("no interval") <= 1
