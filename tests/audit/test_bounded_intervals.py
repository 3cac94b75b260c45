"""Intervals that keep their promise at small n and near 0 and 1 (issue 38).

Small deterministic cases and a property test, all through ``series_stats`` (what
``inspector stats``, the app and the EEE export show). The grid of coverage figures is
``benchmarks/bench_coverage.py --grid``; here the k = 1 coverage is summed exactly over every
count, so it needs no simulation.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from inspector.views.run_stats import own_interval, series_stats

from .helpers import attempt, rescore, task

T, F = {"correct": True}, {"correct": False}


def _k1_run(outcomes: list[bool], categories: list[str] | None = None, **kw: object) -> object:
    cats = categories or ["a"] * len(outcomes)
    tasks = [task(f"t{i}", [attempt(1, T if o else F)], c) for i, (o, c) in
             enumerate(zip(outcomes, cats, strict=True))]  # fmt: skip
    return rescore(tasks, **kw)  # type: ignore[arg-type]


def _own(rec: object) -> object:
    return series_stats(rec, rec.report.series[0]).own.interval  # type: ignore[attr-defined]


def test_all_pass_with_two_tasks_is_not_a_point_and_stays_in_0_1() -> None:
    """Two tasks that both passed: the old t interval was [1, 1]."""
    iv = _own(_k1_run([True, True]))
    assert iv.ci_low is not None and iv.ci_high is not None
    assert 0 <= iv.ci_low < iv.ci_high <= 1
    # Clopper–Pearson for 2 of 2 (scipy's exact interval), the method says so
    ref = scipy_stats.binomtest(2, 2).proportion_ci(0.95, method="exact")
    assert (iv.ci_low, iv.ci_high) == (pytest.approx(ref.low), pytest.approx(ref.high))
    assert "Clopper–Pearson" in iv.method


def test_all_fail_and_one_right_stay_inside_0_1() -> None:
    none = _own(_k1_run([False] * 6))
    assert none.ci_low == 0 and 0 < none.ci_high < 1
    one = _own(_k1_run([True] + [False] * 9))
    assert 0 <= one.ci_low < 0.1 < one.ci_high <= 1  # the old t interval went below 0


def test_one_task_gets_a_wide_interval_stated_as_such() -> None:
    iv = _own(_k1_run([True]))
    assert iv.ci_low is not None and iv.ci_high == 1 and iv.ci_high - iv.ci_low > 0.9
    assert "n = 1" in iv.method and "wide" in iv.method


@pytest.mark.parametrize("n", [5, 10, 30])
@pytest.mark.parametrize("p", [0.02, 0.1, 0.5, 0.9, 0.98])
def test_k1_coverage_summed_over_every_count(n: int, p: float) -> None:
    """Coverage of the series interval at k = 1, exactly: Σ_x P(x) · [p in interval(x)].
    The t interval covered 0.65 at n = 10, p = 0.1 (every all-fail run gave [0, 0])."""
    covered = 0.0
    for x in range(n + 1):
        iv = _own(_k1_run([True] * x + [False] * (n - x)))
        covered += scipy_stats.binom.pmf(x, n, p) * (iv.ci_low <= p <= iv.ci_high)
    assert covered >= 0.95


def test_a_category_mean_of_small_all_pass_categories_is_not_a_point() -> None:
    """Three categories of four tasks, every one passed: not [1, 1], not above 1."""
    rec = _k1_run([True] * 12, ["a"] * 4 + ["b"] * 4 + ["c"] * 4, aggregation="category_mean")
    stats = series_stats(rec, rec.report.series[0])  # type: ignore[attr-defined]
    for scope in (stats.own, *stats.categories):
        iv = scope.interval
        assert iv.ci_low is not None and 0 <= iv.ci_low < iv.ci_high == 1, scope.key


def test_a_one_task_category_no_longer_leaves_the_series_without_interval() -> None:
    """Categories of one task each (no within-category variance anywhere)."""
    rec = _k1_run([True, False, True], ["a", "b", "c"], aggregation="category_mean")
    iv = _own(rec)
    assert iv.ci_low is not None and 0 <= iv.ci_low < 2 / 3 < iv.ci_high <= 1


outcome = st.lists(st.booleans(), min_size=1, max_size=3)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(outcome, st.sampled_from("abc")), min_size=1, max_size=12),
    st.sampled_from(["micro_weighted", "category_mean"]),
)
def test_every_interval_of_a_binary_metric_is_inside_0_1_with_width(
    tasks: list[tuple[list[bool], str]], aggregation: str
) -> None:
    """Any binary run at k = 3 (attempts may be missing): every interval (series, category)
    lies in [0, 1], contains its value, has non-zero width; the runs screen's own interval
    is the series'."""
    records = [
        task(f"t{i}", [attempt(j, T if o else F) for j, o in enumerate(outs, 1)], cat, k=3)
        for i, (outs, cat) in enumerate(tasks)
    ]
    rec = rescore(records, k=3, aggregation=aggregation)
    for series in rec.report.series:
        got = series_stats(rec, series)
        assert repr(own_interval(rec, series)) == repr(got.own.interval)
        for scope in (got.own, *got.categories):
            iv = scope.interval
            if scope.value is None:
                continue
            assert iv.ci_low is not None and iv.ci_high is not None, iv.method
            assert 0 <= iv.ci_low <= scope.value <= iv.ci_high <= 1
            assert iv.ci_low < iv.ci_high
            assert math.isfinite(iv.ci_low) and math.isfinite(iv.ci_high)


def test_the_trees_column_shows_bounds_not_a_symmetric_half_width() -> None:
    """One task that passed: [0.025, 1]; ``±0.49`` beside 1.0000 read as reaching 1.49."""
    from inspector.views.stats import Interval, compact_bounds_text

    def text(low: float | None, high: float | None) -> str:
        return compact_bounds_text(Interval(1.0, 1, None, low, high, 0.95, None, "m"))

    assert text(0.025, 1.0) == ".02–1"  # rounded outwards, the ends as 0 and 1
    assert text(0.5366, 0.9887) == ".53–.99" and len(text(0.5366, 0.9887)) <= 7
    assert text(0.0, 0.3085) == "0–.31"
    # a scalar's interval (not symmetric once corrected for skewness): its bounds, outwards
    assert text(-3.5, 4.9) == "-3.5–4.9" and text(1.6955, 3.4788) == "1.6–3.5"
    assert text(None, None) == "—"
