"""One line of a :class:`~widgets.virtual_table.VirtualTable`: its cells cut and aligned to
their columns over the row's style, the cursor's cell (or row) on top, and the colour past
the last column, as ``DataTable`` draws them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.strip import Strip

from widgets.columns import PADDING, Column
from widgets.literal import cut_middle

CursorType = Literal["cell", "row"]


def row_strip(
    row: int,
    columns: Sequence[Column],
    cells: Sequence[Text],
    width: int,
    *,
    style: Style,
    cursor_type: CursorType,
    cursor_column: int | None,
    cursor_style: Style,
    console: Console,
    background: Callable[[], Color],
) -> Strip:
    """The ``width`` cells of ``row`` (-1: the header, read left as in DataTable) over the
    row's ``style``; ``cursor_column`` is the cursor's column when it is on this row (a row
    cursor covers every cell); ``background`` gives the table's, for the colour's fade."""
    on_cursor = cursor_column is not None
    segments: list[Segment] = []
    for index, (column, cell) in enumerate(zip(columns, cells, strict=False)):
        cursor = on_cursor and (cursor_type == "row" or index == cursor_column)
        cell_style = style + cursor_style if cursor else style
        post = Style.from_color(cursor_style.color, cursor_style.bgcolor) if cursor else None
        meta = Style.from_meta({"row": row, "column": index})
        justify = "left" if row < 0 else column.justify
        segments.extend(_cell_segments(cell, column, justify, cell_style + meta, post, console))
    # Past the last column, as in DataTable: a table with a row cursor runs each row's
    # colour (and the cursor's) on to the edge; with a cell cursor the colour fades.
    remaining = width - sum(column.render_width for column in columns)
    if remaining > 0:
        if cursor_type == "row":
            extend = style + cursor_style if on_cursor else style
        else:
            extend = _faded(style, background)
        segments.append(Segment(" " * remaining, extend))
    return Strip(segments).simplify()


def _faded(row_style: Style, background: Callable[[], Color]) -> Style:
    if row_style.bgcolor is None:
        return Style.from_color(row_style.color)
    faded = Color.from_rich_color(row_style.bgcolor).blend(background(), factor=0.25)
    return Style.from_color(row_style.color, faded.rich_color)


def _cell_segments(
    cell: Text,
    column: Column,
    justify: Literal["left", "right"],
    style: Style,
    post: Style | None,
    console: Console,
) -> list[Segment]:
    """One cell cut and aligned to its column, padded, over ``style`` (``post`` on top)."""
    text = cell.copy()
    content = column.render_width - 2 * PADDING
    if column.cut == "middle" and text.cell_len > content:
        text = cut_middle(text, content)
    text.truncate(content, overflow="ellipsis")
    text.align(justify, content)
    # Text.render leaves the text's own style (not its spans) to the caller.
    own = console.get_style(text.style, default=Style.null()) if text.style else Style.null()
    pad = Segment(" " * PADDING, style if post is None else style + post)
    inner = Segment.apply_style(text.render(console, end=""), style + own, post)
    return [pad, *inner, pad]
