"""The coverage cells of issue 49, run by ``bench_coverage.py --cells``: populations the grid
of issue 38 (``coverage_grid.py``) never had, drawn whole and scored by the engine, with the
interval from :func:`inspector.views.run_stats.series_stats` (what ``inspector stats``
prints).

Named cells:

- ``unequal``: categories of 1, 2 and 40 (and 5, 10, 40) tasks with success rates 0.5, 0.3
  and 0.9, at k = 1 and k = 5 (avg), scored as ``category_mean`` and as an unweighted
  hierarchy over the three; a task's success probability θ ~ Beta(0.5·p, 0.5·(1 − p))
  (tasks nearly all-or-nothing: the hard case for a small category), its attempts
  independent given θ. The truth is the mean of the three categories' rates.
- ``lognormal``: a scalar reward, log-normal with σ = 1, at n = 15, 30, 50 (truth e^½).
- ``latency``: seconds, log-normal around 30 s with σ = 0.8, cut at a 600 s timeout, at
  n = 20 and 60 (truth by numerical integration of the cut distribution).

Random cells (``--random N``, chosen by ``--seed``): a binary metric with 1–6 categories of
1–60 tasks, rates in [0.02, 0.98], k ∈ {1, 3, 5}, task heterogeneity from none to
all-or-nothing, scored micro / category_mean / hierarchy; or a scalar metric (normal,
exponential, log-normal σ ∈ {0.5, 1}, gamma(2)) at 10–100 tasks.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from inspector.engine.contract import make_metric_contract
from inspector.engine.model import Attempt, TaskRecord
from inspector.engine.plan import Plan
from inspector.engine.recomputation import recompute
from inspector.views.run_stats import series_stats

BINARY = make_metric_contract("correct", binary=["correct"])
SCALAR = make_metric_contract("score", scalar=["score"])


@dataclass(frozen=True)
class Cell:
    """A population: ``draw(rng)`` gives one run's tasks; ``truth`` its series' true value."""

    name: str
    plan: Plan
    draw: Callable[[random.Random], list[TaskRecord]]
    truth: float


def _task(task_id: str, category: str, metric: str, values: list[object], k: int) -> TaskRecord:
    attempts = {i: Attempt(index=i, status="completed", metrics={metric: v})
                for i, v in enumerate(values, 1)}  # fmt: skip
    return TaskRecord(task_id, category, k, "avg", attempts)


def _theta(rng: random.Random, p: float, strength: float | None) -> float:
    if strength is None:
        return p
    return rng.betavariate(p * strength, (1 - p) * strength)


def binary_cell(
    name: str, sizes: tuple[int, ...], rates: tuple[float, ...], k: int,
    strength: float | None, aggregation: str,
) -> Cell:  # fmt: skip
    """Categories c0, c1, … of ``sizes`` tasks with success rates ``rates``."""
    hierarchy = None
    plan_aggregation = aggregation
    if aggregation == "hierarchy":
        leaves = {f"c{g}": {} for g in range(len(sizes))}
        hierarchy = {"overall": {"aggregation": "unweighted", "children": leaves}}
        plan_aggregation = "micro_weighted"
    plan = Plan(k=k, strategy="avg", contract=BINARY, aggregation=plan_aggregation,
                hierarchy=hierarchy)  # fmt: skip
    if aggregation == "micro_weighted":
        truth = math.fsum(n * p for n, p in zip(sizes, rates, strict=True)) / sum(sizes)
    else:
        truth = math.fsum(rates) / len(rates)

    def draw(rng: random.Random) -> list[TaskRecord]:
        tasks = []
        for g, (size, p) in enumerate(zip(sizes, rates, strict=True)):
            for i in range(size):
                theta = _theta(rng, p, strength)
                tasks.append(_task(f"c{g}-{i}", f"c{g}", "correct",
                                   [rng.random() < theta for _ in range(k)], k))  # fmt: skip
        return tasks

    return Cell(name, plan, draw, truth)


def scalar_cell(name: str, n: int, sample: Callable[[random.Random], float], truth: float) -> Cell:
    plan = Plan(k=1, strategy="avg", contract=SCALAR)

    def draw(rng: random.Random) -> list[TaskRecord]:
        return [_task(f"t{i}", "a", "score", [sample(rng)], 1) for i in range(n)]

    return Cell(name, plan, draw, truth)


def _latency_truth(median: float, sigma: float, cap: float) -> float:
    """E[min(X, cap)] for X log-normal: E[X; X < cap] + cap·P(X ≥ cap)."""
    mu = math.log(median)
    z = (math.log(cap) - mu) / sigma
    phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))  # noqa: E731
    return math.exp(mu + sigma**2 / 2) * phi(z - sigma) + cap * (1 - phi(z))


def named_cells() -> Iterator[Cell]:
    for sizes in ((1, 2, 40), (5, 10, 40)):
        for k in (1, 5):
            for aggregation in ("category_mean", "hierarchy"):
                name = f"unequal {'/'.join(map(str, sizes))} k={k} {aggregation}"
                yield binary_cell(name, sizes, (0.5, 0.3, 0.9), k, 0.5, aggregation)
    for n in (15, 30, 50):
        yield scalar_cell(f"lognormal σ=1 n={n}", n, lambda r: r.lognormvariate(0, 1),
                          math.exp(0.5))  # fmt: skip
    truth = _latency_truth(30.0, 0.8, 600.0)
    for n in (20, 60):
        yield scalar_cell(f"latency n={n}", n,
                          lambda r: min(600.0, r.lognormvariate(math.log(30.0), 0.8)), truth)  # fmt: skip


SCALARS: dict[str, tuple[Callable[[random.Random], float], float]] = {
    "normal": (lambda r: r.gauss(5.0, 2.0), 5.0),
    "exponential": (lambda r: r.expovariate(1.0), 1.0),
    "lognormal σ=0.5": (lambda r: r.lognormvariate(0, 0.5), math.exp(0.125)),
    "lognormal σ=1": (lambda r: r.lognormvariate(0, 1), math.exp(0.5)),
    "gamma(2)": (lambda r: r.gammavariate(2.0, 1.0), 2.0),
}


def random_cells(count: int, seed: int) -> Iterator[Cell]:
    """``count`` cells drawn by ``seed`` (see the module docstring)."""
    rng = random.Random(f"cells:{seed}")
    for i in range(count):
        if rng.random() < 0.7:
            groups = rng.randint(1, 6)
            sizes = tuple(
                max(1, round(math.exp(rng.uniform(0, math.log(60))))) for _ in range(groups)
            )
            rates = tuple(round(rng.uniform(0.02, 0.98), 2) for _ in range(groups))
            k = rng.choice((1, 3, 5))
            strength = rng.choice((None, 0.5, 2.0, 10.0))
            aggregation = rng.choice(("micro_weighted", "category_mean", "hierarchy"))
            name = (f"#{i} sizes {'/'.join(map(str, sizes))} rates {'/'.join(map(str, rates))} "
                    f"k={k} θ-strength {strength} {aggregation}")  # fmt: skip
            yield binary_cell(name, sizes, rates, k, strength, aggregation)
        else:
            kind = rng.choice(sorted(SCALARS))
            n = rng.randint(10, 100)
            sample, truth = SCALARS[kind]
            yield scalar_cell(f"#{i} {kind} n={n}", n, sample, truth)


def coverage(cell: Cell, draws: int, seed: int) -> tuple[int, int, list[float]]:
    """(covering draws, draws with an interval, the interval widths)."""
    rng = random.Random(f"{seed}:{cell.name}")
    covered = counted = 0
    widths: list[float] = []
    for _ in range(draws):
        rec = recompute(cell.draw(rng), cell.plan)
        interval = series_stats(rec, rec.report.series[0]).own.interval
        if interval.ci_low is None or interval.ci_high is None:
            continue
        counted += 1
        covered += interval.ci_low <= cell.truth <= interval.ci_high
        widths.append(interval.ci_high - interval.ci_low)
    return covered, counted, widths


def row(cell: Cell, draws: int, seed: int) -> str:
    covered, counted, widths = coverage(cell, draws, seed)
    if not counted:
        return f"{cell.name:60s} no interval in any of {draws} draws"
    c = covered / counted
    se = math.sqrt(c * (1 - c) / counted)
    median = sorted(widths)[len(widths) // 2]
    return (f"{cell.name:60s} coverage {c:.3f} ± {se:.3f}  ({counted}/{draws} with an "
            f"interval; median width {median:.3g})")  # fmt: skip
