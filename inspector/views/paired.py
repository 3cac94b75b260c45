"""Paired statistics of one series pair: B − A on the tasks evaluated on both sides.

Pure (no textual, no rich, no I/O). Used by :meth:`inspector.views.compare.Comparison.stats`
(``inspector diff``, the compare screen, what-if plans of one run):

- a paired t on the per-task differences of task values (a task's attempts are already
  averaged into its value, so a task is one cluster); each task weighs the same, whatever
  the series' aggregation;
- a seeded paired bootstrap that resamples tasks (seed and resamples stated);
- McNemar's exact test, only where both sides are binary series with one attempt (k=1),
  so that every task value is one 0/1 outcome.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspector.engine.aggregation import mean
from inspector.views.stats import (
    DEFAULT_CONFIDENCE,
    BootstrapCI,
    PairedT,
    mcnemar_exact,
    paired_bootstrap_ci,
    paired_t,
)


@dataclass(frozen=True, slots=True)
class PairedStats:
    """Paired t, bootstrap and (where it applies) McNemar over the evaluated pairs."""

    series: str
    # pairs evaluated on both sides with 0/1 values (binary series with one attempt only)
    binary_pairs: int
    one_to_zero: int
    zero_to_one: int
    mcnemar_p: float | None
    # pairs evaluated on both sides
    paired: int
    mean_a: float | None
    mean_b: float | None
    bootstrap: BootstrapCI | None
    t: PairedT | None = None
    # why McNemar does not apply (None when it does)
    mcnemar_note: str | None = None


def paired_stats(
    label: str,
    pairs: Sequence[tuple[float, float]],
    *,
    one_outcome: bool,
    seed: int = 0,
    resamples: int = 10_000,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PairedStats:
    """``pairs``: (A value, B value) of each task evaluated on both sides.

    ``one_outcome``: both sides are binary series with one attempt, so McNemar applies.
    """
    a_values = [float(a) for a, _ in pairs]
    b_values = [float(b) for _, b in pairs]
    binary = (
        [(a, b) for a, b in pairs if a in (0.0, 1.0) and b in (0.0, 1.0)] if one_outcome else []
    )
    down = sum(a == 1.0 and b == 0.0 for a, b in binary)
    up = sum(a == 0.0 and b == 1.0 for a, b in binary)
    ci = None
    if pairs:
        ci = paired_bootstrap_ci(
            a_values, b_values, seed=seed, resamples=resamples, confidence=confidence
        )
    return PairedStats(
        series=label,
        binary_pairs=len(binary),
        one_to_zero=down,
        zero_to_one=up,
        mcnemar_p=mcnemar_exact(down, up) if binary else None,
        paired=len(pairs),
        mean_a=mean(a_values),
        mean_b=mean(b_values),
        bootstrap=ci,
        t=paired_t(a_values, b_values, confidence=confidence),
        mcnemar_note=None
        if one_outcome
        else "McNemar needs binary series with one attempt on both sides",
    )


def paired_json(stats: PairedStats) -> dict[str, Any]:
    """``paired`` / ``bootstrap`` / ``mcnemar`` of one series in ``diff --format json``."""
    t = stats.t
    ci = stats.bootstrap
    return {
        "paired": None
        if t is None
        else {
            "n": t.n,
            "mean_diff": t.mean_diff,
            "se": t.se,
            "ci_low": t.ci_low,
            "ci_high": t.ci_high,
            "p_value": t.p_value,
            "confidence": t.confidence,
            "method": t.method,
        },
        "bootstrap": None
        if ci is None
        else {
            "n": stats.paired,
            "mean_diff": ci.difference,
            "ci_low": ci.low,
            "ci_high": ci.high,
            "confidence": ci.confidence,
            "resamples": ci.resamples,
            "seed": ci.seed,
            "method": (
                f"percentile bootstrap of the mean difference B − A, {ci.resamples} resamples "
                f"of the {stats.paired} tasks (attempts stay in their task), seed {ci.seed}"
            ),
        },
        "mcnemar": None
        if stats.mcnemar_p is None
        else {
            "b": stats.one_to_zero,
            "c": stats.zero_to_one,
            "n": stats.binary_pairs,
            "p_value": stats.mcnemar_p,
            "method": "McNemar exact (two-sided binomial test of the discordant pairs); "
            "b: 1 under A and 0 under B, c: 0 under A and 1 under B",
        },
    }


def paired_lines(stats: PairedStats) -> list[str]:
    """The paired statistics as lines of text (``diff`` table and markdown, compare screen)."""
    lines = []
    t = stats.t
    if t is not None and t.mean_diff is not None:
        if t.se is None:
            lines.append(f"mean B − A over {t.n} tasks evaluated on both sides: "
                         f"{t.mean_diff:+.4g} ({t.method})")  # fmt: skip
        else:
            lines.append(
                f"paired t: mean B − A {t.mean_diff:+.4g} over {t.n} tasks, se {t.se:.4g}, "
                f"{t.confidence:.0%} CI {t.ci_low:+.4g} … {t.ci_high:+.4g}, p = {t.p_value:.4g}"
            )
    if stats.mcnemar_p is not None:
        lines.append(
            f"McNemar exact (two-sided): {stats.one_to_zero} 1→0 vs {stats.zero_to_one} 0→1 "
            f"of {stats.binary_pairs} binary pairs, p = {stats.mcnemar_p:.4g}"
        )
    if stats.bootstrap is not None:
        ci = stats.bootstrap
        lines.append(
            f"mean B − A over {stats.paired} tasks evaluated on both sides: {ci.difference:+.4g} "
            f"({ci.confidence:.0%} paired bootstrap CI {ci.low:+.4g} … {ci.high:+.4g}, "
            f"{ci.resamples} resamples, seed {ci.seed})"
        )
    return lines
