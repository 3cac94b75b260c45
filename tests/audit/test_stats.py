"""McNemar's exact test and the paired bootstrap, against values worked out by hand."""

from __future__ import annotations

import pytest

from inspector.stats import mcnemar_exact, paired_bootstrap_ci


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
