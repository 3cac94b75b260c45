"""Intervals for values inside [0, 1]: an exact (Clopper–Pearson) interval at an effective
sample size.

Pure (no I/O, no textual, no rich). The Beta quantiles come from scipy.special
(``betaincinv``, what scipy.stats' ``beta.ppf`` computes).

A t interval around a mean of task values near 0 or 1 under-covers at the sizes agent
benchmarks have, reaches outside [0, 1] and has zero width when every task passed (Bowyer,
Aitchison & Ivanova, "Don't Use the CLT in LLM Evals With Fewer Than a Few Hundred
Datapoints", ICML 2025). For values in [0, 1] the interval is instead the Clopper–Pearson
interval of ``x = p·n_eff`` successes in ``n_eff`` observations (p the estimate):

    [Beta⁻¹((1 − c)/2; x, n_eff − x + 1),  Beta⁻¹((1 + c)/2; x + 1, n_eff − x)]

which lies in [0, 1], contains p and never has zero width. (Wilson's score interval is
narrower but covers 0.9298 of samples at n = 10, p = 0.1 and Jeffreys' 0.9318 at n = 30,
p = 0.1; Clopper–Pearson never less than 0.95 at k = 1, and at n = 1000 it is within 2 % of
the normal width.) ``n_eff`` is the
number of independent binary observations with the same standard error (Kish's design
effect): ``n_eff = p(1 − p) / se²`` with ``se`` the sample standard error, kept between

- ``n_tasks`` = ``1 / Σ a_g² / n_g``, the effective number of tasks of the weighting
  (n for a plain mean of n task values): a task value in [0, 1] with mean p has a variance of
  at most p(1 − p), so no task is worth less than one binary observation; and
- ``attempts · n_tasks`` for a binary metric averaged over k attempts (each task value a
  fraction of k): the k attempts of a task are worth at most k independent observations
  (the task is the cluster). Binary task values (k = 1, pass@k) have ``attempts = 1``: the
  plain Clopper–Pearson interval of x successes in n tasks.

Where the spread says nothing (no standard error, or every task value 0 or every one 1)
``n_eff = n_tasks``; for a scalar metric (no upper bound on n_eff) whose task values are
all equal, too. The figures (coverage, width) are measured by ``benchmarks/bench_coverage.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from inspector.views.stats import Interval


def exact_bounds(p: float, n: float, confidence: float) -> tuple[float, float]:
    """The Clopper–Pearson interval of a proportion ``p`` observed on ``n`` (> 0, may be
    fractional) independent binary observations, ``x = p·n`` successes: the ``(1 − c)/2``
    quantile of Beta(x, n − x + 1) and the ``(1 + c)/2`` quantile of Beta(x + 1, n − x)
    (0 for x = 0, 1 for x = n). For integer x it is scipy.stats'
    ``binomtest(x, n).proportion_ci(confidence, method='exact')``."""
    if not n > 0:
        raise ValueError(f"n must be positive, got {n!r}")
    # scipy.special's inverse incomplete beta (scipy.stats' beta.ppf), when first computed
    from scipy.special import betaincinv

    p = min(1.0, max(0.0, p))
    x = p * n
    alpha = 1 - confidence
    low = 0.0 if x <= 0 else float(betaincinv(x, n - x + 1, alpha / 2))
    high = 1.0 if x >= n else float(betaincinv(x + 1, n - x, 1 - alpha / 2))
    return low, high


def effective_n(
    p: float,
    se: float | None,
    n_tasks: float,
    attempts: float | None,
    *,
    df: float | None = None,
    confidence: float = 0.95,
) -> float:
    """``p(1 − p)/se² · (z/t_df)²`` within ``[n_tasks, attempts · n_tasks]`` (``attempts``
    None: no upper bound); ``n_tasks`` where the spread says nothing (see the module
    docstring). The factor ``(z/t_df)²`` (df: the sample se's degrees of freedom) widens
    the interval as Student's t does for an estimated se."""
    if se is None or p <= 0 or p >= 1:
        return n_tasks
    if se == 0:
        return n_tasks if attempts is None else attempts * n_tasks
    high = math.inf if attempts is None else attempts * n_tasks
    factor = 1.0
    if df is not None and df > 0:
        from scipy.special import ndtri, stdtrit

        q = (1 + confidence) / 2
        t = float(stdtrit(df, q))
        factor = (float(ndtri(q)) / t) ** 2 if t > 0 else 1.0  # q ≈ 0.5: both ≈ 0
    return min(high, max(n_tasks, factor * p * (1 - p) / (se * se)))


PRIOR_DF = 2.0
"""The degrees of freedom :func:`moderated_variance` gives the largest variance a mean allows."""


def moderated_variance(values: Sequence[float]) -> tuple[float, float]:
    """``(s̃², df)`` of one category's task values in [0, 1], for a weighted combination of
    category means: the sample variance moderated towards ``m̃(1 − m̃)``, the largest variance
    values in [0, 1] with mean ``m̃`` can have (``m̃ = (n·m + 2)/(n + 4)``, the category's mean
    pulled away from 0 and 1 as Agresti and Coull pull a proportion), with :data:`PRIOR_DF`
    degrees of freedom::

        s̃² = ((n − 1)·s² + 2·m̃(1 − m̃)) / (n − 1 + 2),   df = n − 1 + 2

    The sample variance of a category of one or a few tasks says little: one task has none (it
    used to borrow the pooled variance of the other categories, too small when they are
    nearer 0 or 1), and a few tasks near 0 or 1 often have none (all 0). Either made a third
    of the weight look certain: coverage 0.87 for categories of 1, 2 and 40 tasks at k = 5
    (``benchmarks/bench_coverage.py --cells``). A large category's own variance dominates."""
    n = len(values)
    m = math.fsum(values) / n
    adjusted = (n * m + 2) / (n + 4)
    s2 = 0.0
    if n > 1:
        s2 = math.fsum((v - m) ** 2 for v in values) / (n - 1)
    df = n - 1 + PRIOR_DF
    return ((n - 1) * s2 + PRIOR_DF * adjusted * (1 - adjusted)) / df, df


def kish_n(weights_and_sizes: list[tuple[float, int]]) -> float:
    """``(Σ a_g)² / Σ a_g² / n_g``: the effective number of tasks of a weighted combination of
    group means (n for the plain mean of n values)."""
    total = math.fsum(a for a, _ in weights_and_sizes)
    spread = math.fsum(a * a / n for a, n in weights_and_sizes)
    return total * total / spread


def bounded(
    interval: Interval,
    *,
    n_tasks: float,
    attempts: float | None,
    head: str,
    values_text: str,
    se_text: str = "se = sd/√n",
) -> Interval:
    """``interval`` (its estimate and sample ``se`` kept) with the Clopper–Pearson bounds at
    ``effective_n``; ``head`` says what the estimate is and ``values_text`` what the values
    are, for ``method``."""
    p = interval.estimate
    if p is None or n_tasks <= 0 or not 0 <= p <= 1:
        return interval
    n_eff = effective_n(
        p, interval.se, n_tasks, attempts, df=interval.df, confidence=interval.confidence
    )
    low, high = exact_bounds(p, n_eff, interval.confidence)
    if interval.se is None:
        se_text = "no sd from one task" if interval.n == 1 else "no sd (one-task categories)"
    wide = "; n = 1: a wide interval" if interval.n == 1 else ""
    method = (
        f"{head} ({values_text}); {se_text}; {interval.confidence:.0%} Clopper–Pearson "
        f"interval at effective n = {n_eff:.4g}{wide}"
    )
    return Interval(p, interval.n, interval.se, low, high, interval.confidence, None, method)
