"""The MOVER interval of a series delta B − A from each side's own calibrated interval.

Pure (no textual, no rich, no I/O). Used by :func:`inspector.views.paired.delta_interval`.

MOVER ("method of variance estimates recovery": Newcombe 1998, method 10; Zou & Donner
2008) builds the interval of a difference d = p_B − p_A from each side's own interval
[l, u] around its estimate p, and the correlation r of the two estimates:

    L = d − √((p_B − l_B)² + (u_A − p_A)² − 2r·(p_B − l_B)(u_A − p_A))
    U = d + √((u_B − p_B)² + (p_A − l_A)² − 2r·(u_B − p_B)(p_A − l_A))

Each side's interval is the one ``inspector stats`` prints for the series
(:mod:`inspector.views.run_stats`: Clopper–Pearson at an effective n for a binary metric,
Student t for a scalar), computed on exactly that side's evaluated tasks of the sample. ``r``
is the correlation of the two estimates' influence values over the task ids: a task's
influence on a side is ``a_g/n_g · (x − m_g)`` (a_g the weight of its category's mean in
the series value, n_g and m_g that category's evaluated tasks and mean; 0 where the task is
not evaluated on that side), so for binary k=1 micro series r is the phi coefficient of
the 2×2 table. It is shrunk by (n − 1)/n (n the tasks evaluated on both sides), which
keeps the interval from having zero width where the sides agree on every task, and is 0
where undefined. The bounds are clipped to the feasible range (for values in [0, 1]:
[−1, 1]). No resampling: O(tasks) arithmetic and four Beta quantiles.
Coverage is measured by ``benchmarks/bench_paired.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from inspector.engine.aggregation import resampled_values
from inspector.engine.hierarchy import HierarchyNode
from inspector.engine.report import MICRO_WEIGHTED
from inspector.views.run_stats import Shape, combined_interval, mean_of_values
from inspector.views.stats import Interval

__all__ = ["mover_bounds", "side_interval"]


def _weights(
    aggregation: str, counts: NDArray[np.float64], names: Sequence[str], root: HierarchyNode | None
) -> NDArray[np.float64]:
    """a_g: the series value is Σ a_g·m_g over the categories' means m_g, for these counts
    (the engine's re-normalisation included): the value at m = e_g for each g."""
    g = len(names)
    unit = np.eye(g) * counts[None, :]
    out = resampled_values(aggregation, unit, np.broadcast_to(counts, (g, g)).copy(),
                           names, root)  # fmt: skip
    return np.where(np.isnan(out), 0.0, out)


def side_interval(
    values: NDArray[np.float64],
    evaluated: NDArray[np.bool_],
    categories: NDArray[np.intp],
    names: Sequence[str],
    aggregation: str,
    root: HierarchyNode | None,
    estimate: float,
    shape: Shape,
    confidence: float,
) -> tuple[Interval, NDArray[np.float64], bool]:
    """One side's interval of its series value on the given tasks (as ``inspector stats``
    computes it), each task's influence value on it (0 where not evaluated) and whether
    the metric's task values lie in [0, 1] (then so does the series value)."""
    g = len(names)
    cats = categories[evaluated]
    x = values[evaluated]
    counts = np.bincount(cats, minlength=g).astype(np.float64)
    sums = np.bincount(cats, weights=x, minlength=g)
    means = np.divide(sums, counts, out=np.zeros(g), where=counts > 0)
    a = _weights(aggregation, counts, names, root)
    influence = np.zeros(len(values))
    influence[evaluated] = (a[cats] / counts[cats]) * (x - means[cats])
    if aggregation == MICRO_WEIGHTED:
        interval = mean_of_values([float(v) for v in x], estimate, confidence, shape)
    else:
        groups: dict[str, list[float]] = {}
        for c, v in zip(cats.tolist(), x.tolist(), strict=True):
            groups.setdefault(names[c], []).append(v)
        weights = {names[i]: float(a[i]) for i in range(g) if counts[i] > 0}
        what = "Σ w·category mean" if root is not None else "mean of category means"
        interval = combined_interval(weights, groups, estimate, confidence, what, shape)
    return interval, influence, shape.attempts is not None


def correlation(
    influence_a: NDArray[np.float64], influence_b: NDArray[np.float64], both: int
) -> float:
    """The correlation of the two estimates from their influence values, shrunk by
    (both − 1)/both; 0 where undefined."""
    sa, sb = float(influence_a @ influence_a), float(influence_b @ influence_b)
    if both < 2 or sa <= 0 or sb <= 0:
        return 0.0
    r = float(influence_a @ influence_b) / math.sqrt(sa * sb)
    return max(-1.0, min(1.0, r)) * (both - 1) / both


def mover_bounds(
    a: Interval, b: Interval, r: float, feasible: tuple[float, float]
) -> tuple[float, float] | None:
    """MOVER bounds of B − A from the sides' intervals (None: a side has no interval)."""
    if a.estimate is None or b.estimate is None:
        return None
    if None in (a.ci_low, a.ci_high, b.ci_low, b.ci_high):
        return None
    assert (
        a.ci_low is not None
        and a.ci_high is not None
        and b.ci_low is not None
        and b.ci_high is not None
    )
    d = b.estimate - a.estimate
    bl, bu = b.estimate - b.ci_low, b.ci_high - b.estimate
    al, au = a.estimate - a.ci_low, a.ci_high - a.estimate
    low = d - math.sqrt(max(0.0, bl * bl + au * au - 2 * r * bl * au))
    high = d + math.sqrt(max(0.0, bu * bu + al * al - 2 * r * bu * al))
    return max(feasible[0], low), min(feasible[1], high)
