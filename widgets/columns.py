"""Table columns that know how to give way on a narrow screen (pure: no textual)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

PADDING = 1
"""Blank cells on each side of a column, as in DataTable."""


@dataclass(frozen=True)
class Column:
    """One column: its key, header label, content width (without padding) and alignment.

    ``fold`` says when the column gives way on a narrow screen: 0 never (ids, values,
    counts), otherwise the column with the highest ``fold`` goes first: it is cut down to
    ``shrink`` cells (if set), then left out if the table still does not fit. Columns that
    never fold are cut down last. Text is cut in the middle (``cut="middle"``: the end of
    an id or a category tells it apart) or at the end. ``short`` is a shorter header, used
    (before anything folds) when the table does not fit with the full ones.
    """

    key: str
    label: str
    width: int
    justify: Literal["left", "right"] = "left"
    fold: int = 0
    shrink: int | None = None
    cut: Literal["end", "middle"] = "end"
    short: str | None = None

    @property
    def render_width(self) -> int:
        return max(self.width, len(self.label)) + 2 * PADDING


def fit_columns(
    columns: Sequence[Column], width: int
) -> tuple[tuple[int, ...], tuple[Column, ...]]:
    """The columns (their positions, and the columns as shown) that fit ``width`` cells.

    Short headers first; then highest ``fold`` first: a column is cut down to its ``shrink``
    width, then left out if the table still does not fit; the columns that never fold are cut
    down last.
    """
    out = list(columns)
    shown = list(range(len(out)))

    def total() -> int:
        return sum(out[i].render_width for i in shown)

    if width > 0 and total() > width:
        out = [replace(c, label=c.short) if c.short is not None else c for c in out]

    def shrink(i: int) -> None:
        column = out[i]
        if column.shrink is not None and column.width > column.shrink:
            narrower = max(column.shrink, column.width - (total() - width))
            out[i] = replace(column, width=narrower)

    if width > 0:
        for _, i in sorted(((c.fold, i) for i, c in enumerate(out) if c.fold > 0), reverse=True):
            if total() <= width:
                break
            shrink(i)
            if total() > width:
                shown.remove(i)
        for i in range(len(out)):
            if total() <= width:
                break
            if out[i].fold == 0:
                shrink(i)
    return tuple(shown), tuple(out[i] for i in shown)
