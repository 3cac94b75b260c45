"""The paired analysis of one series pair: the series delta B − A, its interval and test.

Pure (no textual, no rich, no I/O). Used by :meth:`inspector.views.compare.Comparison.stats`
(``inspector diff``, the compare screen, what-if plans of one run, the gate's regressions).

The estimand is the number on screen: the series value of side B minus that of side A
(``delta``: the engine's own values, 0 when equal at the reported precision), each side's
value an estimate of what the same system would score on the population its tasks are
drawn from.

- interval: MOVER (:mod:`inspector.views.mover`): each side's own calibrated interval of
  its series value (as ``inspector stats`` computes it, on exactly that side's tasks of the
  comparison; the method chosen by the metric, never by the values seen) combined with the
  correlation of the two estimates; inside the feasible range and never of zero width; no
  resampling;
- p-value: the inversion of the same interval, ``1 − c*`` with ``c*`` the highest
  confidence at which the MOVER interval excludes 0 (found by bisection), so "the interval
  excludes 0" and "p ≤ 1 − confidence" are one verdict, never two;
- McNemar's exact test where both sides are binary series with one attempt (k=1) and at
  least two binary pairs.

No interval and no p-value (the reason said once, in words) where either is unearned: fewer
than two tasks evaluated on both sides, a side without an interval of its own (one task, no
spread among a scalar's values), a series whose value is not an aggregate of per-task
values (a corpus formula, a series carried over: the sample is refused when recomputing the
tasks does not give the engine's value back).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from inspector.engine.vocabulary import plural
from inspector.views.mover import correlation, mover_bounds, side_interval
from inspector.views.resolution import Resolution, resolution, resolution_text
from inspector.views.series_sample import SeriesSample, Side, series_sample
from inspector.views.stats import DEFAULT_CONFIDENCE, Interval, mcnemar_exact

__all__ = ["PairedStats", "SeriesSample", "Side", "delta_interval", "paired_stats", "series_sample"]

MIN_PAIRED = 2
"""Tasks evaluated on both sides a paired interval, p-value or McNemar test needs."""
P_FLOOR = 1e-12
"""The smallest p-value the inversion looks for (a smaller one is reported as this)."""
P_STEPS = 30
"""Bisection steps of the inversion on log α (relative precision ~1e-8)."""
MOVER_TEXT = (
    "MOVER interval of the series delta B − A (Newcombe 1998 method 10, Zou & Donner 2008): "
    "each side's own {confidence:.0%} interval of its series value on its {na} / {nb} "
    "evaluated tasks ({how}), combined with the correlation of the two estimates "
    "r = {r:.3g} over the {both} tasks evaluated on both sides (task influence values, "
    "shrunk by (n − 1)/n), clipped to {lo:g} … {hi:g}; p-value: the inversion of the same "
    "interval (1 − the highest confidence at which it excludes 0)"
)


@dataclass(frozen=True, slots=True)
class DeltaInterval:
    """The MOVER interval of the series delta and the p-value that inverts it."""

    low: float
    high: float
    p_value: float
    confidence: float
    method: str
    # the interval's name in a few words
    kind: str = "MOVER"


@dataclass(frozen=True, slots=True)
class PairedStats:
    """The series delta, its interval and test, and (where it applies) McNemar."""

    series: str
    # B − A of the series values (0 when equal at the reported precision); None: no delta
    delta: float | None
    # task ids of either side and those evaluated on both sides
    tasks: int
    paired: int
    interval: DeltaInterval | None
    # why there is no interval (None when there is one), said once: "no interval: …"
    no_interval: str | None
    # pairs evaluated on both sides with 0/1 values (binary series with one attempt only)
    binary_pairs: int
    one_to_zero: int
    zero_to_one: int
    mcnemar_p: float | None
    # the minimum detectable effect and what would resolve the delta (None: no interval)
    resolution: Resolution | None = None


def _mover_at(sample: SeriesSample) -> Callable[[float], tuple[Interval, Interval, float, Any]]:
    """``at(confidence)``: both sides' intervals, r and the MOVER bounds (None: a side has
    no interval) at that confidence."""
    evaluated = [side.present & (side.evaluated > 0) for side in (sample.a, sample.b)]
    both = int(np.sum(evaluated[0] & evaluated[1]))

    def at(confidence: float) -> tuple[Interval, Interval, float, Any]:
        sides = [
            side_interval(side.values, ev, side.categories, sample.names, side.aggregation,
                          side.root, side.value, side.shape, confidence)
            for side, ev in zip((sample.a, sample.b), evaluated, strict=True)
        ]  # fmt: skip
        (ia, fa, bounded_a), (ib, fb, bounded_b) = sides
        r = correlation(fa, fb, both)
        ranges = [(0.0, 1.0) if b else (-math.inf, math.inf) for b in (bounded_a, bounded_b)]
        feasible = (ranges[1][0] - ranges[0][1], ranges[1][1] - ranges[0][0])
        return ia, ib, r, (mover_bounds(ia, ib, r, feasible), feasible)

    return at


def paired_tasks(sample: SeriesSample) -> int:
    """Tasks evaluated (with a value) on both sides of the sample."""
    a, b = sample.a, sample.b
    return int(np.sum(a.present & b.present & (a.evaluated > 0) & (b.evaluated > 0)))


def delta_interval(
    sample: SeriesSample, *, confidence: float = DEFAULT_CONFIDENCE, test: bool = True
) -> DeltaInterval | str:
    """The MOVER interval of the series delta (:mod:`inspector.views.mover`: each side's own
    calibrated interval on its tasks of the sample, no resampling) and the p-value that
    inverts it (``test`` False: not computed, NaN — the simulations' coverage draws); or
    why there is none (``"no interval: …"``)."""
    both = paired_tasks(sample)
    if both < MIN_PAIRED:
        return (f"no interval: {plural(both, 'task')} evaluated on both sides"
                f"; a paired interval needs {MIN_PAIRED}")  # fmt: skip
    at = _mover_at(sample)
    ia, ib, r, (bounds, feasible) = at(confidence)
    if bounds is None:
        name, side = ("A", ia) if ia.ci_low is None or ia.ci_high is None else ("B", ib)
        return f"no interval: side {name} has none, {side.method.removeprefix('no interval: ')}"
    low, high = bounds
    how = ia.method if ia.method == ib.method else f"A: {ia.method}; B: {ib.method}"
    method = MOVER_TEXT.format(confidence=confidence, na=ia.n, nb=ib.n, how=how, r=r,
                               both=both, lo=feasible[0], hi=feasible[1])  # fmt: skip
    d = sample.b.value - sample.a.value

    def excluded(alpha: float) -> bool:
        found = at(1 - alpha)[3][0]
        return found is not None and (found[0] > 0 or found[1] < 0)

    p = inverted_p(excluded, low > 0 or high < 0, 1 - confidence, d == 0) if test else math.nan
    return DeltaInterval(low, high, p, confidence, method)


def reach_at(confidence: float) -> Callable[[SeriesSample], float | None]:
    """``reach(sample)``: how far the delta interval reaches from the estimate towards 0
    (the lower end's distance for a rise), None where there is no interval."""

    def reach(sample: SeriesSample) -> float | None:
        found = delta_interval(sample, confidence=confidence, test=False)
        if isinstance(found, str):
            return None
        d = sample.b.value - sample.a.value
        return d - found.low if d >= 0 else found.high - d

    return reach


def inverted_p(
    excluded: Callable[[float], bool], excluded_at_level: bool, alpha: float, no_change: bool
) -> float:
    """The p-value of a family of nested intervals: the smallest α whose (1 − α) interval
    excludes 0, by bisection on log α, returned as the end of the last bracket whose
    interval excludes 0 — so ``p ≤ alpha`` exactly when the interval at ``alpha`` (known:
    ``excluded_at_level``) excludes 0. 1 where no interval excludes 0."""
    if no_change:
        return 1.0
    if excluded_at_level:
        lo, hi = P_FLOOR, alpha
        if excluded(lo):
            return P_FLOOR
    else:
        lo, hi = alpha, 1 - 1e-6
        if not excluded(hi):
            return 1.0
    for _ in range(P_STEPS):
        mid = math.sqrt(lo * hi)
        if excluded(mid):
            hi = mid
        else:
            lo = mid
    return hi


def paired_stats(
    label: str,
    pairs: Sequence[tuple[float, float]],
    *,
    one_outcome: bool,
    delta: float | None,
    sample: SeriesSample | None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PairedStats:
    """``pairs``: (A value, B value) of each task evaluated on both sides (for McNemar);
    ``sample``: both sides' tasks (None: the series is not an aggregate of task values)."""
    binary = (
        [(a, b) for a, b in pairs if a in (0.0, 1.0) and b in (0.0, 1.0)] if one_outcome else []
    )
    down = sum(a == 1.0 and b == 0.0 for a, b in binary)
    up = sum(a == 0.0 and b == 1.0 for a, b in binary)
    interval: DeltaInterval | None = None
    why = None
    if delta is None:
        why = "no delta: a side has no value"
    elif sample is None:
        why = "no interval: the series is not an aggregate of task values (corpus formula)"
    else:
        found = delta_interval(sample, confidence=confidence)
        interval, why = (found, None) if isinstance(found, DeltaInterval) else (None, found)
    resolved = None
    if interval is not None and sample is not None and delta is not None:
        resolved = resolution(sample, (interval.low, interval.high), paired_tasks(sample),
                              delta, confidence, reach_at(confidence))  # fmt: skip
    # McNemar needs binary series with one attempt on both sides, and MIN_PAIRED such pairs.
    mcnemar = one_outcome and len(binary) >= MIN_PAIRED
    return PairedStats(
        series=label, delta=delta, tasks=len(sample.task_ids) if sample else 0,
        paired=len(pairs), interval=interval, no_interval=why,
        binary_pairs=len(binary), one_to_zero=down, zero_to_one=up,
        mcnemar_p=mcnemar_exact(down, up) if mcnemar else None,
        resolution=resolved,
    )  # fmt: skip


DEPRECATED_BOOTSTRAP = (
    "deprecated alias of paired (nothing is bootstrapped: the interval is MOVER's); "
    "read paired instead, this key goes in the next release"
)


def paired_json(stats: PairedStats) -> dict[str, Any]:
    """``paired`` / ``bootstrap`` / ``mcnemar`` of one series in ``diff --format json``.

    ``paired`` is the one place for the series delta's interval and p-value (null where
    none is earned; ``method`` then says why). ``series_delta`` is B − A of the series
    values; ``mean_diff`` is the same number (its old name, kept). ``bootstrap`` is a
    deprecated alias of ``paired``'s interval, kept one release."""
    ci = stats.interval
    paired = {
        "series_delta": stats.delta, "mean_diff": stats.delta, "n": stats.tasks,
        "evaluated_on_both": stats.paired,
        "ci_low": None if ci is None else ci.low, "ci_high": None if ci is None else ci.high,
        "p_value": None if ci is None else ci.p_value,
        "confidence": None if ci is None else ci.confidence,
        "method": stats.no_interval if ci is None else ci.method,
        **resolution_json(stats),
    }  # fmt: skip
    return {
        "paired": paired,
        "bootstrap": None if ci is None else {
            "series_delta": stats.delta, "mean_diff": stats.delta, "n": stats.tasks,
            "ci_low": ci.low, "ci_high": ci.high, "confidence": ci.confidence,
            "resamples": 0, "seed": None, "method": ci.method,
            "deprecated": DEPRECATED_BOOTSTRAP,
        },
        "mcnemar": None if stats.mcnemar_p is None else {
            "b": stats.one_to_zero, "c": stats.zero_to_one, "n": stats.binary_pairs,
            "p_value": stats.mcnemar_p,
            "method": "McNemar exact (two-sided binomial test of the discordant pairs); "
            "b: 1 under A and 0 under B, c: 0 under A and 1 under B",
        },
    }  # fmt: skip


MDE_METHOD = (
    "minimum detectable effect at {power:.0%} power of this procedure (the paired interval "
    "excludes 0) in this design: h + t_(power, n−1)·se, h the distance from the estimate "
    "to the end of the paired interval on the side of 0, se the paired standard error of the delta (tasks as clusters); "
    "tasks_to_resolve: about n·(mde/|delta|)² tasks; attempts_to_resolve: attempts per "
    "task from the within-task variance (fractions of k > 1 attempts only)"
)


def resolution_json(stats: PairedStats) -> dict[str, Any]:
    """``mde``, ``tasks_to_resolve``, ``attempts_to_resolve``, ``resolution`` (the
    sentence, or why there are none) and ``mde_method`` of ``paired``."""
    found = stats.resolution
    if found is None or stats.delta is None:
        why = stats.no_interval or "no interval"
        return {"mde": None, "mde_power": None, "tasks_to_resolve": None,
                "attempts_to_resolve": None, "resolution": f"no MDE: {why}",
                "mde_method": None}  # fmt: skip
    return {
        "mde": found.mde, "mde_power": found.power, "tasks_to_resolve": found.tasks_to_resolve,
        "attempts_to_resolve": found.attempts_to_resolve,
        "resolution": resolution_text(found, stats.delta, stats.paired),
        "mde_method": MDE_METHOD.format(power=found.power),
    }  # fmt: skip


def _num(value: float) -> str:
    return "0" if value == 0 else f"{value:+.4g}"


def p_text(p: float) -> str:
    """``p = 0.0312``, or ``p ≤ 1e-12`` at the inversion's floor."""
    return f"p ≤ {P_FLOOR:g}" if p <= P_FLOOR else f"p = {p:.3g}"


def paired_lines(stats: PairedStats, *, resolution: bool = True) -> list[str]:
    """The paired analysis as lines of text (``diff`` table and markdown, compare screen;
    ``resolution`` False: without the minimum detectable effect's line)."""
    if stats.delta is None:
        return [stats.no_interval or "no delta"]
    ci = stats.interval
    head = f"series delta B − A {_num(stats.delta)}"
    if ci is None:
        lines = [f"{head} ({stats.no_interval})"]
    else:
        lines = [
            f"{head}, {ci.confidence:.0%} CI {_num(ci.low)} … {_num(ci.high)}, "
            f"{p_text(ci.p_value)} ({ci.kind}, {stats.paired} of {stats.tasks} tasks paired; "
            "p inverts the CI)"
        ]
        if stats.resolution is not None and resolution:
            lines.append(resolution_text(stats.resolution, stats.delta, stats.paired))
    if stats.mcnemar_p is not None:
        lines.append(
            f"McNemar exact (two-sided): {stats.one_to_zero} 1→0 vs {stats.zero_to_one} 0→1 "
            f"of {stats.binary_pairs} binary pairs, p = {stats.mcnemar_p:.4g}"
        )
    return lines
