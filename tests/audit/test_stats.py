"""McNemar's exact test, intervals and t bounds, against values worked out by hand."""

from __future__ import annotations

import pytest

from inspector.views.stats import mcnemar_exact


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


# -- intervals and McNemar against independent calculations ------------

import itertools  # noqa: E402
import math  # noqa: E402
from fractions import Fraction  # noqa: E402

from scipy import stats as scipy_stats  # noqa: E402

from inspector.views.stats import (  # noqa: E402
    Group,
    combination_interval,
    mean_interval,
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


def test_mean_interval_centres_on_the_given_estimate_and_needs_two_values() -> None:
    iv = mean_interval([0.1, 0.2, 0.3], estimate=0.2000000000000001)
    assert iv.estimate == 0.2000000000000001
    single = mean_interval([1.0])
    assert (single.estimate, single.se, single.ci_low) == (1.0, None, None)
    assert single.method.startswith("no interval")


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
