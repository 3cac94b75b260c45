"""A note shared by the DataTable widgets."""

from __future__ import annotations

from typing import Any

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
