"""A mean's interval for an unbounded metric (a reward, a latency, a cost): Student's t
corrected for skewness by Hall's transformation.

Pure (no I/O, no textual, no rich). Student's t assumes the sample mean is symmetric about
the true mean; the values of agent metrics rarely are (a latency, a reward with a long right
tail), and a t interval around a mean of skewed values under-covers on the side of the tail:
0.86 at n = 15 and 0.89 at n = 50 for log-normal values with σ = 1. Hall's transformation
of the t statistic ``T = (x̄ − μ)/(s/√n)`` removes the skewness term of its distribution
(P. Hall, "On the removal of skewness by transformation", JRSS B 54, 1992)::

    g(T) = T + γ(1 + 2T²)/(6√n) + γ²T³/(27n),   γ = m₃/σ̂³ the sample skewness

``g`` is increasing (``g′(T) = (1 + aT)²`` with ``a = γ/(3√n)``) and its inverse is closed:
``T = ((1 + 3a(y − a/2))^⅓ − 1)/a``. The interval is the set of μ with ``|g(T)| ≤ t_{n−1}``:

    [x̄ − g⁻¹(t)·se,  x̄ − g⁻¹(−t)·se]

(the t interval when γ = 0). Measured by ``benchmarks/bench_coverage.py --cells``: log-normal
σ = 1 covers 0.91 at n = 15 and 0.93 at n = 30 and 50; below 10 values it covers 0.86–0.87,
and no method can tell a skewed metric from a symmetric one from so few values, so fewer
than :data:`MIN_VALUES` values get no interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from inspector.engine.vocabulary import plural
from inspector.views.stats import TOO_LARGE, Interval, check_confidence, no_interval, t_bounds

MIN_VALUES = 10
"""The fewest values of an unbounded metric that get an interval."""


def _inverse(y: float, a: float) -> float:
    """``g⁻¹(y)`` for ``g(T) = ((1 + aT)³ − 1)/(3a) + a/2``."""
    if a == 0:
        return y
    return (math.cbrt(1 + 3 * a * (y - a / 2)) - 1) / a


def skewed_mean_interval(
    values: Sequence[float],
    *,
    confidence: float,
    estimate: float,
    head: str,
) -> Interval:
    """The interval of ``estimate``, the mean of ``values`` (see the module docstring)."""
    confidence = check_confidence(confidence)
    n = len(values)
    if n < MIN_VALUES:
        why = (f"no interval: {plural(n, 'value')} of an unbounded metric "
               f"(needs {MIN_VALUES}: below that a skewed metric's interval under-covers)")  # fmt: skip
        return no_interval(estimate, n, confidence, why)
    try:  # values near the largest float: their sums overflow
        mean = math.fsum(values) / n
        deviations = [v - mean for v in values]
        s2 = math.fsum(d * d for d in deviations) / (n - 1)
        if not math.isfinite(s2):
            return no_interval(estimate, n, confidence, TOO_LARGE)
        se = math.sqrt(s2 / n)
        if se == 0:
            return Interval(estimate, n, 0.0, estimate, estimate, confidence, float(n - 1), "")
        sigma = math.sqrt(math.fsum(d * d for d in deviations) / n)
        gamma = math.fsum(d**3 for d in deviations) / n / sigma**3
        a = gamma / (3 * math.sqrt(n))
        t_low, t_high = t_bounds(0.0, 1.0, n - 1, confidence)  # ∓ the t quantile
        low = estimate - _inverse(t_high, a) * se
        high = estimate - _inverse(t_low, a) * se
    except (OverflowError, ValueError):
        return no_interval(estimate, n, confidence, TOO_LARGE)
    if not all(math.isfinite(x) for x in (se, low, high, gamma)):
        return no_interval(estimate, n, confidence, TOO_LARGE)
    method = (
        f"{head}; se = sd/√n; {confidence:.0%} Student t ({n - 1} df) corrected for the "
        f"values' skewness ({gamma:+.2f}) by Hall's transformation"
    )
    return Interval(estimate, n, se, low, high, confidence, float(n - 1), method)
