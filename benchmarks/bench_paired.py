"""Coverage of the paired interval of a series delta, and the type-I error of its test
(issue 37 item 3 to issue 38's bar), by seeded simulation.

    nice .venv/bin/python benchmarks/bench_paired.py [--quick] [--draws 400]
        [--null-draws 200] [--resamples 1000] [--seed 37] [--n 5 10 30 100 1000]

(the full grid about 7 minutes on a shared 2-core machine, ``--quick`` — n <= 100, 100
null draws of 500 permutations — about 1 minute). At n = 1000 a permutation test takes
about 0.3 s, so those cells use a fifth of the null draws.

The method under test is :func:`inspector.views.paired.delta_interval` — the one
``inspector diff`` and the compare screen use: MOVER from each side's own calibrated
interval (no resampling), and a paired permutation p-value of the same delta.

Each scenario draws n tasks; task i has a success probability p_i ~ Beta(c·m, c·(1 − m))
(m the level: 0.05, 0.5 or 0.95; c = 4) on side A and q_i = clip(p_i + δ) on side B (δ =
+0.1, or −0.1 at level 0.95); its k attempts per side are independent Bernoulli draws and
its value is their mean (avg@k); each side's task is an error (no value) with chance 0.05.
The series is micro (mean of task values) or category_mean (categories of 4–10 tasks). The
true delta is E[q] − E[p] (computed once per scenario from 10⁶ draws): both the micro and
the category mean of a side are unbiased for its E[·]. Coverage: how often the 95 %
interval holds the true delta. Type-I error: the same scenario with q_i = p_i (true delta
0), how often p ≤ 0.05. Each share is printed with its exact binomial 95 % interval.

Measured (seed 37, the defaults: 400 draws a cell, 200 null draws of 1000 permutations,
40 at n = 1000; 390 s):

  coverage   n = 5: 0.978-1.000 (median width 0.86-1.12);  n = 10: 0.950-1.000;
             n = 30: 0.943-0.988;  n = 100: 0.935-0.978;  n = 1000: 0.938-0.978.
             Min over the 48 cells: 0.978 at n = 5, 0.935 at n >= 10. No interval outside
             [-1, 1], none of zero width.
  type-I     pooled over each n's 12 cells: 0/2400 (n = 5), 0.005 (10), 0.024 (30),
             0.052 (100), 0.046 (1000, 480 draws); the largest cell 0.100 [0.028, 0.237]
             (4 of 40 at n = 1000).
  The jackknife t / BCa bootstrap it replaces covered 0.56-0.605 (k=1 near 0/1, n = 5),
  0.81-0.83 (n = 10) and reached outside [-1, 1].
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


def _categories(n: int, rng: np.random.Generator) -> np.ndarray:
    out: list[int] = []
    g = 0
    while len(out) < n:
        out += [g] * int(rng.integers(4, 11))
        g += 1
    return np.array(out[:n], dtype=np.intp)


def _side(p: np.ndarray, k: int, cats: np.ndarray, aggregation: str,
          rng: np.random.Generator, names: tuple[str, ...]) -> Side:  # fmt: skip
    values = rng.binomial(k, p) / k
    evaluated = (rng.random(len(p)) >= ERROR_RATE).astype(float)
    g = len(names)
    sums = np.bincount(cats, weights=values * evaluated, minlength=g)[None, :]
    counts = np.bincount(cats, weights=evaluated, minlength=g)[None, :]
    value = float(resampled_values(aggregation, sums, counts, names, None)[0])
    present = np.ones(len(p), dtype=bool)
    shape = Shape(1, "binary task values") if k == 1 else Shape(k, f"fractions of {k} attempts")
    return Side(values * evaluated, evaluated, cats, present, aggregation, None, value, shape)


def _true_delta(level: float, shift: float, rng: np.random.Generator) -> float:
    p = rng.beta(CONCENTRATION * level, CONCENTRATION * (1 - level), size=1_000_000)
    return float(np.clip(p + shift, 0, 1).mean() - p.mean())


def scenario(n: int, level: float, aggregation: str, k: int, draws: int, null_draws: int,
             resamples: int, seed: int) -> dict[str, int | float]:  # fmt: skip
    """Coverage and width of the interval over ``draws`` samples with a true delta, and
    the permutation test's rejections over ``null_draws`` samples with none."""
    rng = np.random.default_rng(seed)
    shift = -0.1 if level > 0.5 else 0.1
    truth = _true_delta(level, shift, rng)
    covered = used = zero = outside = rejected = null_used = 0
    widths: list[float] = []
    for i in range(max(draws, null_draws)):
        p = rng.beta(CONCENTRATION * level, CONCENTRATION * (1 - level), size=n)
        cats = _categories(n, rng) if aggregation == CATEGORY_MEAN else np.zeros(n, np.intp)
        names = tuple(str(g) for g in range(int(cats.max()) + 1))
        ids = tuple(str(j) for j in range(n))
        a = _side(p, k, cats, aggregation, rng, names)
        if i < draws:
            b = _side(np.clip(p + shift, 0, 1), k, cats, aggregation, rng, names)
            if not (np.isnan(a.value) or np.isnan(b.value)):
                used += 1
                alt = delta_interval(SeriesSample(ids, names, a, b), test=False)
                covered += alt.low <= truth <= alt.high
                zero += alt.high <= alt.low
                outside += alt.low < -1 or alt.high > 1
                widths.append(alt.high - alt.low)
        if i < null_draws:
            b0 = _side(p, k, cats, aggregation, rng, names)
            if not (np.isnan(a.value) or np.isnan(b0.value)):
                null_used += 1
                null = delta_interval(
                    SeriesSample(ids, names, a, b0),
                    seed=int(rng.integers(2**31)),
                    resamples=resamples,
                )
                rejected += null.p_value <= 0.05
    return {"covered": covered, "used": used, "zero": zero, "outside": outside,
            "width": float(np.median(widths)) if widths else math.nan,
            "rejected": rejected, "null_used": null_used}  # fmt: skip


def _share(x: int, n: int) -> str:
    if not n:
        return "   —"
    ci = stats.binomtest(x, n).proportion_ci(0.95)
    return f"{x / n:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=400, help="samples a cell (coverage)")
    parser.add_argument(
        "--null-draws",
        type=int,
        default=200,
        help="samples a cell with true delta 0 (type-I error)",
    )
    parser.add_argument("--resamples", type=int, default=1000, help="permutations a test")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--n", type=int, nargs="*", default=[5, 10, 30, 100, 1000])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="n 5 10 30 100, 400 draws, 100 null draws of 500 permutations",
    )
    args = parser.parse_args()
    if args.quick:
        args.n, args.draws, args.null_draws, args.resamples = [5, 10, 30, 100], 400, 100, 500
    print(f"draws {args.draws} (null {args.null_draws}), permutations {args.resamples}, "
          f"seed {args.seed}; coverage of the true delta by the 95 % MOVER interval | "
          "type-I error of the permutation test at 0.05 (true delta 0)")  # fmt: skip
    print(f"{'n':>5} {'level':>5} {'series':<13} k  {'coverage':<22} {'width':>6} "
          f"{'type-I':<22} zero-width outside")  # fmt: skip
    start = time.perf_counter()
    worst: dict[bool, float] = {}
    type_i = 0.0
    for n in args.n:
        for aggregation in (MICRO_WEIGHTED, CATEGORY_MEAN):
            for level in (0.05, 0.5, 0.95):
                for k in (1, 3):
                    seed = args.seed * 1_000_003 + n * 101 + int(level * 100) * 7 + k
                    seed += 17 if aggregation == CATEGORY_MEAN else 0
                    null = args.null_draws if n < 1000 else max(1, args.null_draws // 5)
                    r = scenario(n, level, aggregation, k, args.draws, null,
                                 args.resamples, seed)  # fmt: skip
                    used, null_used = int(r["used"]), int(r["null_used"])
                    if used:
                        cov = r["covered"] / used
                        worst[n >= 10] = min(worst.get(n >= 10, 1.0), cov)
                    if null_used:
                        type_i = max(type_i, r["rejected"] / null_used)
                    name = "micro" if aggregation == MICRO_WEIGHTED else "category_mean"
                    print(f"{n:>5} {level:>5} {name:<13} {k}  "
                          f"{_share(int(r['covered']), used):<22} {r['width']:>6.3f} "
                          f"{_share(int(r['rejected']), null_used):<22} "
                          f"{int(r['zero']):>10} {int(r['outside']):>7}", flush=True)  # fmt: skip
    print(
        f"min coverage: n = 5 {worst.get(False, math.nan):.3f}, "
        f"n >= 10 {worst.get(True, math.nan):.3f}; max type-I error {type_i:.3f}"
    )
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
