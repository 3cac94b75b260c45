"""Ties on the leaderboard (issue 51 item 3): the family-wise error of a column's Holm
decisions at no true difference among 5 models, and their power at a stated difference,
by seeded simulation.

    nice .venv/bin/python benchmarks/bench_ties.py [--draws 400] [--seed 51]
        [--n 30 100 300] [--k 1 3] [--levels 0.5 0.1] [--gap 0.1]

The procedure under test is :func:`inspector.views.ties.column_ties` fed with the p-values
the leaderboard computes (:func:`inspector.views.paired.delta_interval`: the paired MOVER
interval of each pair's series delta, p inverting it), as ``inspector leaderboard`` does.

A column: 5 models on the same n tasks; task i has a difficulty p_i ~ Beta(4m, 4(1 − m))
(m the level: 0.5, or 0.1 near the floor), model j's success probability on it
clip(p_i + e_j), k independent attempts, the task value their mean; each model's task is
an error (no value) with chance 0.05; the headline is micro (mean of task values).

- null (e_j = 0 for all 5): the family-wise error is the share of columns in which any
  pair is declared separated; it must be ≤ 0.05;
- power (e = 0, g, 2g, 3g, 4g with g = ``--gap``): how often each adjacent pair (true gap
  g) and the extreme pair (4g) are separated, how often every rank interval holds the true
  rank (the simultaneous coverage, ≥ 0.95), and the mean width of the rank intervals.

Each share is printed with its exact binomial 95 % interval. For speed, Holm's decisions are
taken from interval exclusions (the same decisions, see :func:`column`); the first
``--check`` columns of each design are also decided from the bisected p-values exactly as
the leaderboard does, and the disagreements are counted (printed: must be 0).

Measured (``nice .venv/bin/python benchmarks/bench_ties.py --draws 400 --check 10``, seed
51; 12 designs, 400 null and 400 shifted columns each; 228 s):

  family-wise error at no difference (≤ 0.05): 0.000–0.040 over n = 30 / 100 / 300,
      k = 1 / 3, levels 0.5 and 0.1 (largest 0.040 [0.023, 0.064] at n = 300, k = 3, 0.5);
  power at g = 0.1 (adjacent pairs 0.1 apart):  n = 30: 0.018–0.111; n = 100, k = 1:
      0.121 (level 0.5) / 0.176 (0.1); n = 100, k = 3: 0.548 / 0.686; n = 300, k = 1:
      0.588 / 0.738; n = 300, k = 3: 0.991 / 0.994;
  the extreme pair (0.4 apart): 0.598 (n = 30, k = 1, 0.5), ≥ 0.98 from n = 30, k = 3 on;
  every rank interval holds the true rank in 1.000 of columns in every design (≥ 0.95);
      mean width 4.40 ranks (n = 30, k = 1) down to 1.01 (n = 300, k = 3);
  decisions differing from those of the bisected p-values: 0 of 240 columns.

Near the ceiling (``--levels 0.9``, same seed and draws, 6 designs; 14 s): family-wise error
0.000–0.052, the largest at n = 300, k = 3 (``--draws 2000 --n 300 --k 3 --levels 0.9``:
0.042 [0.033, 0.051]); adjacent power 0.000–0.018 at n = 30, 0.018–0.152 at n = 100,
0.177–0.566 at n = 300 (the better models' success probabilities are cut at 1); rank
intervals hold the true rank in ≥ 0.998 of columns; 0 decisions differing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_paired import CONCENTRATION, _side

from inspector.engine.report import MICRO_WEIGHTED
from inspector.views.paired import DeltaInterval, SeriesSample, delta_interval
from inspector.views.ties import ALPHA, column_ties

MODELS = 5


def _column(n: int, k: int, level: float, effects: np.ndarray, rng: np.random.Generator):
    p = rng.beta(CONCENTRATION * level, CONCENTRATION * (1 - level), size=n)
    cats = np.zeros(n, np.intp)
    names = ("0",)
    ids = tuple(str(j) for j in range(n))
    sides = {f"m{j}": _side(np.clip(p + e, 0, 1), k, cats, MICRO_WEIGHTED, rng, names)
             for j, e in enumerate(effects)}  # fmt: skip
    values = {m: s.value for m, s in sides.items() if not np.isnan(s.value)}
    order = list(values)
    samples = {(a, b): SeriesSample(ids, names, sides[a], sides[b])
               for i, a in enumerate(order) for b in order[i + 1 :]}  # fmt: skip
    return values, samples


def column(values, samples, *, exact: bool):
    """The column's :class:`~inspector.views.ties.ColumnTies`. ``exact``: from the p-values
    the leaderboard computes (each the bisection of its interval). Otherwise Holm's
    decisions from interval exclusions alone, the same decisions (p ≤ α′ exactly when the
    (1 − α′) interval excludes 0, :func:`inspector.views.paired.inverted_p`): with r pairs
    left, every pair whose (1 − α/r) interval excludes 0 is separated, until none is; the
    others get p = 1 (their p is not needed for the decisions)."""
    if exact:
        p_values: dict[tuple[str, str], float | None] = {}
        for key, sample in samples.items():
            found = delta_interval(sample)
            p_values[key] = found.p_value if isinstance(found, DeltaInterval) else None
        return column_ties("bench", values, p_values)
    left = dict(samples)
    rejected: dict[tuple[str, str], float] = {}
    while left:
        level = ALPHA / len(left)
        hits = []
        for key, sample in left.items():
            found = delta_interval(sample, confidence=1 - level, test=False)
            if isinstance(found, DeltaInterval) and (found.low > 0 or found.high < 0):
                hits.append(key)
        if not hits:
            break
        for key in hits:
            rejected[key] = level / len(samples)  # below every threshold it passed
            del left[key]
    return column_ties("bench", values, {**dict.fromkeys(samples, 1.0), **rejected})


def _decisions(ties) -> set[tuple[str, str]]:
    return {(p.better, p.worse) for p in ties.pairs if p.separated}


def _share(x: int, n: int) -> str:
    ci = stats.binomtest(x, n).proportion_ci(0.95)
    return f"{x / n:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=400)
    parser.add_argument("--seed", type=int, default=51)
    parser.add_argument("--n", type=int, nargs="*", default=[30, 100, 300])
    parser.add_argument("--k", type=int, nargs="*", default=[1, 3])
    parser.add_argument("--levels", type=float, nargs="*", default=[0.5, 0.1])
    parser.add_argument("--gap", type=float, default=0.1)
    parser.add_argument(
        "--check",
        type=int,
        default=10,
        help="columns a design also decided from the bisected p-values",
    )
    args = parser.parse_args()
    print(f"draws {args.draws}, seed {args.seed}, {MODELS} models, Holm at α = 0.05; power: "
          f"true effects 0, g, …, 4g with g = {args.gap}")  # fmt: skip
    print(f"{'n':>4} {'k':>2} {'level':>5} {'FWER (null)':<22} {'adjacent (g)':<22} "
          f"{'extreme (4g)':<22} {'ranks covered':<22} width")  # fmt: skip
    start = time.perf_counter()
    worst = 0.0
    disagree = 0
    for n in args.n:
        for k in args.k:
            for level in args.levels:
                rng = np.random.default_rng(args.seed * 1_000_003 + n * 101 + k * 7
                                            + int(level * 100))  # fmt: skip
                null = np.zeros(MODELS)
                errors = 0
                for i in range(args.draws):
                    values, samples = _column(n, k, level, null, rng)
                    ties = column(values, samples, exact=False)
                    errors += any(p.separated for p in ties.pairs)
                    if i < args.check:
                        disagree += _decisions(ties) != _decisions(
                            column(values, samples, exact=True)
                        )
                worst = max(worst, errors / args.draws)
                effects = args.gap * np.arange(MODELS)
                adjacent = extreme = covered = 0
                widths: list[int] = []
                for _ in range(args.draws):
                    values, samples = _column(n, k, level, effects, rng)
                    ties = column(values, samples, exact=False)
                    if _ < args.check:
                        disagree += _decisions(ties) != _decisions(
                            column(values, samples, exact=True)
                        )
                    split = {(p.better, p.worse) for p in ties.pairs if p.separated}
                    adjacent += sum((f"m{j + 1}", f"m{j}") in split for j in range(MODELS - 1))
                    extreme += (f"m{MODELS - 1}", "m0") in split
                    ok = True
                    for j in range(MODELS):
                        s = ties.standings.get(f"m{j}")
                        true_rank = MODELS - j
                        ok &= s is not None and s.rank_low <= true_rank <= s.rank_high
                        if s is not None:
                            widths.append(s.rank_high - s.rank_low + 1)
                    covered += ok
                print(f"{n:>4} {k:>2} {level:>5} {_share(errors, args.draws):<22} "
                      f"{_share(adjacent, args.draws * (MODELS - 1)):<22} "
                      f"{_share(extreme, args.draws):<22} {_share(covered, args.draws):<22} "
                      f"{np.mean(widths):.2f}", flush=True)  # fmt: skip
    print(
        f"largest family-wise error at no difference: {worst:.3f}; decisions differing "
        f"from those of the bisected p-values: {disagree}; "
        f"{time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
