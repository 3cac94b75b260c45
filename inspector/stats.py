"""Paired statistics on tasks aligned across two plans or two runs.

Pure standard library (no numpy): McNemar's exact test for binary outcomes and a seeded
paired bootstrap confidence interval for the difference of two means.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` and ``c`` discordant pairs.

    Under the null hypothesis each discordant pair goes either way with probability ½, so
    ``min(b, c)`` follows Binomial(b + c, ½). The p-value is twice the smaller tail, capped
    at 1; with no discordant pair it is 1. Computed exactly with fractions.

    Args:
        b: Pairs that are 1 under A and 0 under B.
        c: Pairs that are 0 under A and 1 under B.
    """
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    n = b + c
    if n == 0:
        return 1.0
    tail = Fraction(sum(math.comb(n, i) for i in range(min(b, c) + 1)), 2**n)
    return float(min(Fraction(1), 2 * tail))


@dataclass(frozen=True, slots=True)
class BootstrapCI:
    """The observed difference of means (B − A) and its percentile interval."""

    difference: float
    low: float
    high: float
    confidence: float
    resamples: int
    seed: int


def _mean(values: Sequence[float]) -> float:
    return math.fsum(v / len(values) for v in values)


def paired_bootstrap_ci(
    a: Sequence[float],
    b: Sequence[float],
    *,
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
) -> BootstrapCI:
    """Percentile bootstrap CI for mean(B) − mean(A), resampling the task *pairs*.

    Each resample draws ``n`` pairs with replacement (``random.Random(seed).choices``), and
    the statistic is the mean of the paired differences ``b_i − a_i``. The bounds are the
    nearest-rank quantiles ``(1 − confidence) / 2`` and ``(1 + confidence) / 2`` of the sorted
    resampled statistics. The same inputs and seed always give the same interval.
    """
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    if not a:
        raise ValueError("no paired values")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    diffs = [float(y) - float(x) for x, y in zip(a, b, strict=True)]
    n = len(diffs)
    rng = random.Random(seed)
    stats = sorted(math.fsum(rng.choices(diffs, k=n)) / n for _ in range(resamples))
    alpha = (1 - confidence) / 2

    def rank(q: float) -> float:
        # nearest rank: the smallest statistic with at least q of the mass at or below it
        return stats[max(0, math.ceil(q * resamples - 1e-9) - 1)]

    return BootstrapCI(_mean(diffs), rank(alpha), rank(1 - alpha), confidence, resamples, seed)
