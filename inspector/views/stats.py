"""Statistics on task values: intervals, weighted combinations, McNemar's exact test.

Pure (no I/O, no textual, no rich). Student's t quantiles come from scipy.special
(``stdtrit``: what scipy.stats' ``t.ppf`` computes, without loading scipy.stats), the exact
binomial test from scipy.stats; variances from numpy. Each is imported where first used
(docs/decisions/startup-imports.md).

The unit of every estimate is the *task*: the engine's per-task reduction already averages
a task's attempts (avg@k), so a task value is the cluster mean of E. Miller's "Adding Error
Bars to Evals" (2024) and the standard error of a mean of task values is the clustered
standard error.

- :func:`mean_interval`: ``se = s / √n`` (s the sample standard deviation of the n task
  values), Student's t interval with ``n − 1`` degrees of freedom. (For task values in
  [0, 1] the series statistics keep this se and replace the bounds by
  :mod:`inspector.views.bounded`'s exact interval; t stays for unbounded values.)
- :func:`combination_interval`: a value ``Σ a_g · m_g`` that weights independent group
  means ``m_g`` (category means; hierarchy nodes reduce to such a sum over leaf categories)
  has ``Var = Σ a_g² · s_g² / n_g``. The weights ``a_g`` are taken as fixed (they depend on
  which categories were evaluated and how many tasks each has, not on the values). A group
  with one task has no variance of its own; it borrows the pooled within-group variance
  ``Σ (n_g − 1) s_g² / Σ (n_g − 1)`` of the groups with two or more. The interval uses
  Student's t with Welch–Satterthwaite degrees of freedom
  ``(Σ v_g)² / Σ (v_g² / d_g)``, ``v_g = a_g² s_g² / n_g``, ``d_g`` = ``n_g − 1`` (or the
  pooled degrees of freedom for a borrowed variance).
- :func:`mcnemar_exact`: the exact binomial test of the discordant pairs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

DEFAULT_CONFIDENCE = 0.95


def _t_quantile(p: float, df: float) -> float:
    """Student's t quantile: scipy.stats' ``t.ppf(p, df)``, bit for bit."""
    # When first computed: scipy.special is heavy, and the app and the commands import this
    # module for its Interval and its texts before, or without, computing one.
    from scipy.special import stdtrit

    return float(stdtrit(df, p))


@dataclass(frozen=True, slots=True)
class Interval:
    """An estimate's standard error and two-sided interval (None where undefined)."""

    estimate: float | None
    n: int
    se: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    df: float | None
    method: str


NO_INTERVAL_TEXT = "—"


def bounds_text(interval: Interval, digits: int = 3) -> str:
    """``[0.268, 0.826]`` (``digits`` significant digits), or ``—`` where there is no interval:
    the one way the app and the command line write an interval."""
    if interval.ci_low is None or interval.ci_high is None:
        return NO_INTERVAL_TEXT
    return f"[{interval.ci_low:.{digits}g}, {interval.ci_high:.{digits}g}]"


def compact_bounds_text(interval: Interval) -> str:
    """``.54–.99`` (at most 7 characters): the bounds of an interval inside [0, 1], rounded
    outwards to hundredths (``0`` and ``1`` for the ends), for a narrow column; an interval
    reaching outside [0, 1] its bounds rounded outwards to two significant digits of the
    larger, ``1.6–3.5``; no interval ``—``."""
    if interval.ci_low is None or interval.ci_high is None:
        return NO_INTERVAL_TEXT
    return compact_bounds(interval.ci_low, interval.ci_high)


def compact_bounds(low: float, high: float) -> str:
    """``.54–.99``: bounds inside [0, 1] rounded outwards to hundredths (the interval
    shown never claims less than the one computed); bounds outside [0, 1] (a scalar's
    interval, not symmetric once corrected for skewness) rounded outwards to two
    significant digits of the larger bound, ``1.6–3.5``, ``-0.8–1.8``, ``1200–5700``."""
    if not 0 <= low <= high <= 1:
        largest = max(abs(low), abs(high))
        exponent = math.floor(math.log10(largest)) - 1 if largest > 0 else 0
        decimals = max(-exponent, 0)
        scale = 10.0**exponent
        down, up = math.floor(low / scale) * scale, math.ceil(high / scale) * scale
        return f"{down:.{decimals}f}–{up:.{decimals}f}"

    def short(x: float) -> str:
        return "0" if x <= 0 else "1" if x >= 1 else f"{x:.2f}".removeprefix("0")

    return f"{short(math.floor(low * 100) / 100)}–{short(math.ceil(high * 100) / 100)}"


def check_confidence(confidence: float) -> float:
    if not isinstance(confidence, int | float) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    return float(confidence)


def t_bounds(center: float, se: float, df: float, confidence: float) -> tuple[float, float]:
    """``center ± t_{(1+confidence)/2, df} · se``."""
    if se == 0:
        return center, center
    half = _t_quantile((1 + confidence) / 2, df) * se
    return center - half, center + half


def _variance(values: Sequence[float]) -> float:
    """The sample variance (``inf`` or ``nan`` where the values are too large for a float
    sum: the callers then give no interval, :data:`TOO_LARGE`, and numpy says nothing)."""
    import numpy as np  # only when a variance is computed

    with np.errstate(over="ignore", invalid="ignore"):
        return float(np.var(np.asarray(values, dtype=float), ddof=1))


TOO_LARGE = "no interval: values too large to sum"
"""Why there is no interval where a sum of the values (their variance, a bound) is not a
finite float: ``null`` in JSON, this reason beside it."""


def _finite(*numbers: float) -> bool:
    return all(math.isfinite(x) for x in numbers)


def _mean(values: Sequence[float]) -> float:
    return math.fsum(v / len(values) for v in values)


def no_interval(estimate: float | None, n: int, confidence: float, why: str) -> Interval:
    return Interval(estimate, n, None, None, None, confidence, None, why)


def mean_interval(
    values: Sequence[float],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    estimate: float | None = None,
    what: str = "task values",
) -> Interval:
    """The mean of ``values`` with ``se = s/√n`` and a Student t interval (n − 1 df).

    ``estimate`` is the number the interval is centred on (the engine's own value, bit for
    bit); by default the mean of ``values``.
    """
    confidence = check_confidence(confidence)
    n = len(values)
    center = estimate if estimate is not None else (_mean(values) if n else None)
    if n < 2 or center is None:
        return no_interval(center, n, confidence, f"no interval: n = {n} (needs 2)")
    se = math.sqrt(_variance(values) / n)
    if not _finite(center, se):
        return no_interval(center if _finite(center) else None, n, confidence, TOO_LARGE)
    if se == 0:  # a point is not an interval (the se is kept: views.bounded reads it)
        why = f"no interval: all {n} {what} are equal (no spread to estimate)"
        return Interval(center, n, se, None, None, confidence, float(n - 1), why)
    low, high = t_bounds(center, se, n - 1, confidence)
    if not _finite(low, high):
        return no_interval(center, n, confidence, TOO_LARGE)
    method = f"mean of {n} {what}; se = sd/√n; {confidence:.0%} Student t, {n - 1} df"
    return Interval(center, n, se, low, high, confidence, float(n - 1), method)


@dataclass(frozen=True, slots=True)
class Group:
    """One independent group mean in a weighted combination: its weight and its values."""

    name: str
    weight: float
    values: tuple[float, ...]


def pooled_variance(groups: Sequence[Sequence[float]]) -> tuple[float, int] | None:
    """``(Σ (n_g − 1) s_g² / Σ (n_g − 1), Σ (n_g − 1))`` over the groups with 2+ values."""
    multi = [g for g in groups if len(g) >= 2]
    df = sum(len(g) - 1 for g in multi)
    if df == 0:
        return None
    return math.fsum((len(g) - 1) * _variance(g) for g in multi) / df, df


def combination_interval(
    groups: Sequence[Group],
    *,
    estimate: float | None,
    confidence: float = DEFAULT_CONFIDENCE,
    pooled: tuple[float, int] | None = None,
    what: str = "Σ w·category mean",
    variance: Callable[[Sequence[float]], tuple[float, float]] | None = None,
) -> Interval:
    """``Σ a_g · mean_g`` with ``Var = Σ a_g² s_g² / n_g`` (see the module docstring).

    ``pooled`` is the ``(variance, df)`` a one-task group borrows (default: pooled over
    ``groups``; a caller passes the pooled variance of every category of the series).
    ``variance``, when given, gives every group's ``(s², df)`` instead (nothing is borrowed).
    """
    confidence = check_confidence(confidence)
    used = [g for g in groups if g.weight != 0 and g.values]
    n = sum(len(g.values) for g in used)
    if estimate is None or not used:
        return no_interval(estimate, n, confidence, "no interval: no evaluated category")
    singles = [] if variance is not None else [g for g in used if len(g.values) == 1]
    if pooled is None and variance is None:
        pooled = pooled_variance([g.values for g in used])
    if singles and pooled is None:
        return no_interval(
            estimate, n, confidence, "no interval: no category has two evaluated tasks"
        )
    parts: list[tuple[float, float]] = []  # (v_g, d_g)
    for g in used:
        if variance is not None:
            s2, d = variance(g.values)
        elif len(g.values) >= 2:
            s2, d = _variance(g.values), len(g.values) - 1
        else:
            s2, d = pooled  # type: ignore[misc]
        parts.append((g.weight**2 * s2 / len(g.values), float(d)))
    var = math.fsum(v for v, _ in parts)
    if not _finite(estimate, var, *(v * v for v, _ in parts)):
        return no_interval(estimate if _finite(estimate) else None, n, confidence, TOO_LARGE)
    se = math.sqrt(var)
    if var == 0:  # a point is not an interval (the se is kept: views.bounded reads it)
        why = f"no interval: all {n} task values are equal within each category"
        return Interval(estimate, n, 0.0, None, None, confidence, min(d for _, d in parts), why)
    df = var**2 / math.fsum(v * v / d for v, d in parts)
    low, high = t_bounds(estimate, se, df, confidence)
    if not _finite(low, high, df):
        return no_interval(estimate, n, confidence, TOO_LARGE)
    word = "category" if len(singles) == 1 else "categories"
    borrowed = f" ({len(singles)} one-task {word}: pooled s²)" if singles else ""
    method = (
        f"{what} over {len(used)} categories, {n} tasks; se = √Σ w²s²/n{borrowed}; "
        f"{confidence:.0%} t, {df:.1f} Welch–Satterthwaite df"
    )
    return Interval(estimate, n, se, low, high, confidence, df, method)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` and ``c`` discordant pairs.

    Under the null hypothesis each discordant pair goes either way with probability ½:
    the exact binomial test of ``b`` successes in ``b + c`` trials (scipy.stats.binomtest);
    with no discordant pair it is 1.

    Args:
        b: Pairs that are 1 under A and 0 under B.
        c: Pairs that are 0 under A and 1 under B.
    """
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    if b + c == 0:
        return 1.0
    # scipy.stats (heavier than scipy.special) only where McNemar's test is asked for.
    from scipy.stats import binomtest

    return float(min(1.0, binomtest(b, b + c, 0.5).pvalue))
