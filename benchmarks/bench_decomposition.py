"""Cost of the exact decomposition of one series delta (issue 51 item 1) at 10,000 tasks.

    nice .venv/bin/python benchmarks/bench_decomposition.py [--tasks 10000] [--repeat 3]
        [--seed 51]

:func:`inspector.engine.decomposition.decompose` of one series pair whose six groups are
all non-empty (tasks only in A and only in B, state changes, flips up and down, categories
moved: 2⁶ = 64 hybrids), for micro, category_mean, a hierarchy and a ratio of sums; 50
categories. The gate decomposes every ``--against`` series, the compare screen and
``inspector diff`` every series shown. Prints the best of ``--repeat`` wall times a series
and checks that the parts sum to B − A (1e-12).

Measured (``nice .venv/bin/python benchmarks/bench_decomposition.py``, seed 51, 10,000
tasks, best of 3; 2 cores shared with other jobs, so absolute times are loose, the ratio
is the figure):

  before (each of the 64 hybrids re-aggregated from its 10,000 task rows):
      micro 4.01 s, category_mean 5.94 s, hierarchy 3.74 s, ratio of sums 4.46 s
  after (each block's per-category partial sums taken once; a hybrid combines 2–6 blocks,
  O(categories)):
      micro 0.106 s, category_mean 0.121 s, hierarchy 0.127 s, ratio of sums 0.108 s
  |Σ parts − (B − A)| ≤ 3.5e-18 in every design, before and after.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inspector.engine.decomposition import RATIO, Side, Structure, TaskRow, decompose, side_value
from inspector.engine.hierarchy import parse_hierarchy

CATEGORIES = 50


def _hierarchy(weights: list[float]) -> object:
    children = {f"c{g:02d}": {"weight": w} for g, w in enumerate(weights)}
    return parse_hierarchy({"overall": {"aggregation": "weighted", "children": children}})


def sides(tasks: int, structure: tuple[Structure, Structure], seed: int) -> tuple[Side, Side]:
    """Two sides of ``tasks`` tasks with every group of changes present."""
    rng = np.random.default_rng(seed)
    ratio = structure[0].formula == RATIO
    rows: list[list[TaskRow]] = [[], []]
    for i in range(tasks):
        cat = f"c{int(rng.integers(CATEGORIES)):02d}"
        moved = f"c{int(rng.integers(CATEGORIES)):02d}" if rng.random() < 0.02 else cat
        value = float(rng.random() < 0.6)
        weight = float(rng.integers(1, 5)) if ratio else None
        a = TaskRow(f"t{i}", cat, "evaluated", value * (weight or 1.0), weight, cat)
        roll = rng.random()
        if roll < 0.02:  # only in A
            rows[0].append(a)
            continue
        if roll < 0.04:  # only in B
            rows[1].append(a)
            continue
        b = a
        if roll < 0.07:
            b = TaskRow(a.task_id, cat, "error", None, None, cat)
        elif roll < 0.12:
            flipped = 1.0 - value
            b = TaskRow(a.task_id, cat, "evaluated", flipped * (weight or 1.0), weight, cat)
        rows[0].append(a)
        rows[1].append(TaskRow(b.task_id, moved, b.state, b.value, b.weight, moved))
    out = [Side(tuple(r), s, side_value(r, s)) for r, s in zip(rows, structure, strict=True)]
    return out[0], out[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=51)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    wa = [float(w) for w in rng.integers(1, 4, CATEGORIES)]
    wb = [*wa[:-1], wa[-1] + 1]  # one node's weight moved
    designs = {
        "micro": (Structure("micro_weighted"), Structure("micro_weighted")),
        "category_mean": (Structure("category_mean"), Structure("category_mean")),
        "hierarchy": (
            Structure("category_hierarchy", _hierarchy(wa)),  # type: ignore[arg-type]
            Structure("category_hierarchy", _hierarchy(wb)),  # type: ignore[arg-type]
        ),
        "ratio": (
            Structure("micro_weighted", None, RATIO),
            Structure("micro_weighted", None, RATIO),
        ),
    }
    print(f"{args.tasks} tasks, {CATEGORIES} categories, seed {args.seed}, best of {args.repeat}")
    for name, structure in designs.items():
        a, b = sides(args.tasks, structure, args.seed)
        best = math.inf
        found = None
        for _ in range(args.repeat):
            start = time.perf_counter()
            found = decompose(a, b)
            best = min(best, time.perf_counter() - start)
        assert found is not None and a.value is not None and b.value is not None
        gap = abs(math.fsum(p.value for p in found.parts) - (b.value - a.value))
        print(f"{name:<14} {best:8.3f} s  groups {len(found.parts)}  hybrids "
              f"{found.evaluations}  |Σ parts − (B − A)| {gap:.1e}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
