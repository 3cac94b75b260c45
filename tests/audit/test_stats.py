"""McNemar's exact test and the paired bootstrap, against values worked out by hand."""

from __future__ import annotations

import pytest

from inspector.views.stats import mcnemar_exact, paired_bootstrap_ci


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (0, 0, 1.0),  # no discordant pair
        (1, 6, 0.125),  # 2 · (C(7,0) + C(7,1)) / 2^7 = 2 · 8/128
        (6, 1, 0.125),  # symmetric
        (0, 5, 0.0625),  # 2 · 1/32
        (2, 8, 0.109375),  # 2 · (1 + 10 + 45) / 1024 = 112/1024
        (3, 3, 1.0),  # 2 · 42/64 > 1 → capped
        (1, 1, 1.0),  # 2 · 3/4 → capped
        (0, 10, 2 / 1024),
    ],
)
def test_mcnemar_exact_matches_hand_values(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact(b, c) == expected


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_bootstrap_of_a_constant_difference_is_a_point() -> None:
    ci = paired_bootstrap_ci([0.2, 0.5, 0.9], [0.7, 1.0, 1.4], seed=3)
    assert (ci.difference, ci.low, ci.high) == (
        pytest.approx(0.5),
        pytest.approx(0.5),
        pytest.approx(0.5),
    )


def test_bootstrap_quantiles_of_an_enumerable_distribution() -> None:
    """Differences (0, 0, 0, 1): a resample mean is j/4 with j ~ Binomial(4, 1/4).

    P(0) = 81/256 ≈ .316, P(≤1/4) ≈ .738, P(≤1/2) ≈ .949, P(≤3/4) ≈ .996: so the 2.5 %
    quantile is 0 and the 97.5 % quantile is 3/4 (each far from a boundary for 10 000 draws).
    """
    ci = paired_bootstrap_ci([0, 0, 0, 0], [0, 0, 0, 1], seed=0)
    assert ci.difference == 0.25
    assert (ci.low, ci.high) == (0.0, 0.75)
    # a 60 % interval: 20 % quantile 0 (P(0) = .316), 80 % quantile 1/2 (P(≤1/4) = .738 < .8)
    narrow = paired_bootstrap_ci([0, 0, 0, 0], [0, 0, 0, 1], confidence=0.6, seed=1)
    assert (narrow.low, narrow.high) == (0.0, 0.5)


def test_bootstrap_is_seeded_and_direction_is_b_minus_a() -> None:
    a = [0.1, 0.4, 0.35, 0.8, 0.5, 0.9, 0.2]
    b = [0.3, 0.4, 0.30, 0.9, 0.7, 0.6, 0.6]
    first = paired_bootstrap_ci(a, b, seed=42, resamples=2000)
    assert first == paired_bootstrap_ci(a, b, seed=42, resamples=2000)
    assert first.difference == pytest.approx(sum(b) / 7 - sum(a) / 7)
    assert first.low <= first.difference <= first.high
    flipped = paired_bootstrap_ci(b, a, seed=42, resamples=2000)
    assert flipped.difference == pytest.approx(-first.difference)
    assert flipped.low <= flipped.difference <= flipped.high


def test_bootstrap_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        paired_bootstrap_ci([1.0], [1.0, 2.0])
    with pytest.raises(ValueError):
        paired_bootstrap_ci([], [])
    with pytest.raises(ValueError):
        paired_bootstrap_ci([1.0], [2.0], confidence=1.5)


# -- intervals, paired t, McNemar and pass@j against independent calculations ------------

import itertools  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
from fractions import Fraction  # noqa: E402

from scipy import stats as scipy_stats  # noqa: E402

from inspector.views.stats import (  # noqa: E402
    Group,
    combination_interval,
    mean_interval,
    paired_t,
    pass_at_j,
    pass_hat_j,
    t_bounds,
)


def test_mean_interval_hand_worked() -> None:
    """Five task values 1, 0, 1, 1, 0: mean .6, s² = 1.2/4 = .3, se = √(.3/5) = .244949;
    t(.975, 4) = 2.776445 (printed tables), so .6 ± .680087."""
    iv = mean_interval([1.0, 0.0, 1.0, 1.0, 0.0])
    assert (iv.estimate, iv.n, iv.df) == (pytest.approx(0.6), 5, 4.0)
    assert iv.se == pytest.approx(0.244949, abs=1e-6)
    assert iv.ci_low == pytest.approx(0.6 - 0.680087, abs=1e-6)
    assert iv.ci_high == pytest.approx(0.6 + 0.680087, abs=1e-6)


@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_mean_interval_equals_scipy_one_sample_t(confidence: float) -> None:
    values = [0.2, 0.9, 0.4, 0.4, 1.0, 0.0, 0.65, 0.3]
    iv = mean_interval(values, confidence=confidence)
    ref = scipy_stats.ttest_1samp(values, 0.0).confidence_interval(confidence)
    assert iv.se == pytest.approx(scipy_stats.sem(values), rel=1e-12)
    assert (iv.ci_low, iv.ci_high) == (pytest.approx(ref.low), pytest.approx(ref.high))


@pytest.mark.parametrize("df", [1, 2, 3, 4.5, 7, 12.25, 30, 99, 1000.5, 1e6])
def test_t_bounds_are_scipy_stats_t_ppf_bit_for_bit(df: float) -> None:
    """Intervals use scipy.special's stdtrit (scipy.stats is not loaded for them): the same
    floats, to the last bit, as scipy.stats' t.ppf, over confidences and degrees of freedom
    (Welch-Satterthwaite's are fractional)."""
    for confidence in (0.5, 0.8, 0.9, 0.95, 0.975, 0.99, 0.999):
        low, high = t_bounds(0.6, 0.2449, df, confidence)
        half = float(scipy_stats.t.ppf((1 + confidence) / 2, df)) * 0.2449
        assert (low.hex(), high.hex()) == ((0.6 - half).hex(), (0.6 + half).hex())


@pytest.mark.parametrize("n", [2, 3, 5, 8, 31, 101, 2000])
def test_paired_t_p_is_scipy_stats_t_sf_bit_for_bit(n: int) -> None:
    """The paired t's p-value uses scipy.special's stdtr: 2 · t.sf(|t|, n − 1), bit for bit."""
    for step in (1e-9, 0.01, 0.1, 0.3, 1.0):
        b = [step * (i % 3) + step * (i % 2) for i in range(n)]
        got = paired_t([0.0] * n, b)
        assert got.se and got.mean_diff is not None and got.p_value is not None
        t = abs(got.mean_diff) / got.se
        assert got.p_value.hex() == float(2 * scipy_stats.t.sf(t, n - 1)).hex()


def test_mean_interval_centres_on_the_given_estimate_and_needs_two_values() -> None:
    iv = mean_interval([0.1, 0.2, 0.3], estimate=0.2000000000000001)
    assert iv.estimate == 0.2000000000000001
    single = mean_interval([1.0])
    assert (single.estimate, single.se, single.ci_low) == (1.0, None, None)
    assert single.method.startswith("no interval")


def test_paired_t_equals_scipy_ttest_rel() -> None:
    a = [0.1, 0.4, 0.35, 0.8, 0.5, 0.9, 0.2]
    b = [0.3, 0.4, 0.30, 0.9, 0.7, 0.6, 0.6]
    got = paired_t(a, b)
    ref = scipy_stats.ttest_rel(b, a)
    ci = ref.confidence_interval(0.95)
    assert got.n == 7
    assert got.mean_diff == pytest.approx(statistics.fmean(b) - statistics.fmean(a))
    assert got.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert (got.ci_low, got.ci_high) == (pytest.approx(ci.low), pytest.approx(ci.high))


def test_paired_t_hand_worked() -> None:
    """Differences 1, 0, 1, 0 (B − A): mean .5, s² = 1/3, se = √(1/12) = .288675,
    t = 1.732051 on 3 df: two-sided p = .181690 (printed t tables)."""
    got = paired_t([0, 1, 0, 1], [1, 1, 1, 1])
    assert got.mean_diff == 0.5
    assert got.se == pytest.approx(0.288675, abs=1e-6)
    assert got.p_value == pytest.approx(0.181690, abs=1e-5)


def test_paired_t_of_identical_sides_is_zero_with_no_interval() -> None:
    """Issue 49: a point is not an interval, and there is no test without a spread."""
    got = paired_t([1, 0, 1], [1, 0, 1])
    assert (got.mean_diff, got.se, got.ci_low, got.ci_high, got.p_value) == (0, 0, None, None, None)


def _mcnemar_by_enumeration(b: int, c: int) -> float:
    """Twice the smaller binomial tail of Binomial(b + c, ½), capped at 1 (exact)."""
    n = b + c
    if n == 0:
        return 1.0
    tail = Fraction(sum(math.comb(n, i) for i in range(min(b, c) + 1)), 2**n)
    return float(min(Fraction(1), 2 * tail))


@pytest.mark.parametrize(("b", "c"), list(itertools.product(range(13), repeat=2)))
def test_mcnemar_equals_the_exact_binomial(b: int, c: int) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(_mcnemar_by_enumeration(b, c), rel=1e-12)


def _enumerate(n: int, c: int, j: int) -> tuple[Fraction, Fraction]:
    """Over every j-subset of n attempts (c of them passing): share with ≥1 pass, all pass."""
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), j))
    some = sum(any(outcomes[i] for i in s) for s in subsets)
    every = sum(all(outcomes[i] for i in s) for s in subsets)
    return Fraction(some, len(subsets)), Fraction(every, len(subsets))


@pytest.mark.parametrize("n", range(1, 7))
def test_chen_estimators_equal_enumeration(n: int) -> None:
    for c in range(n + 1):
        for j in range(1, n + 1):
            some, every = _enumerate(n, c, j)
            assert pass_at_j(n, c, j) == float(some), (n, c, j)
            assert pass_hat_j(n, c, j) == float(every), (n, c, j)


def test_chen_estimators_reject_impossible_counts() -> None:
    with pytest.raises(ValueError):
        pass_at_j(3, 4, 1)
    with pytest.raises(ValueError):
        pass_hat_j(3, 1, 4)


def test_combination_interval_hand_worked() -> None:
    """½·mean(1, 0, 1) + ½·mean(0, 0, 1, 1): both s² = 1/3.
    v₁ = ¼·(1/3)/3 = 1/36, v₂ = ¼·(1/3)/4 = 1/48; se = √(7/144) = .220479;
    Welch–Satterthwaite df = (7/144)² / ((1/36)²/2 + (1/48)²/3) = 4.4545…"""
    groups = [Group("a", 0.5, (1.0, 0.0, 1.0)), Group("b", 0.5, (0.0, 0.0, 1.0, 1.0))]
    iv = combination_interval(groups, estimate=7 / 12)
    assert iv.se == pytest.approx(math.sqrt(7 / 144), rel=1e-12)
    df = (7 / 144) ** 2 / ((1 / 36) ** 2 / 2 + (1 / 48) ** 2 / 3)
    assert iv.df == pytest.approx(df, rel=1e-12)
    half = scipy_stats.t.ppf(0.975, df) * math.sqrt(7 / 144)
    assert (iv.ci_low, iv.ci_high) == (pytest.approx(7 / 12 - half), pytest.approx(7 / 12 + half))


def test_combination_interval_one_task_group_borrows_the_pooled_variance() -> None:
    """Groups (1, 0, 1) and (0, 1) pool s² = (2·1/3 + 1·1/2)/3 = 7/18 on 3 df; the one-task
    group (1) with weight ⅓ adds (⅓)²·(7/18)/1 to the variance."""
    groups = [
        Group("a", 1 / 3, (1.0, 0.0, 1.0)),
        Group("b", 1 / 3, (0.0, 1.0)),
        Group("c", 1 / 3, (1.0,)),
    ]
    iv = combination_interval(groups, estimate=0.7)
    var = (1 / 9) * ((1 / 3) / 3 + (1 / 2) / 2 + (7 / 18) / 1)
    assert iv.se == pytest.approx(math.sqrt(var), rel=1e-12)
    assert "pooled" in iv.method
    lonely = combination_interval([Group("c", 1.0, (1.0,))], estimate=1.0)
    assert lonely.se is None
