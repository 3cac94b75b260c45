"""The paired analysis of one series pair: the series delta B − A, its interval and test.

Pure (no textual, no rich, no I/O). Used by :meth:`inspector.views.compare.Comparison.stats`
(``inspector diff``, the compare screen, what-if plans of one run).

The estimand is the number on screen: the series value of side B minus that of side A
(``delta``: the engine's own values, 0 when equal at the reported precision).

- interval: MOVER (:mod:`inspector.views.mover`): each side's own calibrated interval of
  its series value (as ``inspector stats`` computes it, on exactly that side's tasks of the
  comparison) combined with the correlation of the two estimates; inside the feasible range
  and never of zero width for values in [0, 1]; no resampling;
- p-value: ``scipy.stats.permutation_test``, paired (each task's A and B swapped at
  random, each side's series value recomputed with its own aggregation,
  :func:`inspector.engine.aggregation.resampled_values`): the chance of a delta at least as
  far from 0 if A and B were exchangeable;
- McNemar's exact test where both sides are binary series with one attempt (k=1).

A series whose value is not an aggregate of per-task values (a corpus formula, a series
carried over) gets no interval: the sample is refused when recomputing the unresampled
tasks does not give the engine's value back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from inspector.views.mover import correlation, mover_bounds, side_interval
from inspector.views.series_sample import SeriesSample, Side, series_sample
from inspector.views.stats import DEFAULT_CONFIDENCE, mcnemar_exact

__all__ = ["PairedStats", "SeriesSample", "Side", "delta_interval", "paired_stats", "series_sample"]

BATCH = 500
"""Permutations computed at once (bounds memory on large runs)."""
MOVER_TEXT = (
    "MOVER interval of the series delta B − A (Newcombe 1998 method 10, Zou & Donner 2008): "
    "each side's own {confidence:.0%} interval of its series value on its {na} / {nb} "
    "evaluated tasks ({how}), combined with the correlation of the two estimates "
    "r = {r:.3g} (task influence values, shrunk by (n − 1)/n), clipped to {lo:g} … {hi:g}"
)


@dataclass(frozen=True, slots=True)
class DeltaInterval:
    """The (MOVER) interval of the series delta and the permutation p-value."""

    low: float
    high: float
    p_value: float
    confidence: float
    resamples: int
    seed: int
    method: str
    # the interval's name in a few words
    kind: str = "MOVER"


@dataclass(frozen=True, slots=True)
class PairedStats:
    """The series delta, its interval and test, and (where it applies) McNemar."""

    series: str
    # B − A of the series values (0 when equal at the reported precision); None: no delta
    delta: float | None
    # task ids of either side (the resampling unit) and those evaluated on both sides
    tasks: int
    paired: int
    interval: DeltaInterval | None
    # why there is no interval (None when there is one)
    no_interval: str | None
    # pairs evaluated on both sides with 0/1 values (binary series with one attempt only)
    binary_pairs: int
    one_to_zero: int
    zero_to_one: int
    mcnemar_p: float | None
    mcnemar_note: str | None = None


def delta_interval(
    sample: SeriesSample,
    *,
    seed: int = 0,
    resamples: int = 10_000,
    confidence: float = DEFAULT_CONFIDENCE,
    test: bool = True,
) -> DeltaInterval:
    """The MOVER interval of the series delta (:mod:`inspector.views.mover`: each side's
    own calibrated interval on its tasks of the sample, no resampling) and a paired
    permutation p-value of the same delta (``test`` False: not computed, p = NaN)."""
    observed = sample.b.value - sample.a.value
    rng = np.random.default_rng(seed)
    sides = []
    for side in (sample.a, sample.b):
        evaluated = side.present & (side.evaluated > 0)
        sides.append(side_interval(
            side.values, evaluated, side.categories, sample.names, side.aggregation, side.root,
            side.value, side.shape, confidence,
        ))  # fmt: skip
    (ia, fa, bounded_a), (ib, fb, bounded_b) = sides
    both = int(np.sum(sample.a.present & sample.b.present
                      & (sample.a.evaluated > 0) & (sample.b.evaluated > 0)))  # fmt: skip
    r = correlation(fa, fb, both)
    ranges = [(0.0, 1.0) if b else (-math.inf, math.inf) for b in (bounded_a, bounded_b)]
    feasible = (ranges[1][0] - ranges[0][1], ranges[1][1] - ranges[0][0])
    bounds = mover_bounds(ia, ib, r, feasible)
    if bounds is None:
        low = high = observed  # a side without spread or interval (unbounded scalars)
        how = "a side has no interval: " + (ia.method if ia.ci_low is None else ib.method)
    else:
        low, high = bounds
        how = ia.method if ia.method == ib.method else f"A: {ia.method}; B: {ib.method}"
    p = _permutation_p(sample, resamples, rng) if test else math.nan
    method = MOVER_TEXT.format(
        confidence=confidence, na=ia.n, nb=ib.n, how=how, r=r, lo=feasible[0], hi=feasible[1]
    )
    return DeltaInterval(
        low=low, high=high, p_value=p, confidence=confidence, resamples=resamples, seed=seed,
        kind="MOVER",
        method=method + f"; p-value: paired permutation test (each task's A and B swapped "
        f"at random, {resamples} permutations, seed {seed}) of the same delta",
    )  # fmt: skip


def _permutation_p(sample: SeriesSample, resamples: int, rng: np.random.Generator) -> float:
    from scipy import stats

    n = len(sample.task_ids)
    if n < 2:
        return 1.0  # one task: swapping its sides gives ±delta, as far from 0 as observed
    both = SeriesSample(
        sample.task_ids, sample.names,
        _stacked(sample.a, sample.b, sample.a), _stacked(sample.a, sample.b, sample.b),
    )  # fmt: skip

    def statistic(x: NDArray[np.intp], y: NDArray[np.intp], axis: int = -1) -> NDArray[np.float64]:
        x, y = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
        return both.values(both.b, y) - both.values(both.a, x)

    res = stats.permutation_test(
        (np.arange(n), np.arange(n) + n), statistic, permutation_type="samples",
        vectorized=True, n_resamples=resamples, batch=BATCH, random_state=rng,
    )  # fmt: skip
    p = float(res.pvalue)
    return min(1.0, p) if math.isfinite(p) else 1.0


def _stacked(a: Side, b: Side, rules: Side) -> Side:
    """Both sides' tasks in one table (A's first, then B's), aggregated by ``rules``."""
    return Side(
        np.concatenate([a.values, b.values]), np.concatenate([a.evaluated, b.evaluated]),
        np.concatenate([a.categories, b.categories]), np.concatenate([a.present, b.present]),
        rules.aggregation, rules.root, rules.value,
    )  # fmt: skip


def paired_stats(
    label: str,
    pairs: Sequence[tuple[float, float]],
    *,
    one_outcome: bool,
    delta: float | None,
    sample: SeriesSample | None,
    seed: int = 0,
    resamples: int = 10_000,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PairedStats:
    """``pairs``: (A value, B value) of each task evaluated on both sides (for McNemar);
    ``sample``: both sides' tasks (None: the series cannot be resampled)."""
    binary = (
        [(a, b) for a, b in pairs if a in (0.0, 1.0) and b in (0.0, 1.0)] if one_outcome else []
    )
    down = sum(a == 1.0 and b == 0.0 for a, b in binary)
    up = sum(a == 0.0 and b == 1.0 for a, b in binary)
    interval = None
    why = None
    if delta is None:
        why = "no delta: a side has no value"
    elif sample is None:
        why = "no interval: the series is not an aggregate of task values (corpus formula)"
    else:
        interval = delta_interval(sample, seed=seed, resamples=resamples, confidence=confidence)
    return PairedStats(
        series=label, delta=delta, tasks=len(sample.task_ids) if sample else 0,
        paired=len(pairs), interval=interval, no_interval=why,
        binary_pairs=len(binary), one_to_zero=down, zero_to_one=up,
        mcnemar_p=mcnemar_exact(down, up) if binary else None,
        mcnemar_note=None if one_outcome
        else "McNemar needs binary series with one attempt on both sides",
    )  # fmt: skip


def paired_json(stats: PairedStats) -> dict[str, Any]:
    """``paired`` / ``bootstrap`` / ``mcnemar`` of one series in ``diff --format json``.

    ``series_delta`` is B − A of the series values; ``mean_diff`` is the same number (its
    old name, kept)."""
    ci = stats.interval
    paired = {
        "series_delta": stats.delta, "mean_diff": stats.delta, "n": stats.tasks,
        "evaluated_on_both": stats.paired,
        "ci_low": None if ci is None else ci.low, "ci_high": None if ci is None else ci.high,
        "p_value": None if ci is None else ci.p_value,
        "confidence": None if ci is None else ci.confidence,
        "method": stats.no_interval if ci is None else ci.method,
    }  # fmt: skip
    return {
        "paired": paired,
        "bootstrap": None if ci is None else {
            "series_delta": stats.delta, "mean_diff": stats.delta, "n": stats.tasks,
            "ci_low": ci.low, "ci_high": ci.high, "confidence": ci.confidence,
            "resamples": ci.resamples, "seed": ci.seed, "method": ci.method,
        },
        "mcnemar": None if stats.mcnemar_p is None else {
            "b": stats.one_to_zero, "c": stats.zero_to_one, "n": stats.binary_pairs,
            "p_value": stats.mcnemar_p,
            "method": "McNemar exact (two-sided binomial test of the discordant pairs); "
            "b: 1 under A and 0 under B, c: 0 under A and 1 under B",
        },
    }  # fmt: skip


def _num(value: float) -> str:
    return "0" if value == 0 else f"{value:+.4g}"


def paired_lines(stats: PairedStats) -> list[str]:
    """The paired analysis as lines of text (``diff`` table and markdown, compare screen)."""
    if stats.delta is None:
        return [stats.no_interval or "no delta"]
    ci = stats.interval
    head = f"series delta B − A {_num(stats.delta)}"
    if ci is None:
        lines = [f"{head} ({stats.no_interval})"]
    else:
        lines = [
            f"{head}, {ci.confidence:.0%} CI {_num(ci.low)} … {_num(ci.high)}, "
            f"p = {ci.p_value:.3g} ({ci.kind}: each side's own interval over "
            f"{stats.tasks} tasks; paired permutation test, seed {ci.seed})"
        ]
    if stats.mcnemar_p is not None:
        lines.append(
            f"McNemar exact (two-sided): {stats.one_to_zero} 1→0 vs {stats.zero_to_one} 0→1 "
            f"of {stats.binary_pairs} binary pairs, p = {stats.mcnemar_p:.4g}"
        )
    return lines
