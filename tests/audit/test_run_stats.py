"""Intervals of series, categories and hierarchy nodes; flaky tasks; pass@j curves."""

from __future__ import annotations

import itertools
import math
import statistics
from fractions import Fraction

import pytest
from scipy import stats as scipy_stats

from inspector.views.attempt_stats import flaky_tasks, pass_curves
from inspector.views.run_stats import own_interval, run_stats, series_stats

from .helpers import FIXTURE_RUNS, RUNS, attempt, issue, rescore, session, task

T, F = {"correct": True}, {"correct": False}


def _enumerate(n: int, c: int, j: int) -> tuple[Fraction, Fraction]:
    """Over every j-subset of n attempts (c of them passing): share with ≥1 pass, all pass."""
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), j))
    some = sum(any(outcomes[i] for i in s) for s in subsets)
    every = sum(all(outcomes[i] for i in s) for s in subsets)
    return Fraction(some, len(subsets)), Fraction(every, len(subsets))


def _k3(task_id: str, outcomes: str, category: str = "a") -> object:
    attempts = [attempt(i, T if ch == "1" else F) for i, ch in enumerate(outcomes, 1) if ch != "-"]
    return task(task_id, attempts, category, k=3)


def test_micro_series_se_is_the_sem_of_task_means() -> None:
    """Attempts are averaged within a task first: the task is the cluster."""
    tasks = [_k3("t1", "110"), _k3("t2", "100"), _k3("t3", "111"), _k3("t4", "000"),
             _k3("t5", "101")]  # fmt: skip
    rec = rescore(tasks, k=3)
    series = rec.report.series_by_id("correct.avg@3")
    got = series_stats(rec, series)
    task_means = [2 / 3, 1 / 3, 1.0, 0.0, 2 / 3]
    assert got.own.value is series.value  # the engine's number, not a recomputation
    assert got.own.interval.n == 5
    assert got.own.interval.se == pytest.approx(scipy_stats.sem(task_means), rel=1e-12)
    # fractions of 3 attempts: Clopper–Pearson at n_eff = p(1 − p)/se² · (z/t₄)², kept
    # within [5 tasks, 15 attempts] (issue 38), from scipy.stats directly
    p, se = sum(task_means) / 5, scipy_stats.sem(task_means)
    factor = (scipy_stats.norm.ppf(0.975) / scipy_stats.t.ppf(0.975, 4)) ** 2
    n_eff = min(15.0, max(5.0, factor * p * (1 - p) / se**2))
    low = scipy_stats.beta.ppf(0.025, p * n_eff, n_eff - p * n_eff + 1)
    high = scipy_stats.beta.ppf(0.975, p * n_eff + 1, n_eff - p * n_eff)
    assert got.own.interval.ci_low == pytest.approx(low)
    assert got.own.interval.ci_high == pytest.approx(high)
    # the attempt-level (unclustered) se would be smaller: 15 draws instead of 5
    attempts = [1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1]
    assert got.own.interval.se > scipy_stats.sem(attempts)


def test_pass_at_1_equals_avg_at_3_when_every_task_has_three_attempts() -> None:
    tasks = [_k3("t1", "110"), _k3("t2", "100"), _k3("t3", "111"), _k3("t4", "000")]
    rec = rescore(tasks, k=3)
    (curve,) = pass_curves(rec)
    assert curve.pass_at[0].estimate == pytest.approx(
        rec.report.series_by_id("correct.avg@3").value
    )
    # pass@3 (Chen) equals AgentCompass's pass@3 when no attempt is missing
    assert curve.pass_at[2].estimate == pytest.approx(
        rec.report.series_by_id("correct.pass@3").value
    )
    assert curve.pass_hat[2].estimate == pytest.approx(0.25)  # only t3 passes all three
    assert curve.agentcompass == {"correct.avg@3": rec.report.series[0].value,
                                  "correct.pass@3": rec.report.series[1].value}  # fmt: skip


def test_pass_curves_leave_out_incomplete_and_invalidated_tasks() -> None:
    fatal = task("t4", [attempt(1, T, issue("fatal")), attempt(2, T), attempt(3, T)], "a", k=3)
    tasks = [_k3("t1", "110"), _k3("t2", "1-0"), _k3("t3", "111"), fatal]
    rec = rescore(tasks, k=3)
    (curve,) = pass_curves(rec)
    assert (curve.tasks, curve.excluded) == (2, 2)
    assert curve.pass_at[1].estimate == pytest.approx((float(_enumerate(3, 2, 2)[0]) + 1.0) / 2)


@pytest.mark.parametrize("k", range(2, 7))
def test_pass_curves_are_chens_estimators(k: int) -> None:
    """One task with c passes of k: pass@j and pass^j are the shares of j-subsets of its
    attempts with at least one pass and with all passing (Chen et al. 2021), for every c, j."""
    for c in range(k + 1):
        outcomes = [T] * c + [F] * (k - c)
        one = task("t", [attempt(i, o) for i, o in enumerate(outcomes, 1)], "a", k=k)
        (curve,) = pass_curves(rescore([one], k=k))
        for j in range(1, k + 1):
            some, every = _enumerate(k, c, j)
            assert curve.pass_at[j - 1].estimate == pytest.approx(float(some), abs=1e-12), (c, j)
            assert curve.pass_hat[j - 1].estimate == pytest.approx(float(every), abs=1e-12), (c, j)


def test_pass_curves_need_an_avg_run_with_k_above_one() -> None:
    one = rescore([task("t1", [attempt(1, T)], "a")])
    assert pass_curves(one) == ()
    assert "k=1" in run_stats(one).pass_note
    passed = rescore([task("t1", [attempt(1, T)], "a", k=3, strategy="pass")], k=3,
                     strategy="pass")  # fmt: skip
    assert pass_curves(passed) == ()
    assert "stop early" in run_stats(passed).pass_note


def test_fixture_pass_at_1_per_task_equals_the_avg_task_value() -> None:
    """k3_avg_hierarchy: wherever a task has all three attempts, its pass@1 is its avg@3."""
    rec = session(FIXTURE_RUNS / "k3_avg_hierarchy").recomputation
    rows = {r.task_id: r for r in rec.reductions["correct.avg@3"]}
    complete = [
        t
        for t in rec.tasks
        if len(t.attempts) == 3
        and all("correct" in a.metrics and not a.has_fatal for a in t.attempts.values())
    ]
    assert complete
    for t in complete:
        c = sum(a.metrics["correct"] is True for a in t.attempts.values())
        assert float(_enumerate(3, c, 1)[0]) == pytest.approx(rows[t.task_id].value)
    (curve,) = pass_curves(rec)
    assert curve.tasks == len(complete)
    assert curve.pass_at[0].estimate == pytest.approx(
        statistics.fmean(rows[t.task_id].value for t in complete)
    )


def _moderated(values: list[float]) -> float:
    """A category's variance moderated towards m̃(1 − m̃) with 2 df, m̃ = (Σv + 2)/(n + 4)."""
    n = len(values)
    m_tilde = (sum(values) + 2) / (n + 4)
    return ((n - 1) * statistics.variance(values) + 2 * m_tilde * (1 - m_tilde)) / (n + 1)


def test_category_mean_se_is_the_se_of_the_mean_of_category_means() -> None:
    tasks = [_k3("a1", "111", "a"), _k3("a2", "100", "a"), _k3("a3", "110", "a"),
             _k3("b1", "000", "b"), _k3("b2", "011", "b")]  # fmt: skip
    rec = rescore(tasks, k=3, aggregation="category_mean")
    got = series_stats(rec, rec.report.series_by_id("correct.avg@3"))
    a, b = [1.0, 1 / 3, 2 / 3], [0.0, 2 / 3]
    var = 0.25 * _moderated(a) / 3 + 0.25 * _moderated(b) / 2
    assert got.own.value == rec.report.series[0].value
    assert got.own.interval.se == pytest.approx(math.sqrt(var), rel=1e-12)
    by_key = {c.key: c for c in got.categories}
    assert by_key["a"].interval.se == pytest.approx(scipy_stats.sem(a), rel=1e-12)
    assert by_key["b"].interval.se == pytest.approx(scipy_stats.sem(b), rel=1e-12)


HIERARCHY = {"overall": {"aggregation": "weighted", "children": {
    "g1": {"aggregation": "weighted_by_count", "weight": 2, "children": {"a": {}, "b": {}}},
    "g2": {"aggregation": "unweighted", "weight": 1, "children": {"c": {}, "d": {}}},
}}}  # fmt: skip


def test_hierarchy_se_uses_the_leaf_coefficients_of_each_node() -> None:
    """overall = ⅔·g1 + ⅓·g2, g1 = (3·m_a + 2·m_b)/5, g2 = (m_c + m_d)/2: the root is
    Σ a_g m_g with a = (⅔·⅗, ⅔·⅖, ⅓·½, ⅓·½)."""
    data = {"a": ["111", "100", "000"], "b": ["110", "011"], "c": ["111", "000"],
            "d": ["100", "110", "111"]}  # fmt: skip
    tasks = [_k3(f"{c}{i}", o, c) for c, outs in data.items() for i, o in enumerate(outs)]
    rec = rescore(tasks, k=3, hierarchy=HIERARCHY)
    series = rec.report.series_by_id("correct.avg@3")
    got = series_stats(rec, series)
    values = {c: [sum(ch == "1" for ch in o) / 3 for o in outs] for c, outs in data.items()}
    coef = {"a": 2 / 3 * 3 / 5, "b": 2 / 3 * 2 / 5, "c": 1 / 6, "d": 1 / 6}
    var = sum(coef[c] ** 2 * _moderated(v) / len(v) for c, v in values.items())
    assert got.own.value == series.value
    assert got.own.interval.se == pytest.approx(math.sqrt(var), rel=1e-12)
    nodes = {h.key: h for h in got.hierarchy}
    assert next(iter(nodes)) == "overall"  # parents first
    g2 = (_moderated(values["c"]) / 2 + _moderated(values["d"]) / 3) / 4
    assert nodes["overall/g2"].interval.se == pytest.approx(math.sqrt(g2), rel=1e-12)
    assert nodes["overall/g1/a"].interval.se == pytest.approx(scipy_stats.sem(values["a"]))


def test_a_failed_evaluation_is_marked_as_reference() -> None:
    tasks = [task("t1", [attempt(1, T)], "a"), task("t2", [attempt(1, F)], "a"),
             task("t3", [attempt(1, T, issue("fatal"))], "a"), task("t4", [attempt(1, T)], "a")]  # fmt: skip
    rec = rescore(tasks)
    got = series_stats(rec, rec.report.series[0])
    assert got.own.value is None and got.own.reference
    assert got.own.interval.estimate == rec.report.series[0].reference_value
    assert got.own.interval.se == pytest.approx(scipy_stats.sem([1, 0, 1]))


def test_a_corpus_formula_series_has_no_interval() -> None:
    rec = session(FIXTURE_RUNS / "compare_a").recomputation
    ratio = rec.report.series_by_id("subproblem_correctness.native@1")
    got = series_stats(rec, ratio)
    assert got.own.value == ratio.value
    assert got.own.interval.se is None and "corpus formula" in got.own.interval.method


def test_flaky_tasks_list_disagreeing_attempts_most_even_split_first() -> None:
    four = task("t3", [attempt(i, T if i <= 2 else F) for i in range(1, 5)], "a", k=4)
    tasks = [
        task("t1", [attempt(1, T), attempt(2, T), attempt(3, T), attempt(4, F)], "a", k=4),
        task("t2", [attempt(1, T), attempt(2, T), attempt(3, T), attempt(4, T)], "a", k=4),
        four,
        task("t4", [attempt(1, F), attempt(3, T)], "a", k=4),
    ]
    rec = rescore(tasks, k=4)
    flaky = flaky_tasks(rec)
    assert [f.task_id for f in flaky] == ["t3", "t4", "t1"]
    assert flaky[0].disagreement == 1.0 and flaky[2].disagreement == pytest.approx(0.75)
    t4 = flaky[1]
    assert [(o.attempt, o.status, o.value) for o in t4.outcomes] == [
        (1, "completed", False), (2, None, None), (3, "completed", True), (4, None, None)]  # fmt: skip
    assert (t4.passes, t4.observed) == (1, 2)


def test_the_own_interval_alone_is_the_one_series_stats_gives() -> None:
    """The runs screen computes only each headline's own interval (own_interval): for
    every series of every fixture and conformance run, it is exactly the interval
    series_stats gives the series (or fails where that fails). The two share the
    category-mean and micro branches (tested against scipy above), not the hierarchy's."""
    runs = [*sorted(p for p in FIXTURE_RUNS.iterdir() if (p / "metrics.json").is_file()), *RUNS]
    recs = [(run.name, session(run).recomputation) for run in runs]
    aggregations = set()
    for name, rec in recs:
        for series in rec.report.series if rec is not None else ():
            try:
                expected = repr(series_stats(rec, series).own.interval)
            except Exception:
                expected = "fails"
            try:
                got = repr(own_interval(rec, series))
            except Exception:
                got = "fails"
            assert got == expected, (name, series.series_id)
            if "no interval" not in got:
                aggregations.add(series.aggregation)
    assert aggregations >= {"micro_weighted", "category_mean", "category_hierarchy"}, aggregations
