"""The coverage grid of issue 38, run by ``bench_coverage.py --grid``.

For k ∈ {1, 3}, n ∈ {5, 10, 30, 100, 1000} tasks and a true value p ∈ {0.02, 0.1, 0.5,
0.9, 0.98}, for a ``micro_weighted`` mean and a ``category_mean`` (categories of 4–10 tasks),
it draws task values from a known population and computes the 95 % interval with the very
functions ``inspector stats`` uses for a series of a binary metric
(:func:`inspector.views.run_stats.mean_of_values` / ``combined_interval`` with the
:class:`~inspector.views.run_stats.Shape` of such a series). Populations:

- micro, k = 1: each task passes with probability p (truth p). Coverage is *exact* here: the
  interval of every count x = 0..n, weighted by its binomial probability (no Monte Carlo).
- micro, k = 3: a task's success probability θ ~ Beta(2p, 2(1 − p)) (mean p, intra-task
  correlation 1/3), its three attempts independent given θ; task value = passes / 3.
- category_mean: category sizes drawn uniformly from 4..10 (the last takes the rest; n = 5 is
  one category); a category's probability p_g ~ Beta(20p, 20(1 − p)); within it tasks as in
  micro with p_g. The truth is the mean of the drawn p_g (the estimand of a category mean:
  these categories' populations).

Per cell: coverage, its Monte-Carlo standard error √(c(1 − c)/draws), the median width, the
median normal-approximation width 2·z·se (se the sample standard error; where se = 0 that
width is 0), the median Clopper–Pearson width (k = 1 micro), and counts of intervals outside
[0, 1] and of zero width.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Iterator
from dataclasses import dataclass

from inspector.views.run_stats import Shape, combined_interval, mean_of_values
from inspector.views.stats import Interval

KS = (1, 3)
NS = (5, 10, 30, 100, 1000)
PS = (0.02, 0.1, 0.5, 0.9, 0.98)
Z = 1.959963984540054


def shape(k: int) -> Shape:
    if k == 1:
        return Shape(1, "binary task values")
    return Shape(k, f"fractions of {k} attempts; the task is the cluster")


def _beta(rng: random.Random, mean: float, strength: float) -> float:
    return rng.betavariate(mean * strength, (1 - mean) * strength)


def _task_value(rng: random.Random, p: float, k: int) -> float:
    if k == 1:
        return float(rng.random() < p)
    theta = _beta(rng, p, 2.0)
    return sum(rng.random() < theta for _ in range(k)) / k


def _sizes(rng: random.Random, n: int) -> list[int]:
    sizes: list[int] = []
    left = n
    while left > 10:
        size = rng.randint(4, 10)
        if left - size < 4:
            size = left - 4
        sizes.append(size)
        left -= size
    return [*sizes, left]


def draw_micro(rng: random.Random, k: int, n: int, p: float) -> tuple[Interval, float]:
    values = [_task_value(rng, p, k) for _ in range(n)]
    return mean_of_values(values, math.fsum(values) / n, 0.95, shape(k)), p


def draw_category_mean(rng: random.Random, k: int, n: int, p: float) -> tuple[Interval, float]:
    groups: dict[str, list[float]] = {}
    truths = []
    for g, size in enumerate(_sizes(rng, n)):
        p_g = _beta(rng, p, 20.0)
        truths.append(p_g)
        groups[f"c{g}"] = [_task_value(rng, p_g, k) for _ in range(size)]
    weights = {key: 1 / len(groups) for key in groups}
    estimate = math.fsum(math.fsum(vs) / len(vs) for vs in groups.values()) / len(groups)
    what = "mean of category means"
    interval = combined_interval(weights, groups, estimate, 0.95, what, shape(k))
    return interval, math.fsum(truths) / len(truths)


@dataclass(frozen=True)
class Cell:
    k: int
    n: int
    p: float
    kind: str
    draws: int
    coverage: float
    mc_se: float
    median_width: float
    median_normal: float
    median_cp: float | None
    outside: int
    zero_width: int


def _exact_micro_k1(n: int, p: float) -> Cell:
    """Coverage of the k = 1 micro interval summed over every count (exact)."""
    from scipy import stats

    covered = 0.0
    widths, normals, cps = [], [], []
    outside = zero = 0
    pmf = stats.binom(n, p)
    weights = []
    for x in range(n + 1):
        w = float(pmf.pmf(x))
        values = [1.0] * x + [0.0] * (n - x)
        iv = mean_of_values(values, x / n, 0.95, shape(1))
        assert iv.ci_low is not None and iv.ci_high is not None
        covered += w * (iv.ci_low <= p <= iv.ci_high)
        outside += iv.ci_low < 0 or iv.ci_high > 1
        zero += iv.ci_high <= iv.ci_low
        cp = stats.binomtest(x, n).proportion_ci(0.95, method="exact")
        weights.append(w)
        widths.append(iv.ci_high - iv.ci_low)
        normals.append(2 * Z * (iv.se or 0.0))
        cps.append(cp.high - cp.low)

    def weighted_median(xs: list[float]) -> float:
        total = 0.0
        for value, w in sorted(zip(xs, weights, strict=True)):
            total += w
            if total >= 0.5:
                return value
        return xs[-1]

    return Cell(1, n, p, "micro", n + 1, covered, 0.0, weighted_median(widths),
                weighted_median(normals), weighted_median(cps), outside, zero)  # fmt: skip


def run_cell(k: int, n: int, p: float, kind: str, draws: int, seed: int) -> Cell:
    if k == 1 and kind == "micro":
        return _exact_micro_k1(n, p)
    rng = random.Random(f"{seed}:{k}:{n}:{p}:{kind}")
    draw = draw_micro if kind == "micro" else draw_category_mean
    covered = outside = zero = 0
    widths, normals = [], []
    for _ in range(draws):
        iv, truth = draw(rng, k, n, p)
        assert iv.ci_low is not None and iv.ci_high is not None, iv.method
        covered += iv.ci_low <= truth <= iv.ci_high
        outside += iv.ci_low < 0 or iv.ci_high > 1
        zero += iv.ci_high <= iv.ci_low
        widths.append(iv.ci_high - iv.ci_low)
        normals.append(2 * Z * (iv.se or 0.0))
    c = covered / draws
    return Cell(k, n, p, kind, draws, c, math.sqrt(c * (1 - c) / draws),
                statistics.median(widths), statistics.median(normals), None, outside,
                zero)  # fmt: skip


def grid(draws: int, seed: int, big_draws: int) -> Iterator[Cell]:
    for kind in ("micro", "category_mean"):
        for k in KS:
            for n in NS:
                for p in PS:
                    yield run_cell(k, n, p, kind, big_draws if n >= 1000 else draws, seed)


def row(cell: Cell) -> str:
    cp = "" if cell.median_cp is None else f"{cell.median_cp:8.4f}"
    mc = "exact" if cell.mc_se == 0 else f"±{cell.mc_se:.3f}"
    return (
        f"{cell.kind:13s} k={cell.k} n={cell.n:<5d} p={cell.p:<5} cover {cell.coverage:.3f} "
        f"({mc:6s}) width {cell.median_width:.4f} normal {cell.median_normal:.4f} "
        f"CP {cp:8s} outside {cell.outside} zero {cell.zero_width} draws {cell.draws}"
    )
