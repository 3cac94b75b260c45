"""What the DataTable widgets share: a header redraw, and keys that move the cursor."""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.widgets import DataTable


def refresh_header(table: DataTable[Any]) -> None:
    """Re-render the header once new rows have widened the columns.

    Textual 8.2.8 can keep a header row rendered while the table was still empty (for
    example during loading) with the old column widths; clearing the render caches after
    the next refresh redraws it at the widths the rows need.
    """

    def redraw() -> None:
        table._clear_caches()
        table.refresh()

    table.call_after_refresh(redraw)


CellT = TypeVar("CellT")


class ListTable(DataTable[CellT]):
    """A DataTable whose ``home`` / ``end`` move the cursor to the first / last row, as
    PgUp / PgDn move it a page (Textual's move only the view sideways, leaving the cursor
    and the line that follows it behind)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "First row", show=False),
        Binding("end", "scroll_bottom", "Last row", show=False),
    ]
