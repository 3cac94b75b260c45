"""Coverage of the paired interval of a series delta, and the type-I error of its test
(issue 37 item 3 to issue 38's bar), by seeded simulation.

    nice .venv/bin/python benchmarks/bench_paired.py [--quick] [--draws 400]
        [--null-draws 200] [--seed 37] [--n 2 3 5 10 30 100 1000]

(``--quick`` — n <= 100, 200 draws, 100 null draws — about a minute; the n = 1000 cells
use a fifth of the null draws: each p-value is a bisection of about 30 intervals).

The method under test is :func:`inspector.views.paired.delta_interval` — the one
``inspector diff`` and the compare screen use: MOVER from each side's own calibrated
interval (no resampling), and the p-value that inverts it.

Each scenario draws n tasks; task i has a success probability p_i ~ Beta(c·m, c·(1 − m))
(m the level: 0.05, 0.5 or 0.95; c = 4) on side A and q_i = clip(p_i + δ) on side B (δ =
+0.1, or −0.1 at level 0.95); its k attempts per side are independent Bernoulli draws and
its value is their mean (avg@k); each side's task is an error (no value) with chance 0.05.
The series is micro (mean of task values) or category_mean (categories of 4–10 tasks). The
true delta is E[q] − E[p] (computed once per scenario from 10⁶ draws): both the micro and
the category mean of a side are unbiased for its E[·]. Coverage: how often the 95 %
interval holds the true delta. Type-I error: the same scenario with q_i = p_i (true delta
0), how often p ≤ 0.05. Each share is printed with its exact binomial 95 % interval.

Issue 49: the p-value is the interval's inversion (so the type-I error is the share of
null draws whose interval excludes 0, and "disagree" — interval excluding 0 but p > 0.05,
or the reverse — must be 0); a cell with fewer than 2 paired tasks gets no interval
("none"); k = 0 cells are a latency-like scalar (seconds: a task's typical latency
~ Gamma(4, 0.5 s), each value times LogNormal(0, 0.3), B 0.2 s slower; Student t sides).

Measured (``nice .venv/bin/python benchmarks/bench_paired.py --quick``, seed 37; 84 cells,
200 draws a cell, 100 null draws; 64 s):

  coverage   n = 2: 0.994-1.000;  n = 3: 0.990-1.000;  n = 5: 0.985-1.000;
             n = 10: 0.960-1.000;  n = 30: 0.945-0.990;  n = 100: 0.940-0.980
             (the scalar cells 0.940-1.000). None of zero width, none outside [-1, 1]
             for a binary metric.
  type-I     pooled over each n's 14 cells: 0.001 (n = 2), 0.002 (3), 0.004 (5),
             0.013 (10), 0.023 (30), 0.038 (100); the largest cell 0.070 [0.029, 0.139].
  verdicts   0 disagreements between the interval and the p-value (before: the
             permutation p-value disagreed with the interval in ~5 % of pairs).
  none       at n = 2, 29-41 of 200 draws a cell (5 % errors a side: fewer than 2 tasks
             evaluated on both sides).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inspector.engine.aggregation import resampled_values
from inspector.engine.report import CATEGORY_MEAN, MICRO_WEIGHTED
from inspector.views.paired import SeriesSample, Side, delta_interval
from inspector.views.run_stats import Shape

CONCENTRATION = 4.0
ERROR_RATE = 0.05
LATENCY = (4.0, 0.5)  # a task's typical latency ~ Gamma(shape 4, scale 0.5 s): mean 2 s
NOISE = 0.3  # an attempt's latency: the task's times LogNormal(0, 0.3)
LATENCY_SHIFT = 0.2  # B is 0.2 s slower on every task
CELLS = [(level, k) for level in (0.05, 0.5, 0.95) for k in (1, 3)] + [(0.0, 0)]
"""(level, k) of each cell; k = 0: the latency-like scalar (level unused)."""


def _categories(n: int, rng: np.random.Generator) -> np.ndarray:
    out: list[int] = []
    g = 0
    while len(out) < n:
        out += [g] * int(rng.integers(4, 11))
        g += 1
    return np.array(out[:n], dtype=np.intp)


def _side(p: np.ndarray, k: int, cats: np.ndarray, aggregation: str,
          rng: np.random.Generator, names: tuple[str, ...]) -> Side:  # fmt: skip
    if k == 0:  # a latency-like scalar: seconds, skewed, unbounded
        values = p * rng.lognormal(0.0, NOISE, len(p))
    else:
        values = rng.binomial(k, p) / k
    evaluated = (rng.random(len(p)) >= ERROR_RATE).astype(float)
    g = len(names)
    sums = np.bincount(cats, weights=values * evaluated, minlength=g)[None, :]
    counts = np.bincount(cats, weights=evaluated, minlength=g)[None, :]
    value = float(resampled_values(aggregation, sums, counts, names, None)[0])
    present = np.ones(len(p), dtype=bool)
    shape = Shape(1, "binary task values") if k == 1 else Shape(k, f"fractions of {k} attempts")
    shape = Shape(None, "scalar task values") if k == 0 else shape
    return Side(values * evaluated, evaluated, cats, present, aggregation, None, value, shape)


def _true_delta(level: float, shift: float, rng: np.random.Generator) -> float:
    p = rng.beta(CONCENTRATION * level, CONCENTRATION * (1 - level), size=1_000_000)
    return float(np.clip(p + shift, 0, 1).mean() - p.mean())


def scenario(n: int, level: float, aggregation: str, k: int, draws: int, null_draws: int,
             seed: int) -> dict[str, int | float]:  # fmt: skip
    """Coverage and width of the interval over ``draws`` samples with a true delta; over
    ``null_draws`` samples with none, how often the interval excludes 0 and how often that
    verdict and ``p ≤ 0.05`` disagree (the p-value inverts the interval: never)."""
    rng = np.random.default_rng(seed)
    shift = -0.1 if level > 0.5 else 0.1
    truth = _true_delta(level, shift, rng) if k else LATENCY_SHIFT * math.exp(NOISE**2 / 2)
    covered = used = zero = outside = rejected = null_used = disagree = none = 0
    widths: list[float] = []
    for i in range(max(draws, null_draws)):
        if k:
            p = rng.beta(CONCENTRATION * level, CONCENTRATION * (1 - level), size=n)
        else:
            p = rng.gamma(*LATENCY, size=n)
        cats = _categories(n, rng) if aggregation == CATEGORY_MEAN else np.zeros(n, np.intp)
        names = tuple(str(g) for g in range(int(cats.max()) + 1))
        ids = tuple(str(j) for j in range(n))
        a = _side(p, k, cats, aggregation, rng, names)
        if i < draws:
            shifted = np.clip(p + shift, 0, 1) if k else p + LATENCY_SHIFT
            b = _side(shifted, k, cats, aggregation, rng, names)
            if not (np.isnan(a.value) or np.isnan(b.value)):
                alt = delta_interval(SeriesSample(ids, names, a, b), test=False)
                if isinstance(alt, str):
                    none += 1  # no interval earned (fewer than 2 paired tasks, ...)
                else:
                    used += 1
                    covered += alt.low <= truth <= alt.high
                    zero += alt.high <= alt.low
                    outside += k > 0 and (alt.low < -1 or alt.high > 1)
                    widths.append(alt.high - alt.low)
        if i < null_draws:
            b0 = _side(p, k, cats, aggregation, rng, names)
            if not (np.isnan(a.value) or np.isnan(b0.value)):
                null = delta_interval(SeriesSample(ids, names, a, b0))
                if not isinstance(null, str):
                    null_used += 1
                    excludes = null.low > 0 or null.high < 0
                    rejected += excludes
                    disagree += excludes != (null.p_value <= 0.05)
    return {"covered": covered, "used": used, "zero": zero, "outside": outside,
            "width": float(np.median(widths)) if widths else math.nan, "none": none,
            "rejected": rejected, "null_used": null_used, "disagree": disagree}  # fmt: skip


def _share(x: int, n: int) -> str:
    if not n:
        return "   —"
    ci = stats.binomtest(x, n).proportion_ci(0.95)
    return f"{x / n:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=400, help="samples a cell (coverage)")
    parser.add_argument("--null-draws", type=int, default=200,
                        help="samples a cell with true delta 0 (type-I error)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--n", type=int, nargs="*", default=[2, 3, 5, 10, 30, 100, 1000])
    parser.add_argument("--quick", action="store_true",
                        help="n 2 3 5 10 30 100, 200 draws, 100 null draws")  # fmt: skip
    args = parser.parse_args()
    if args.quick:
        args.n, args.draws, args.null_draws = [2, 3, 5, 10, 30, 100], 200, 100
    print(f"draws {args.draws} (null {args.null_draws}), seed {args.seed}; coverage of the "
          "true delta by the 95 % MOVER interval | type-I error (true delta 0: the interval "
          "excludes 0, i.e. p ≤ 0.05, the p-value inverting the interval)")  # fmt: skip
    print(f"{'n':>5} {'level':>5} {'series':<15} k  {'coverage':<22} {'width':>6} "
          f"{'type-I':<22} none zero outside disagree")  # fmt: skip
    start = time.perf_counter()
    worst: dict[bool, float] = {}
    type_i = 0.0
    disagreements = 0
    pooled: dict[int, list[int]] = {}
    for n in args.n:
        for aggregation in (MICRO_WEIGHTED, CATEGORY_MEAN):
            for level, k in CELLS:
                seed = args.seed * 1_000_003 + n * 101 + int(level * 100) * 7 + k
                seed += 17 if aggregation == CATEGORY_MEAN else 0
                null = args.null_draws if n < 1000 else max(1, args.null_draws // 5)
                r = scenario(n, level, aggregation, k, args.draws, null, seed)
                used, null_used = int(r["used"]), int(r["null_used"])
                if used:
                    cov = r["covered"] / used
                    worst[n >= 10] = min(worst.get(n >= 10, 1.0), cov)
                if null_used:
                    type_i = max(type_i, r["rejected"] / null_used)
                disagreements += int(r["disagree"])
                cell = pooled.setdefault(n, [0, 0])
                cell[0], cell[1] = cell[0] + int(r["rejected"]), cell[1] + null_used
                name = "micro" if aggregation == MICRO_WEIGHTED else "category_mean"
                name += "" if k else " s"
                print(f"{n:>5} {level:>5} {name:<15} {k}  "
                      f"{_share(int(r['covered']), used):<22} {r['width']:>6.3f} "
                      f"{_share(int(r['rejected']), null_used):<22} {int(r['none']):>4} "
                      f"{int(r['zero']):>4} {int(r['outside']):>7} "
                      f"{int(r['disagree']):>8}", flush=True)  # fmt: skip
    print(
        f"min coverage: n < 10 {worst.get(False, math.nan):.3f}, "
        f"n >= 10 {worst.get(True, math.nan):.3f}; max type-I error {type_i:.3f}; "
        f"interval/p-value disagreements {disagreements}"
    )
    print("type-I error pooled over each n's cells: " + ", ".join(
        f"n = {n}: {_share(x, m)}" for n, (x, m) in pooled.items()))  # fmt: skip
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
