"""Is a paired delta resolved? The minimum detectable effect of the comparison and what
would resolve the observed delta.

Pure (no textual, no rich, no I/O). Used by :func:`inspector.views.paired.paired_stats`.

The design is the one observed: the tasks of the sample (tasks are the clusters: a task's
value is the mean of its attempts), both sides' series formulas (micro, category mean,
hierarchy), the procedure :func:`inspector.views.paired.delta_interval` (the MOVER interval
excludes 0 at two-sided level α = 1 − confidence). The minimum detectable effect (MDE) is
the true delta that procedure detects with 80 % power in this design:

    MDE = h + t_{0.80, n−1} · se

- ``se``: the paired standard error of the delta, √(Σ_i (ψ_B,i − ψ_A,i)² · n_g/(n_g − 1)),
  ψ the tasks' influence values on each side's series value (0 where a task is not
  evaluated on that side; :func:`inspector.views.mover.side_interval`), n_g the tasks of
  task i's category evaluated on both sides (the whole sample for micro);
- ``h``: the distance from the estimate to the end of the observed MOVER interval on the
  side of 0 (the lower end for a rise) — what the estimate must clear for the interval to
  exclude 0. For a Wald interval h = z_{1−α/2}·se and the formula
  is the textbook (z_{1−α/2} + z_{0.8})·se; MOVER from Clopper–Pearson sides is wider (it is
  conservative), and using its own h calibrates the MDE to the procedure actually used;
- ``t_{0.80, n−1}``: the small-n correction (the estimate's spread is learned from n tasks).

Measured by ``benchmarks/bench_mde.py``: the procedure's rejection rate at a true delta
equal to the stated MDE.

What would resolve the observed delta d ≠ 0: both h and se shrink as 1/√n, so about
``n · (MDE/|d|)²`` tasks of the same kind (``tasks_to_resolve``). For fractions of k > 1
binary attempts, the attempts per task instead: the within-task part W of se² (each task's
x(1 − x)/(k − 1), weighted as its influence) scales as k/k′, the between-task part does
not; ``attempts_to_resolve`` is the least k′ with MDE(k′) ≤ |d| (None, said, when more
attempts alone cannot: the between-task part alone is too wide).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats as scipy_stats

from inspector.engine.aggregation import resampled_values
from inspector.views.mover import _weights as category_weights
from inspector.views.mover import side_interval
from inspector.views.series_sample import SeriesSample

__all__ = ["POWER", "Resolution", "resolution"]

POWER = 0.80
"""The power the minimum detectable effect is stated at."""
GROUPS = 10
"""Groups of tasks of the delete-a-group jackknife of the interval's reach ``h``."""
MAX_ATTEMPTS = 10_000
"""Past this many attempts per task, "more attempts alone cannot resolve it"."""


@dataclass(frozen=True, slots=True)
class Resolution:
    """The minimum detectable effect and what would resolve the observed delta."""

    # the true delta detected with ``power`` (None: not earned, ``reason`` says why)
    mde: float | None
    # tasks of this kind that would detect the observed delta with ``power``
    tasks_to_resolve: int | None
    # attempts per task (same tasks) that would; only for fractions of k > 1 attempts
    attempts_to_resolve: int | None
    se: float | None
    power: float
    # why a number is missing, said once (None: nothing is missing)
    reason: str | None
    # values in [0, 1]: stated in points (×100)
    points: bool


def _influences(sample: SeriesSample, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    out = []
    for side in (sample.a, sample.b):
        ev = side.present & (side.evaluated > 0)
        _, psi, _ = side_interval(side.values, ev, side.categories, sample.names,
                                  side.aggregation, side.root, side.value, side.shape,
                                  confidence)  # fmt: skip
        out.append(psi)
    return out[0], out[1]


def _unbiased(sample: SeriesSample) -> np.ndarray:
    """Each task's factor n_g/(n_g − 1) (n_g the tasks of its category evaluated on both
    sides; 1 where n_g < 2): Σ over a category of (x − m_g)² is n_g − 1 times its variance,
    not n_g times."""
    a, b = sample.a, sample.b
    both = a.present & b.present & (a.evaluated > 0) & (b.evaluated > 0)
    n_g = np.bincount(a.categories[both], minlength=len(sample.names)).astype(np.float64)
    per = n_g[a.categories]
    return np.where(per >= 2, per / np.maximum(per - 1, 1), 1.0)


def without(sample: SeriesSample, keep: np.ndarray) -> SeriesSample:
    """The sample with only the tasks where ``keep``; each side's value recomputed."""
    sides = []
    g = len(sample.names)
    for side in (sample.a, sample.b):
        evaluated = side.evaluated * keep
        sums: NDArray[np.float64] = np.asarray(
            np.bincount(side.categories, weights=side.values * evaluated, minlength=g), np.float64
        )
        counts: NDArray[np.float64] = np.asarray(
            np.bincount(side.categories, weights=evaluated, minlength=g), np.float64
        )
        value = float(resampled_values(side.aggregation, sums[None, :], counts[None, :],
                                       sample.names, side.root)[0])  # fmt: skip
        sides.append(dataclasses.replace(side, evaluated=evaluated, value=value,
                                         present=side.present & (keep > 0)))  # fmt: skip
    return SeriesSample(sample.task_ids, sample.names, sides[0], sides[1])


def reach_variance(sample: SeriesSample, reach: Callable[[SeriesSample], float | None]) -> float:
    """The delete-a-group jackknife variance of the interval's reach h (``reach``: h of a
    sample, None: no interval): the tasks dealt round-robin into :data:`GROUPS` groups
    within each category (in task order, so the same sample always gives the same
    groups); 0 where fewer than 2 groups leave an interval."""
    group = np.zeros(len(sample.task_ids), dtype=np.intp)
    dealt = 0
    for c in range(len(sample.names)):
        members = np.flatnonzero(sample.a.categories == c)
        group[members] = (dealt + np.arange(len(members))) % GROUPS
        dealt += len(members)
    found = [reach(without(sample, (group != j).astype(np.float64))) for j in range(GROUPS)]
    values = np.array([h for h in found if h is not None and math.isfinite(h)])
    if len(values) < 2:
        return 0.0
    return float((len(values) - 1) / len(values) * np.sum((values - values.mean()) ** 2))


def _within(sample: SeriesSample) -> tuple[float, int] | None:
    """W (the within-task part of se²) and k, for fractions of k > 1 attempts on both
    sides; None otherwise."""
    ks = {side.shape.attempts for side in (sample.a, sample.b)}
    if len(ks) != 1:
        return None
    k = next(iter(ks))
    if k is None or k <= 1:
        return None
    k = int(k)
    total = 0.0
    for side in (sample.a, sample.b):
        ev = side.present & (side.evaluated > 0)
        cats = side.categories[ev]
        counts = np.bincount(cats, minlength=len(sample.names)).astype(np.float64)
        # a task's influence is a_g/n_g·(x − m_g) (mover.side_interval): its scale a_g/n_g
        a = category_weights(side.aggregation, counts, sample.names, side.root)
        x = side.values[ev]
        total += float(np.sum((a[cats] / counts[cats]) ** 2 * x * (1 - x) / (k - 1)))
    return total, k


def resolution(
    sample: SeriesSample,
    interval: tuple[float, float],
    paired: int,
    delta: float,
    confidence: float,
    reach: Callable[[SeriesSample], float | None] | None = None,
) -> Resolution:
    """The MDE of the comparison ``sample`` whose MOVER ``interval`` (low, high) at
    ``confidence`` is over ``paired`` tasks evaluated on both sides, and what would resolve
    the observed ``delta`` (as shown)."""
    points = sample.a.shape.attempts is not None and sample.b.shape.attempts is not None
    psi_a, psi_b = _influences(sample, confidence)
    se = math.sqrt(float(np.sum(_unbiased(sample) * (psi_b - psi_a) ** 2)))
    if not se > 0:
        return Resolution(None, None, None, se, POWER, "no MDE: no spread of the paired "
                          "differences (every task agrees)", points)  # fmt: skip
    t = float(scipy_stats.t.ppf(POWER, paired - 1))
    estimate = sample.b.value - sample.a.value
    low, high = interval
    spread = math.sqrt(se * se + (reach_variance(sample, reach) if reach else 0.0))
    mde = (estimate - low if estimate >= 0 else high - estimate) + t * spread
    if delta == 0:
        return Resolution(mde, None, None, se, POWER, "the observed delta is 0", points)
    tasks = max(2, math.ceil(paired * (mde / abs(delta)) ** 2))
    attempts, reason = None, None
    within = _within(sample)
    if within is not None:
        w, k = within
        w = min(w, se * se)  # the within-task part cannot exceed the whole
        # se(k')² = se² − W + W·k/k'; MDE scales with se(k')/se
        target = (abs(delta) / mde * se) ** 2
        room = target - (se * se - w)
        if room <= 0 or w * k / room > MAX_ATTEMPTS:
            reason = "more attempts per task alone cannot resolve it: the tasks differ too much"
        else:
            attempts = max(1, math.ceil(w * k / room))
    return Resolution(mde, tasks, attempts, se, POWER, reason, points)


def _amount(value: float, points: bool) -> str:
    return f"{value * 100:.3g} points" if points else f"{value:.3g}"


def resolution_text(found: Resolution, delta: float, paired: int) -> str:
    """The resolution in words: ``this comparison can detect changes of 6.2 points or more
    (80 % power); the observed +2.1 would need about 480 tasks``."""
    if found.mde is None:
        return found.reason or "no MDE"
    head = (f"this comparison can detect changes of {_amount(found.mde, found.points)} or more "
            f"({found.power:.0%} power, {paired} paired tasks)")  # fmt: skip
    observed = f"the observed {'+' if delta > 0 else '−' if delta < 0 else ''}" + _amount(
        abs(delta), found.points
    ).removesuffix(" points")
    if found.tasks_to_resolve is None:
        return f"{head}; {found.reason}"
    if abs(delta) >= found.mde:
        return f"{head}; {observed} is past it"
    more = f"{observed} would need about {found.tasks_to_resolve} tasks"
    if found.attempts_to_resolve is not None:
        more += f" (or about {found.attempts_to_resolve} attempts per task)"
    elif found.reason:
        more += f" ({found.reason})"
    return f"{head}; {more}"
