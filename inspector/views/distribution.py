"""How the evaluated task values of a series are spread: the rows the overview's
distribution draws and ``inspector bundle`` embeds. Pure: no textual, no rich."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

MAX_DISTINCT = 11
"""At most this many distinct values get one row each; more are put in :data:`BINS` bins."""
BINS = 10


def distribution_rows(values: Sequence[float]) -> list[tuple[str, int]]:
    """``(label, count)`` rows: one per distinct value when there are few of them (binary
    and avg@k series), else ten equal-width bins from the lowest to the highest value."""
    distinct = Counter(values)
    if len(distinct) <= MAX_DISTINCT:
        return [(f"{value:.4g}", distinct[value]) for value in sorted(distinct)]
    low, high = min(values), max(values)
    step = (high - low) / BINS
    counts = [0] * BINS
    for value in values:
        slot = min(BINS - 1, int((value - low) / step)) if step else 0
        counts[slot] += 1
    return [(f"{low + i * step:.3g}–{low + (i + 1) * step:.3g}", counts[i]) for i in range(BINS)]
