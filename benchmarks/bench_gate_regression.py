"""How often the gate's ``max_regression`` rule fails a run (issue 42), by seeded simulation.

    .venv/bin/python benchmarks/bench_gate_regression.py [--draws 300] [--seed 42]

The rule fails run B against run A when the series delta B − A is below −limit and its 95 %
paired interval lies below 0. The delta and interval are the comparison model's
(:meth:`inspector.views.compare.Comparison.stats`, what ``inspector diff`` shows:
:func:`inspector.views.paired.paired_stats` on a
:class:`~inspector.views.series_sample.SeriesSample` of both runs' tasks: the MOVER
interval of :mod:`inspector.views.mover`). Each scenario draws pairs of runs of n tasks
from a known population, builds that sample, and judges the answer with
:func:`inspector.views.gate.judge` (the code ``inspector gate`` runs), printing the share
of draws that fail, with its exact binomial 95 % interval:

  no change     both runs: each task correct with its own probability p_i (p_i ~ the task's
                difficulty, A and B independent given it); the true delta is 0, so every
                failure is a false alarm (a one-sided 2.5 % test: at most about 2.5 %
                expected with limit 0, fewer with a positive limit);
  drop          B's probabilities lowered by 0.15 on every task (true delta −0.15 or
                less near 0): how often a real drop beyond the 0.05 limit is caught.

Values near 0 and 1, small n, n = 300 and a category mean (4 categories
of unequal size, 10/20/30/40 % of the tasks) are included.

Measured (``nice .venv/bin/python benchmarks/bench_gate_regression.py --draws 1000``,
seed 42; the rule uses the interval only, and issue 49 changed the p-value (now the
interval's inversion), not the interval, so these figures stand — re-run at the default
300 draws after it: 2.67 / 2.00 / 1.67 / 1.67 / 2.00 / 2.33 / 1.67 % false alarms and 57.3 /
19.0 / 97.0 / 44.3 % caught, each inside the binomial interval of the figure below;
80 s on this machine):

  no change, n=100, p≈0.5, limit 0               fails   25/1000 =  2.50% (95% CI 1.62% to 3.67%)
  no change, n=10, p≈0.5, limit 0                fails   21/1000 =  2.10% (95% CI 1.30% to 3.19%)
  no change, n=100, p≈0.05, limit 0              fails   15/1000 =  1.50% (95% CI 0.84% to 2.46%)
  no change, n=100, p≈0.95, limit 0              fails   22/1000 =  2.20% (95% CI 1.38% to 3.31%)
  no change, n=100, p≈0.5, limit 0.05            fails   22/1000 =  2.20% (95% CI 1.38% to 3.31%)
  no change, n=300, p≈0.5, limit 0               fails   22/1000 =  2.20% (95% CI 1.38% to 3.31%)
  no change, n=100, category mean, limit 0       fails   17/1000 =  1.70% (95% CI 0.99% to 2.71%)
  drop 0.15, n=100, p≈0.5, limit 0.05            fails  560/1000 = 56.00% (95% CI 52.86% to 59.11%)
  drop 0.15, n=30, p≈0.5, limit 0.05             fails  180/1000 = 18.00% (95% CI 15.67% to 20.52%)
  drop 0.15, n=300, p≈0.5, limit 0.05            fails  975/1000 = 97.50% (95% CI 96.33% to 98.38%)
  drop 0.15, n=100, category mean, limit 0.05    fails  458/1000 = 45.80% (95% CI 42.68% to 48.95%)
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from scipy.stats import binomtest

from inspector.engine.report import CATEGORY_MEAN, MICRO_WEIGHTED
from inspector.gate_policy import parse_policy
from inspector.views.gate import FAIL, Regression, RunFacts, SeriesFacts, judge
from inspector.views.paired import SeriesSample, Side, paired_stats
from inspector.views.run_stats import Shape

SERIES = "correct.native@1"
SCENARIOS = [
    # (name, tasks, base probability of the tasks, drop of B, limit, aggregation)
    ("no change, n=100, p≈0.5, limit 0", 100, 0.5, 0.0, 0.0, MICRO_WEIGHTED),
    ("no change, n=10, p≈0.5, limit 0", 10, 0.5, 0.0, 0.0, MICRO_WEIGHTED),
    ("no change, n=100, p≈0.05, limit 0", 100, 0.05, 0.0, 0.0, MICRO_WEIGHTED),
    ("no change, n=100, p≈0.95, limit 0", 100, 0.95, 0.0, 0.0, MICRO_WEIGHTED),
    ("no change, n=100, p≈0.5, limit 0.05", 100, 0.5, 0.0, 0.05, MICRO_WEIGHTED),
    ("no change, n=300, p≈0.5, limit 0", 300, 0.5, 0.0, 0.0, MICRO_WEIGHTED),
    ("no change, n=100, category mean, limit 0", 100, 0.5, 0.0, 0.0, CATEGORY_MEAN),
    ("drop 0.15, n=100, p≈0.5, limit 0.05", 100, 0.5, 0.15, 0.05, MICRO_WEIGHTED),
    ("drop 0.15, n=30, p≈0.5, limit 0.05", 30, 0.5, 0.15, 0.05, MICRO_WEIGHTED),
    ("drop 0.15, n=300, p≈0.5, limit 0.05", 300, 0.5, 0.15, 0.05, MICRO_WEIGHTED),
    ("drop 0.15, n=100, category mean, limit 0.05", 100, 0.5, 0.15, 0.05, CATEGORY_MEAN),
]
BINARY_VALUES = Shape(1, "binary task values")
RUN = RunFacts("run", series=(SeriesFacts(SERIES, True, None, {}),))


def _side(values: list[float], categories: np.ndarray, aggregation: str) -> Side:
    v = np.asarray(values, dtype=np.float64)
    groups = [v[categories == g] for g in range(4) if (categories == g).any()]
    value = float(v.mean()) if aggregation == MICRO_WEIGHTED else float(np.mean([g.mean() for g in groups]))
    return Side(v, np.ones(len(v)), categories, np.ones(len(v), dtype=bool), aggregation, None,
                value, BINARY_VALUES)  # fmt: skip


def paired(a: list[float], b: list[float], aggregation: str) -> dict[str, Regression | str]:
    """The comparison model's analysis of the pair (as ``Comparison.stats`` makes it)."""
    n = len(a)
    categories = np.minimum(np.arange(n) * 10 // n, 9)  # deciles → 4 groups of 1/2/3/4 tenths
    categories = np.searchsorted([1, 3, 6], categories, side="right").astype(np.intp)
    sample = SeriesSample(
        tuple(f"t{i}" for i in range(n)), ("c0", "c1", "c2", "c3"),
        _side(a, categories, aggregation), _side(b, categories, aggregation),
    )  # fmt: skip
    delta = sample.b.value - sample.a.value
    stats = paired_stats(SERIES, list(zip(a, b, strict=True)), one_outcome=True,
                         delta=delta, sample=sample)  # fmt: skip
    ci = stats.interval
    if ci is None:  # not earned (the gate skips the rule, saying why)
        return {SERIES: stats.no_interval or "no interval"}
    return {SERIES: Regression(delta, ci.low, ci.high, n, SERIES)}


def failure_share(
    rng: random.Random, draws: int, n: int, base: float, drop: float, limit: float,
    aggregation: str,
) -> tuple[int, int]:
    policy = parse_policy(f"max_regression = {limit}", "bench")
    failed = 0
    for _ in range(draws):
        # Each task's own probability around the base (tasks differ in difficulty).
        probabilities = [min(0.99, max(0.01, rng.gauss(base, 0.1))) for _ in range(n)]
        a = [float(rng.random() < p) for p in probabilities]
        b = [float(rng.random() < max(0.0, p - drop)) for p in probabilities]
        gate = judge(RUN, policy, RUN, paired(a, b, aggregation))
        failed += gate.outcomes[0].status == FAIL
    return failed, draws


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for name, n, base, drop, limit, aggregation in SCENARIOS:
        failed, draws = failure_share(
            rng, args.draws, n, base, drop, limit, aggregation
        )
        ci = binomtest(failed, draws).proportion_ci(0.95)
        print(
            f"{name:46s} fails {failed:4d}/{draws} = {failed / draws:6.2%} "
            f"(95% CI {ci.low:.2%} to {ci.high:.2%})",
            flush=True,
        )


if __name__ == "__main__":
    main()
