"""How often the gate's ``max_regression`` rule says PASS, FAIL and INCONCLUSIVE (issues 42
and 51), by seeded simulation.

    .venv/bin/python benchmarks/bench_gate_regression.py [--draws 300] [--seed 42]

The rule judges the 95 % paired interval [low, high] of the series delta B − A against −limit
(issue 51): PASS when low ≥ −limit, FAIL when high < −limit, else INCONCLUSIVE (also when there
is no interval). The delta and interval are the comparison model's
(:meth:`inspector.views.compare.Comparison.stats`, what ``inspector diff`` shows:
:func:`inspector.views.paired.paired_stats` on a
:class:`~inspector.views.series_sample.SeriesSample` of both runs' tasks: the MOVER
interval of :mod:`inspector.views.mover`). Each scenario draws pairs of runs of n tasks
from a known population, builds that sample, and judges the answer with
:func:`inspector.views.gate.judge` (the code ``inspector gate`` runs), printing the share
of draws with each verdict, each with its exact binomial 95 % interval. The estimand is the
population series delta; the claims checked:

  FAIL when the true delta is at or above −limit (no change; a drop of exactly the limit)
  is a false alarm: at most about 2.5 % (one side of a 95 % interval);
  PASS when the true delta is below −limit (a drop of 0.15 past a 0.05 limit) is a missed
  regression: at most about 2.5 %;
  the rest is INCONCLUSIVE: how often the runs are too small to tell.

  no change     both runs: each task correct with its own probability p_i (p_i ~ the task's
                difficulty, A and B independent given it); the true delta is 0;
  drop d        B's probabilities lowered by d on every task (true delta −d, a little less
                near 0).

Values near 0 and 1, small n, n = 300 / 1000 and a category mean (4 categories of unequal
size, 10/20/30/40 % of the tasks) are included. Before issue 51 the rule failed when the
delta was below −limit and its interval below 0: at limit 0 that is exactly today's FAIL (the
figures below at limit 0 are the old rule's), at a limit above 0 the old rule failed more
often (today's FAIL or INCONCLUSIVE).

Measured (``nice .venv/bin/python benchmarks/bench_gate_regression.py --draws 1000``,
seed 42; each share with its exact binomial 95 % interval; about 7 minutes on this machine):

  no change, n=100, p≈0.5, limit 0             pass   2.6% (1.7%–3.8%)  fail   2.5% (1.6%–3.7%)  inconclusive  94.9% (93.3%–96.2%)
  no change, n=10, p≈0.5, limit 0              pass   2.3% (1.5%–3.4%)  fail   2.1% (1.3%–3.2%)  inconclusive  95.6% (94.1%–96.8%)
  no change, n=100, p≈0.05, limit 0            pass   1.4% (0.8%–2.3%)  fail   1.5% (0.8%–2.5%)  inconclusive  97.1% (95.9%–98.0%)
  no change, n=100, p≈0.95, limit 0            pass   2.0% (1.2%–3.1%)  fail   2.2% (1.4%–3.3%)  inconclusive  95.8% (94.4%–97.0%)
  no change, n=100, p≈0.5, limit 0.05          pass   8.9% (7.2%–10.8%)  fail   0.1% (0.0%–0.6%)  inconclusive  91.0% (89.1%–92.7%)
  no change, n=300, p≈0.5, limit 0.05          pass  22.7% (20.1%–25.4%)  fail   0.1% (0.0%–0.6%)  inconclusive  77.2% (74.5%–79.8%)
  no change, n=1000, p≈0.5, limit 0.05         pass  63.1% (60.0%–66.1%)  fail   0.0% (0.0%–0.4%)  inconclusive  36.9% (33.9%–40.0%)
  no change, n=300, p≈0.5, limit 0             pass   2.2% (1.4%–3.3%)  fail   2.2% (1.4%–3.3%)  inconclusive  95.6% (94.1%–96.8%)
  no change, n=100, category mean, limit 0     pass   2.8% (1.9%–4.0%)  fail   2.5% (1.6%–3.7%)  inconclusive  94.7% (93.1%–96.0%)
  drop 0.05, n=300, p≈0.5, limit 0.05          pass   2.6% (1.7%–3.8%)  fail   2.1% (1.3%–3.2%)  inconclusive  95.3% (93.8%–96.5%)
  drop 0.15, n=100, p≈0.5, limit 0.05          pass   0.1% (0.0%–0.6%)  fail  27.2% (24.5%–30.1%)  inconclusive  72.7% (69.8%–75.4%)
  drop 0.15, n=30, p≈0.5, limit 0.05           pass   0.2% (0.0%–0.7%)  fail   8.6% (6.9%–10.5%)  inconclusive  91.2% (89.3%–92.9%)
  drop 0.15, n=300, p≈0.5, limit 0.05          pass   0.0% (0.0%–0.4%)  fail  68.7% (65.7%–71.6%)  inconclusive  31.3% (28.4%–34.3%)
  drop 0.15, n=100, category mean, limit 0.05  pass   0.0% (0.0%–0.4%)  fail  21.9% (19.4%–24.6%)  inconclusive  78.1% (75.4%–80.6%)

FAIL at no change or at a drop of exactly the limit: 0.0–2.5 % (at most the 2.5 % of a
one-sided test); PASS at a true drop of 0.15 past a 0.05 limit: 0.0–0.2 %. A true drop of
0.15 is FAIL 27.2 % of the time at n = 100 (the old rule failed it 56.0 %: the rest is now
INCONCLUSIVE, a failure under ``inconclusive = "fail"``), 8.6 % at n = 30 and 68.7 % at
n = 300; no change at a 0.05 limit is PASS 8.9 % / 22.7 % / 63.1 % at n = 100 / 300 / 1000
(two independent runs of 100 tasks cannot tell a change of 0.05).
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
from inspector.views.gate import FAIL, PASS, Regression, RunFacts, SeriesFacts, judge
from inspector.views.gate_verdict import INCONCLUSIVE
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
    ("no change, n=300, p≈0.5, limit 0.05", 300, 0.5, 0.0, 0.05, MICRO_WEIGHTED),
    ("no change, n=1000, p≈0.5, limit 0.05", 1000, 0.5, 0.0, 0.05, MICRO_WEIGHTED),
    ("no change, n=300, p≈0.5, limit 0", 300, 0.5, 0.0, 0.0, MICRO_WEIGHTED),
    ("no change, n=100, category mean, limit 0", 100, 0.5, 0.0, 0.0, CATEGORY_MEAN),
    ("drop 0.05, n=300, p≈0.5, limit 0.05", 300, 0.5, 0.05, 0.05, MICRO_WEIGHTED),
    ("drop 0.15, n=100, p≈0.5, limit 0.05", 100, 0.5, 0.15, 0.05, MICRO_WEIGHTED),
    ("drop 0.15, n=30, p≈0.5, limit 0.05", 30, 0.5, 0.15, 0.05, MICRO_WEIGHTED),
    ("drop 0.15, n=300, p≈0.5, limit 0.05", 300, 0.5, 0.15, 0.05, MICRO_WEIGHTED),
    ("drop 0.15, n=100, category mean, limit 0.05", 100, 0.5, 0.15, 0.05, CATEGORY_MEAN),
]
VERDICTS = (PASS, FAIL, INCONCLUSIVE)
BINARY_VALUES = Shape(1, "binary task values")
RUN = RunFacts("run", series=(SeriesFacts(SERIES, True, None, {}),))


def _side(values: list[float], categories: np.ndarray, aggregation: str) -> Side:
    v = np.asarray(values, dtype=np.float64)
    groups = [v[categories == g] for g in range(4) if (categories == g).any()]
    value = (
        float(v.mean())
        if aggregation == MICRO_WEIGHTED
        else float(np.mean([g.mean() for g in groups]))
    )
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
    if ci is None:  # not earned: INCONCLUSIVE, saying why
        return {SERIES: Regression(delta, None, None, n, SERIES, stats.no_interval or "")}
    return {SERIES: Regression(delta, ci.low, ci.high, n, SERIES)}


def verdict_counts(
    rng: random.Random,
    draws: int,
    n: int,
    base: float,
    drop: float,
    limit: float,
    aggregation: str,
) -> dict[str, int]:
    """How many of ``draws`` pairs of runs get each verdict."""
    policy = parse_policy(f"max_regression = {limit}", "bench")
    found = dict.fromkeys(VERDICTS, 0)
    for _ in range(draws):
        # Each task's own probability around the base (tasks differ in difficulty).
        probabilities = [min(0.99, max(0.01, rng.gauss(base, 0.1))) for _ in range(n)]
        a = [float(rng.random() < p) for p in probabilities]
        b = [float(rng.random() < max(0.0, p - drop)) for p in probabilities]
        gate = judge(RUN, policy, RUN, paired(a, b, aggregation))
        verdict = gate.outcomes[0].verdict
        assert verdict in found, gate.outcomes[0]
        found[verdict] += 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for name, n, base, drop, limit, aggregation in SCENARIOS:
        found = verdict_counts(rng, args.draws, n, base, drop, limit, aggregation)
        shares = []
        for verdict in VERDICTS:
            ci = binomtest(found[verdict], args.draws).proportion_ci(0.95)
            share = found[verdict] / args.draws
            shares.append(f"{verdict} {share:6.1%} ({ci.low:.1%}–{ci.high:.1%})")
        print(f"{name:44s} " + "  ".join(shares), flush=True)


if __name__ == "__main__":
    main()
