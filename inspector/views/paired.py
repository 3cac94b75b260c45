"""The paired analysis of one series pair: the series delta B − A, its interval and test.

Pure (no textual, no rich, no I/O). Used by :meth:`inspector.views.compare.Comparison.stats`
(``inspector diff``, the compare screen, what-if plans of one run).

The estimand is the number on screen: the series value of side B minus that of side A
(``delta``: the engine's own values, 0 when equal at the reported precision). The unit of
resampling is the task: a resample draws task ids (of either side) with replacement and
recomputes *each side's series value* from the drawn tasks with the series' own
aggregation (:func:`inspector.engine.aggregation.resampled_values`: micro, category mean,
hierarchy weights, re-normalised as the engine does), so weights and state changes
(error → evaluated) are inside the interval. A task on one side only counts on that side.

- interval: ``scipy.stats.bootstrap`` over the task ids (BCa, seeded);
- p-value: ``scipy.stats.permutation_test``, paired (each task's A and B swapped at
  random): the chance of a delta at least as far from 0 if A and B were exchangeable;
- McNemar's exact test where both sides are binary series with one attempt (k=1).

A series whose value is not an aggregate of per-task values (a corpus formula, a series
carried over) gets no interval: the sample is refused when recomputing the unresampled
tasks does not give the engine's value back.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from inspector.views.series_sample import SeriesSample, Side, series_sample
from inspector.views.stats import DEFAULT_CONFIDENCE, mcnemar_exact

__all__ = ["PairedStats", "SeriesSample", "Side", "delta_interval", "paired_stats", "series_sample"]

CI_METHOD = "BCa"
"""scipy.stats.bootstrap's method (benchmarks/bench_paired.py measures its coverage)."""
BATCH = 500
JACKKNIFE = "jackknife-t"
SMALL = 200
"""Below this many task ids the interval is the jackknife t (the BCa bootstrap covers too
little there: benchmarks/bench_paired.py)."""
JACKKNIFE_TEXT = (
    "jackknife t interval of the series delta B − A (each of the {n} task ids left out of "
    "both sides in turn; Student t, n − 1 degrees of freedom)"
)
"""Resamples computed at once (bounds memory on large runs)."""


@dataclass(frozen=True, slots=True)
class DeltaInterval:
    """The bootstrap interval of the series delta and the permutation p-value."""

    low: float
    high: float
    p_value: float
    confidence: float
    resamples: int
    seed: int
    method: str
    # the interval's name in a few words: "jackknife t", "BCa bootstrap", ...
    kind: str = "BCa bootstrap"


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
    method: str | None = None,
) -> DeltaInterval:
    """An interval and a paired permutation p-value of the series delta, recomputed on
    each side with the series' own aggregation: the jackknife t below
    :data:`SMALL` tasks, else the BCa bootstrap (``method`` forces ``"jackknife"`` or
    ``"BCa"``; benchmarks/bench_paired.py measures both)."""
    from scipy import stats  # imported when a comparison asks for it

    n = len(sample.task_ids)
    observed = sample.b.value - sample.a.value
    rng = np.random.default_rng(seed)

    # Strata: tasks on both sides, on A only, on B only; each resampled within itself
    # (scipy resamples the samples of an unpaired call independently), so every resample
    # keeps each side's number of tasks.
    strata = [
        np.flatnonzero(m) for m in (sample.a.present & sample.b.present,
                                    sample.a.present & ~sample.b.present,
                                    ~sample.a.present & sample.b.present)
    ]  # fmt: skip
    fixed = np.concatenate([np.zeros(0, np.intp), *(s for s in strata if len(s) == 1)])
    strata = [s for s in strata if len(s) > 1]

    def statistic(*parts: NDArray[np.intp], axis: int = -1) -> NDArray[np.float64]:
        moved = [np.moveaxis(p, axis, -1) for p in parts]
        shape = moved[0].shape[:-1] if moved else ()
        index = np.concatenate([*moved, np.broadcast_to(fixed, (*shape, len(fixed)))], axis=-1)
        return sample.delta(index)

    probe = statistic(*(rng.choice(s, size=(64, len(s))) for s in strata))
    method = method or (JACKKNIFE if n < SMALL else CI_METHOD)
    if method == JACKKNIFE:
        low, high = _jackknife_t(sample, observed, confidence)
    elif not strata or np.all(probe == probe[0]):
        low = high = observed  # every resample gives the same delta: nothing varies
    else:
        with warnings.catch_warnings():  # a degenerate BCa is said in the method below
            warnings.simplefilter("ignore", stats.DegenerateDataWarning)
            warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 in BCa's acceleration
            res = stats.bootstrap(
                tuple(strata), statistic, n_resamples=resamples, confidence_level=confidence,
                method=CI_METHOD, vectorized=True, batch=BATCH, random_state=rng,
            )  # fmt: skip
        low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if not (math.isfinite(low) and math.isfinite(high)):
            dist = res.bootstrap_distribution
            empty = int(np.isnan(dist).sum())
            alpha = (1 - confidence) / 2
            low, high = (float(x) for x in np.nanpercentile(dist, [100 * alpha, 100 * (1 - alpha)]))
            why = (f"{empty} resamples leave a side without a value" if empty
                   else "too few distinct resampled values")  # fmt: skip
            method = f"percentile (BCa is undefined here: {why})"
    p = _permutation_p(sample, resamples, rng)
    kind = "jackknife t" if method == JACKKNIFE else method.split(" ")[0] + " bootstrap"
    return DeltaInterval(
        low=low, high=high, p_value=p, confidence=confidence, resamples=resamples, seed=seed,
        kind=kind,
        method=(
            (JACKKNIFE_TEXT.format(n=n) if method == JACKKNIFE else
             f"{method} bootstrap (scipy.stats.bootstrap) of the series delta B − A: "
             f"{resamples} resamples of the {n} task ids (within: on both sides, on A only, "
             "on B only)") + ", each side's series value "
            f"recomputed with its own aggregation, seed {seed}; p-value: paired permutation "
            "test (each task's A and B swapped at random) of the same delta"
        ),
    )  # fmt: skip


def _jackknife_t(sample: SeriesSample, observed: float, confidence: float) -> tuple[float, float]:
    """observed ± t(n − 1) · the jackknife standard error of the delta (each task id left
    out of both sides in turn, the series recomputed)."""
    from scipy import special

    n = len(sample.task_ids)
    if n < 2:
        return observed, observed
    rows = np.array([np.delete(np.arange(n), i) for i in range(n)], dtype=np.intp)
    left_out = sample.delta(rows)
    left_out = left_out[~np.isnan(left_out)]
    m = len(left_out)
    if m < 2:
        return observed, observed
    se = math.sqrt((m - 1) / m * float(((left_out - left_out.mean()) ** 2).sum()))
    half = float(special.stdtrit(m - 1, (1 + confidence) / 2)) * se
    return observed - half, observed + half


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
            f"p = {ci.p_value:.3g} ({ci.kind} over {stats.tasks} tasks, both sides "
            f"recomputed; paired permutation test, seed {ci.seed})"
        ]
    if stats.mcnemar_p is not None:
        lines.append(
            f"McNemar exact (two-sided): {stats.one_to_zero} 1→0 vs {stats.zero_to_one} 0→1 "
            f"of {stats.binary_pairs} binary pairs, p = {stats.mcnemar_p:.4g}"
        )
    return lines
