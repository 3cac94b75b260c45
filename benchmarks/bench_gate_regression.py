"""How often the gate's ``max_regression`` rule fails a run (issue 42), by seeded simulation.

    .venv/bin/python benchmarks/bench_gate_regression.py [--draws 300] [--seed 42]

The rule fails run B against run A when the series delta B − A (today the mean per-task
difference over the tasks evaluated in both, :func:`inspector.views.gate_facts.paired_delta`)
is below −limit and its 95 % paired interval lies below 0. Each scenario draws pairs of
runs of n tasks from a known population and judges them with :func:`inspector.views.gate.judge`
(the code ``inspector gate`` runs), printing the share of draws that fail, with its exact
binomial 95 % interval:

  no change     both runs: each task correct with its own probability p_i (p_i ~ the task's
                difficulty, A and B independent given it); the true delta is 0, so every
                failure is a false alarm (a one-sided 2.5 % test: at most about 2.5 %
                expected with limit 0, fewer with a positive limit);
  drop          B's probabilities lowered by 0.15 on every task (true delta −0.15 or
                less near 0): how often a real drop beyond the 0.05 limit is caught.

Values near 0 and 1 and small n are included (p near 0.05 / 0.95, n = 10).

Measured (``nice .venv/bin/python benchmarks/bench_gate_regression.py --draws 400``, seed 42):

  no change, n=100, p≈0.5, limit 0       fails  12/400 =  3.00% (95% CI 1.56% to 5.18%)
  no change, n=10, p≈0.5, limit 0        fails  14/400 =  3.50% (95% CI 1.93% to 5.80%)
  no change, n=100, p≈0.05, limit 0      fails   6/400 =  1.50% (95% CI 0.55% to 3.24%)
  no change, n=100, p≈0.95, limit 0      fails  10/400 =  2.50% (95% CI 1.21% to 4.55%)
  no change, n=100, p≈0.5, limit 0.05    fails  11/400 =  2.75% (95% CI 1.38% to 4.87%)
  drop 0.15, n=100, p≈0.5, limit 0.05    fails 229/400 = 57.25% (95% CI 52.24% to 62.15%)
  drop 0.15, n=30, p≈0.5, limit 0.05     fails  77/400 = 19.25% (95% CI 15.50% to 23.46%)
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scipy.stats import binomtest

from inspector.gate_policy import parse_policy
from inspector.views.gate import FAIL, RunFacts, SeriesFacts, judge
from inspector.views.gate_facts import paired_delta

SCENARIOS = [
    # (name, tasks, base probability of the tasks, drop of B, limit)
    ("no change, n=100, p≈0.5, limit 0", 100, 0.5, 0.0, 0.0),
    ("no change, n=10, p≈0.5, limit 0", 10, 0.5, 0.0, 0.0),
    ("no change, n=100, p≈0.05, limit 0", 100, 0.05, 0.0, 0.0),
    ("no change, n=100, p≈0.95, limit 0", 100, 0.95, 0.0, 0.0),
    ("no change, n=100, p≈0.5, limit 0.05", 100, 0.5, 0.0, 0.05),
    ("drop 0.15, n=100, p≈0.5, limit 0.05", 100, 0.5, 0.15, 0.05),
    ("drop 0.15, n=30, p≈0.5, limit 0.05", 30, 0.5, 0.15, 0.05),
]


def _facts(values: list[float]) -> RunFacts:
    series = SeriesFacts(
        "correct.native@1", True, None, {"total": len(values)},
        task_values={f"t{i}": v for i, v in enumerate(values)},
    )  # fmt: skip
    return RunFacts("run", series=(series,))


def failure_share(
    rng: random.Random, draws: int, n: int, base: float, drop: float, limit: float
) -> tuple[int, int]:
    policy = parse_policy(f"max_regression = {limit}", "bench")
    failed = 0
    for _ in range(draws):
        # Each task's own probability around the base (tasks differ in difficulty).
        probabilities = [min(0.99, max(0.01, rng.gauss(base, 0.1))) for _ in range(n)]
        a = [float(rng.random() < p) for p in probabilities]
        b = [float(rng.random() < max(0.0, p - drop)) for p in probabilities]
        gate = judge(_facts(b), policy, _facts(a), paired_delta)
        failed += gate.outcomes[0].status == FAIL
    return failed, draws


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for name, n, base, drop, limit in SCENARIOS:
        failed, draws = failure_share(rng, args.draws, n, base, drop, limit)
        ci = binomtest(failed, draws).proportion_ci(0.95)
        print(
            f"{name:40s} fails {failed:4d}/{draws} = {failed / draws:6.2%} "
            f"(95% CI {ci.low:.2%} to {ci.high:.2%})",
            flush=True,
        )


if __name__ == "__main__":
    main()
