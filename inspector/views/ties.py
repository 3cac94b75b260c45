"""Ties on the leaderboard: which models of a benchmark column are statistically separated,
groups of models that are not, and a simultaneous rank interval for each.

Pure (no textual, no rich, no I/O). The loading is :func:`inspector.answers.root.board_of_root`'s.

For each benchmark column with two or more models whose headline series has a value:

- every pair of models is compared as ``inspector diff`` compares two runs: the series delta
  B − A, its paired (MOVER) interval over each model's tasks, paired on the tasks they share,
  and the p-value inverting it (:func:`inspector.views.paired.delta_interval`);
- the p-values of the column's m = M(M − 1)/2 pairs are adjusted by Holm's step-down method
  (the family is the column); a pair is *separated* when its adjusted p ≤ α (0.05). A pair
  without an interval (fewer than 2 shared tasks, a corpus formula, …) is never separated
  (its p counts as 1);
- rank interval of model i (Neuhof & Benjamini style, from the multiple-comparison
  decisions): [1 + #models separated from i and above it, M − #models separated from i and
  below it]. Holm controls the family-wise error of the column's decisions, so with
  probability ≥ 1 − α (up to directional errors, themselves ≤ α/2 a pair) no decision is
  wrong and every model's true rank lies in its interval simultaneously;
- groups (a compact letter display): the models in order of value; each maximal run of
  consecutive models no two of which are separated is one group, lettered a, b, c, …; a
  model carries the letters of its groups: two models sharing a letter are not separated.

Measured by ``benchmarks/bench_ties.py`` (family-wise error at no true difference among 5
models, and the power at a stated difference).
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from inspector.views.side_tasks import SideTasks

ALPHA = 0.05
"""The family-wise error rate of a column's decisions."""
METHOD = (
    "pairwise paired comparisons of the headline series (MOVER interval of the series delta, "
    "paired on the tasks the two models share; p inverts it), Holm-adjusted over the "
    "column's pairs at family-wise α = {alpha:g}; rank interval [1 + models separated above, "
    "M − models separated below] (simultaneous, from the Holm decisions); group letters: "
    "maximal runs of models in value order no two of which are separated"
)


@dataclass(frozen=True, slots=True)
class Pair:
    """One pairwise comparison of a column: ``better`` − ``worse`` ≥ 0 in value."""

    better: str
    worse: str
    delta: float
    # the p-value inverting the paired interval (None: no interval, never separated)
    p_value: float | None
    p_holm: float
    separated: bool


@dataclass(frozen=True, slots=True)
class Standing:
    """One model's place in its column."""

    rank_low: int
    rank_high: int
    groups: str
    tied_with: tuple[str, ...]

    @property
    def rank_text(self) -> str:
        """``#1–3``, or ``#2`` when the rank is resolved."""
        if self.rank_low == self.rank_high:
            return f"#{self.rank_low}"
        return f"#{self.rank_low}–{self.rank_high}"


@dataclass(frozen=True, slots=True)
class ColumnTies:
    """The pairwise decisions and standings of one benchmark column."""

    benchmark: str
    pairs: tuple[Pair, ...]
    standings: Mapping[str, Standing]
    alpha: float = ALPHA

    @property
    def method(self) -> str:
        return METHOD.format(alpha=self.alpha)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (same order as given)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [1.0] * m
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p_values[i]))
        out[i] = running
    return out


def column_ties(
    benchmark: str,
    values: Mapping[str, float],
    p_values: Mapping[tuple[str, str], float | None],
    *,
    alpha: float = ALPHA,
) -> ColumnTies:
    """Holm over the column's pairs, the groups and rank intervals. ``values``: each
    model's headline value; ``p_values[(a, b)]`` (a before b in ``values``' order): the
    p-value of their paired delta, None where there is no interval."""
    models = sorted(values, key=lambda m: (-values[m], m))
    keys = [(a, b) for i, a in enumerate(values) for b in list(values)[i + 1 :]]
    raw = [p_values.get(key) for key in keys]
    adjusted = holm([1.0 if p is None else p for p in raw])
    pairs, separated = [], set()
    for (a, b), p, q in zip(keys, raw, adjusted, strict=True):
        better, worse = (a, b) if values[a] >= values[b] else (b, a)
        split = p is not None and q <= alpha and values[better] != values[worse]
        pairs.append(Pair(better, worse, values[better] - values[worse], p, q, split))
        if split:
            separated.add((better, worse))
    standings = {}
    groups = letters(models, separated)
    for model in models:
        above = sum((other, model) in separated for other in models)
        below = sum((model, other) in separated for other in models)
        tied = tuple(o for o in models if o != model
                     and (o, model) not in separated and (model, o) not in separated)  # fmt: skip
        standings[model] = Standing(1 + above, len(models) - below, groups[model], tied)
    return ColumnTies(benchmark, tuple(pairs), standings, alpha)


def letters(models: Sequence[str], separated: set[tuple[str, str]]) -> dict[str, str]:
    """The compact letter display of ``models`` (in value order, best first)."""

    def apart(x: str, y: str) -> bool:
        return (x, y) in separated or (y, x) in separated

    blocks: list[tuple[int, int]] = []
    for start in range(len(models)):
        end = start
        while end + 1 < len(models) and not any(
            apart(models[end + 1], models[i]) for i in range(start, end + 1)
        ):
            end += 1
        if not any(s <= start and end <= e for s, e in blocks):
            blocks.append((start, end))
    names = string.ascii_lowercase
    out = {m: "" for m in models}
    for number, (start, end) in enumerate(blocks):
        letter = names[number] if number < len(names) else f"[{number + 1}]"
        for m in models[start : end + 1]:
            out[m] += letter
    return out


def ties_of_runs(
    benchmark: str, runs: Mapping[str, SideTasks], *, alpha: float = ALPHA
) -> ColumnTies | None:
    """The ties of one column from each model's run's headline series, its tasks as the
    sample takes them (:func:`~inspector.views.series_sample.side_tasks`; models whose
    series has no value are left out); None with fewer than two models."""
    # The statistics (numpy, scipy) only when a column is compared: a leaderboard whose
    # ties are kept in the store does without them.
    from inspector.views.paired import DeltaInterval, delta_interval
    from inspector.views.series_sample import sample_of

    values = {m: s.value for m, s in runs.items() if s.value is not None}
    if len(values) < 2:
        return None
    order = list(values)
    p_values: dict[tuple[str, str], float | None] = {}
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            sample = sample_of(runs[a], runs[b])
            found = None if sample is None else delta_interval(sample, confidence=1 - alpha)
            p_values[(a, b)] = found.p_value if isinstance(found, DeltaInterval) else None
    return column_ties(benchmark, {m: float(v) for m, v in values.items()}, p_values,
                       alpha=alpha)  # fmt: skip
