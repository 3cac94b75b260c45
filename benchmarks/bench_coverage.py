"""Coverage of the intervals of ``inspector stats`` (issue 15), by seeded simulation.

    .venv/bin/python benchmarks/bench_coverage.py [--draws 2000] [--seed 15]
    .venv/bin/python benchmarks/bench_coverage.py --grid [--draws 2000] [--big-draws 400]
    .venv/bin/python benchmarks/bench_coverage.py --cells [--draws 1000] [--random 20] [--seed 15]

``--grid`` runs the grid of issue 38 (k × n × true value × micro / category_mean; see
``benchmarks/coverage_grid.py``) and prints coverage, its Monte-Carlo error and median widths.
``--cells`` runs the cells of issue 49 (unequal categories, skewed scalars, a latency; see
``benchmarks/coverage_cells.py``) and ``--random`` more cells chosen by ``--seed``.

Each scenario draws a run from a known population many times, scores it with the engine
(``recompute``) and computes the series interval with :func:`inspector.views.run_stats.series_stats`
(the same code path as ``inspector stats``); it prints how often the 95 % interval covers
the population's true value, with the exact binomial 95 % interval of that share.

  bernoulli     k=1, 100 tasks, each correct with probability 0.3 (true mean 0.3);
  clustered     k=3 avg, 60 tasks; a task's success probability is 0.1, 0.5 or 0.9 with
                equal chance, its three attempts independent given it (true mean 0.5);
  category_mean k=1, categories with p = 0.2 / 0.5 / 0.8 and 30 / 40 / 50 tasks, scored as
                category_mean (true value 0.5).

The figures go in the issue notes; nothing here is asserted inside the fast test suite
(``tests/audit/test_coverage.py`` runs the first scenario, marked ``slow``).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from inspector.engine.contract import make_metric_contract
from inspector.engine.model import Attempt, TaskRecord
from inspector.engine.plan import Plan
from inspector.engine.recomputation import recompute
from inspector.views.run_stats import series_stats

CONTRACT = make_metric_contract("correct", binary=["correct"])


def _task(task_id: str, outcomes: list[bool], category: str, k: int) -> TaskRecord:
    attempts = {
        i: Attempt(index=i, status="completed", metrics={"correct": v})
        for i, v in enumerate(outcomes, 1)
    }
    return TaskRecord(task_id, category, k, "avg", attempts)


def bernoulli(rng: random.Random) -> tuple[list[TaskRecord], Plan, float]:
    tasks = [_task(f"t{i}", [rng.random() < 0.3], "a", 1) for i in range(100)]
    return tasks, Plan(k=1, strategy="avg", contract=CONTRACT), 0.3


def clustered(rng: random.Random) -> tuple[list[TaskRecord], Plan, float]:
    tasks = []
    for i in range(60):
        p = rng.choice((0.1, 0.5, 0.9))
        tasks.append(_task(f"t{i}", [rng.random() < p for _ in range(3)], "a", 3))
    return tasks, Plan(k=3, strategy="avg", contract=CONTRACT), 0.5


def category_mean(rng: random.Random) -> tuple[list[TaskRecord], Plan, float]:
    tasks = []
    for name, p, n in (("a", 0.2, 30), ("b", 0.5, 40), ("c", 0.8, 50)):
        tasks += [_task(f"{name}{i}", [rng.random() < p], name, 1) for i in range(n)]
    return tasks, Plan(k=1, strategy="avg", contract=CONTRACT, aggregation="category_mean"), 0.5


SCENARIOS: dict[str, Callable[[random.Random], tuple[list[TaskRecord], Plan, float]]] = {
    "bernoulli": bernoulli,
    "clustered": clustered,
    "category_mean": category_mean,
}


def coverage(name: str, draws: int, seed: int, confidence: float = 0.95) -> tuple[int, int]:
    """(draws whose interval covers the true value, draws with an interval)."""
    rng = random.Random(f"{seed}:{name}")
    covered = counted = 0
    for _ in range(draws):
        tasks, plan, truth = SCENARIOS[name](rng)
        rec = recompute(tasks, plan)
        interval = series_stats(rec, rec.report.series[0], confidence=confidence).own.interval
        if interval.ci_low is None or interval.ci_high is None:
            continue
        counted += 1
        covered += interval.ci_low <= truth <= interval.ci_high
    return covered, counted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), action="append")
    parser.add_argument("--grid", action="store_true", help="the grid of issue 38")
    parser.add_argument("--big-draws", type=int, default=400, help="draws at n = 1000 (grid)")
    parser.add_argument("--cells", action="store_true", help="the cells of issue 49")
    parser.add_argument("--random", type=int, default=0, help="cells chosen by --seed (--cells)")
    args = parser.parse_args()
    if args.cells:
        from coverage_cells import named_cells, random_cells
        from coverage_cells import row as cell_row

        for cell in [*named_cells(), *random_cells(args.random, args.seed)]:
            print(cell_row(cell, args.draws, args.seed), flush=True)
        return 0
    if args.grid:
        from coverage_grid import grid, row

        for cell in grid(args.draws, args.seed, args.big_draws):
            print(row(cell), flush=True)
        return 0
    from scipy import stats

    for name in args.scenario or SCENARIOS:
        covered, counted = coverage(name, args.draws, args.seed)
        ci = stats.binomtest(covered, counted).proportion_ci(0.95)
        print(
            f"{name:14s} 95% interval covered the true value in {covered}/{counted} draws "
            f"= {covered / counted:.2%} (exact 95% CI of that share {ci.low:.2%}–{ci.high:.2%}; "
            f"{args.draws - counted} draws without an interval; seed {args.seed})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
