"""Intervals on the populations issue 49 found under-covered: unequal categories (a category
of one or two tasks carrying a third of the weight) and skewed unbounded scalars. The
coverage itself is measured by ``benchmarks/bench_coverage.py --cells``; these tests hold
the formulas by hand and by an independent computation."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from scipy import optimize
from scipy import stats as scipy_stats

from inspector.engine.contract import make_metric_contract
from inspector.views.run_stats import series_stats
from inspector.views.skewed import MIN_VALUES, skewed_mean_interval

from .helpers import attempt, rescore, task

SCORE = make_metric_contract("score", scalar=["score"])
T, F = {"correct": True}, {"correct": False}


def _moderated(values: list[float]) -> tuple[float, float]:
    n = len(values)
    m_tilde = (sum(values) + 2) / (n + 4)
    s2 = statistics.variance(values) if n > 1 else 0.0
    return ((n - 1) * s2 + 2 * m_tilde * (1 - m_tilde)) / (n + 1), n + 1.0


def test_a_one_task_category_borrows_nothing_from_dissimilar_categories() -> None:
    """A category of one task used to borrow the pooled variance of the others: near 0 there
    it was tiny, and a third of the weight looked certain. Its variance is now the largest
    its (pulled-in) mean allows, with 2 df; every category's variance is moderated so."""
    outcomes = {"a": ["10100"], "b": ["11000", "00111"],
                "c": ["00000"] * 38 + ["10000", "01000"]}  # fmt: skip
    tasks = [task(f"{c}{i}", [attempt(j, T if ch == "1" else F) for j, ch in enumerate(o, 1)],
                  c, k=5)
             for c, outs in outcomes.items() for i, o in enumerate(outs)]  # fmt: skip
    rec = rescore(tasks, k=5, aggregation="category_mean")
    got = series_stats(rec, rec.report.series_by_id("correct.avg@5")).own.interval
    values = {c: [o.count("1") / 5 for o in outs] for c, outs in outcomes.items()}
    parts = [(_moderated(v)[0] / 9 / len(v), _moderated(v)[1]) for v in values.values()]
    var = math.fsum(p for p, _ in parts)
    assert got.se == pytest.approx(math.sqrt(var), rel=1e-12)
    # the old pooled variance (mostly the 40 near-zero tasks) gave an se under half of this
    pooled = statistics.variance(values["b"]) + 39 * statistics.variance(values["c"])
    old = math.sqrt((pooled / 40 + statistics.variance(values["b"]) / 2
                     + statistics.variance(values["c"]) / 40) / 9)  # fmt: skip
    assert got.se > 2 * old
    assert "moderated" in got.method


def _hall_by_root_finding(values: list[float], confidence: float) -> tuple[float, float]:
    """Hall (1992), solved numerically: the μ with |g(T)| = t, T = (x̄ − μ)/se."""
    n = len(values)
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / math.sqrt(n)
    sigma = statistics.pstdev(values)
    gamma = sum((v - mean) ** 3 for v in values) / n / sigma**3

    def g(t: float) -> float:
        return t + gamma * (1 + 2 * t * t) / (6 * math.sqrt(n)) + gamma**2 * t**3 / (27 * n)

    q = scipy_stats.t.ppf((1 + confidence) / 2, n - 1)
    t_high = optimize.brentq(lambda t: g(t) - q, -1e6, 1e6, xtol=1e-14)
    t_low = optimize.brentq(lambda t: g(t) + q, -1e6, 1e6, xtol=1e-14)
    return mean - t_high * se, mean - t_low * se


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("n", [10, 15, 40])
def test_a_skewed_scalar_gets_hall_s_interval(seed: int, n: int) -> None:
    rng = random.Random(seed)
    values = [rng.lognormvariate(0, 1) for _ in range(n)]
    mean = statistics.fmean(values)
    got = skewed_mean_interval(values, confidence=0.95, estimate=mean, head="h")
    low, high = _hall_by_root_finding(values, 0.95)
    assert got.ci_low == pytest.approx(low, rel=1e-9)
    assert got.ci_high == pytest.approx(high, rel=1e-9)
    # a long right tail moves the interval to the right of the symmetric t interval
    t_low, t_high = scipy_stats.t.interval(0.95, n - 1, mean, scipy_stats.sem(values))
    assert got.ci_high > t_high and got.ci_low > t_low


def test_symmetric_values_keep_the_t_interval() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]
    got = skewed_mean_interval(values, confidence=0.95, estimate=5.5, head="h")
    low, high = scipy_stats.t.interval(0.95, 9, 5.5, scipy_stats.sem(values))
    assert (got.ci_low, got.ci_high) == (pytest.approx(low), pytest.approx(high))


def test_a_scalar_series_of_few_tasks_has_no_interval_and_says_why() -> None:
    values = [0.5, 3.0, 1.2, 8.0, 0.1, 2.2, 0.7, 1.1, 4.0][: MIN_VALUES - 1]
    tasks = [task(f"t{i}", [attempt(1, {"score": v})]) for i, v in enumerate(values)]
    rec = rescore(tasks, SCORE)
    got = series_stats(rec, rec.report.series[0]).own.interval
    assert got.ci_low is None and got.ci_high is None
    assert got.method.startswith("no interval: 9 values of an unbounded metric")
    more = [*tasks, task("t9", [attempt(1, {"score": 2.5})])]
    rec = rescore(more, SCORE)
    assert series_stats(rec, rec.report.series[0]).own.interval.ci_low is not None
