"""VirtualTable: a table drawn a line at a time from a sequence of rows (Textual's Line API).

Nothing is built per row: the table holds the owner's sequence and a function that turns one
row into its cells, and renders only the rows on screen (about a screenful of lines, cached).
Replacing 50,000 rows costs as much as replacing 5. Column widths come from the owner, who
knows its rows (measuring every cell is what makes ``DataTable.add_rows`` slow).

It looks and moves like a ``DataTable`` with ``cursor_type="cell"`` or ``"row"``: a fixed
header, zebra stripes, the same keys, the same component classes' colours.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from widgets.columns import Column, fit_columns
from widgets.table_line import CursorType, row_strip

RowT = TypeVar("RowT")
CACHE_LINES = 512


class VirtualTable(ScrollView, Generic[RowT], can_focus=True):
    """Rows of any sequence, rendered on demand. Subclasses set the columns and cells."""

    DEFAULT_CSS = """
    VirtualTable {
        background: $surface;
        color: $foreground;
        height: 1fr;
        &:focus {
            background-tint: $foreground 5%;
            & > .virtual-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .virtual-table--header {
                background-tint: $foreground 5%;
            }
        }
        &:dark > .virtual-table--even-row {
            background: $surface-darken-1 40%;
        }
        & > .virtual-table--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        & > .virtual-table--even-row {
            background: $surface-lighten-1 50%;
        }
        & > .virtual-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .virtual-table--header-cursor {
            background: $accent-darken-1;
            color: $foreground;
        }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "virtual-table--header",
        "virtual-table--cursor",
        "virtual-table--header-cursor",
        "virtual-table--even-row",
        "virtual-table--odd-row",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Cursor up", show=False),
        Binding("down", "cursor_down", "Cursor down", show=False),
        Binding("left", "cursor_left", "Cursor left", show=False),
        Binding("right", "cursor_right", "Cursor right", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("ctrl+home", "first_row", "Top", show=False),
        Binding("ctrl+end", "last_row", "Bottom", show=False),
        Binding("home", "first_row", "First row", show=False),
        Binding("end", "last_row", "Last row", show=False),
        Binding("enter", "select_cursor", "Select", show=False),
    ]

    header_height = 1

    @dataclass
    class CursorMoved(Message):
        """The cursor moved to another row or column."""

        table: VirtualTable[object]
        row: int
        column: int

        @property
        def control(self) -> VirtualTable[object]:
            return self.table

    @dataclass
    class Selected(Message):
        """The user pressed enter on (or clicked) the cursor's cell."""

        table: VirtualTable[object]
        row: int
        column: int

        @property
        def control(self) -> VirtualTable[object]:
            return self.table

    @dataclass
    class HeaderSelected(Message):
        """The user clicked a column header."""

        table: VirtualTable[object]
        column: int

        @property
        def control(self) -> VirtualTable[object]:
            return self.table

    def __init__(
        self,
        columns: Sequence[Column] = (),
        *,
        cursor_type: CursorType = "cell",
        zebra_stripes: bool = True,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.cursor_type: CursorType = cursor_type
        self.zebra_stripes = zebra_stripes
        self._all_columns: tuple[Column, ...] = tuple(columns)
        self._columns: tuple[Column, ...] = tuple(columns)
        self._shown: tuple[int, ...] = tuple(range(len(self._columns)))
        self._rows: Sequence[RowT] = ()
        self._row_cells: Callable[[RowT], Sequence[Text]] = lambda row: ()
        self._cursor = (0, 0)
        self._lines: dict[tuple[int, int], Strip] = {}
        self._base_style = Style()
        self._update_size()

    # What the table shows.
    @property
    def columns(self) -> tuple[Column, ...]:
        """The columns on screen (some may be folded away or shrunk: see :class:`Column`)."""
        return self._columns

    @property
    def folded(self) -> tuple[Column, ...]:
        """The columns left out because the table is too narrow for them."""
        return tuple(c for i, c in enumerate(self._all_columns) if i not in self._shown)

    @property
    def rows(self) -> Sequence[RowT]:
        """The rows shown, in display order (the owner's sequence, not a copy)."""
        return self._rows

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def set_columns(self, columns: Sequence[Column]) -> None:
        self._all_columns = tuple(columns)
        self._fit()

    def _fit(self) -> None:
        """Choose the columns that fit the width: shrink, then fold (see :class:`Column`)."""
        width = self.scrollable_content_region.width or self.size.width
        key = self._columns[self.cursor_column].key if self._columns else None
        shown, columns = fit_columns(self._all_columns, width)
        self._shown = tuple(shown)
        self._columns = columns
        keys = [c.key for c in self._columns]
        if key in keys:
            self._cursor = (self._cursor[0], keys.index(key))
        else:
            self._cursor = (self._cursor[0], min(self._cursor[1], max(0, len(keys) - 1)))
        self._changed()

    def set_rows(
        self, rows: Sequence[RowT], cells: Callable[[RowT], Sequence[Text]] | None = None
    ) -> None:
        """Show ``rows``; ``cells(row)`` makes one row's cells (called for visible rows only).

        The cursor keeps its column and goes back to the first row.
        """
        self._rows = rows
        if cells is not None:
            self._row_cells = cells
        self._cursor = (0, self._cursor[1])
        self._changed()
        self.scroll_to(y=0, animate=False)

    def get_column_index(self, key: str) -> int:
        for index, column in enumerate(self._columns):
            if column.key == key:
                return index
        raise KeyError(key)

    def get_cell_at(self, coordinate: tuple[int, int]) -> Text:
        """The cell at (row, column), as rendered (``DataTable.get_cell_at``)."""
        row, column = coordinate
        return self._row_cells(self._rows[row])[self._shown[column]]

    # The cursor.
    @property
    def cursor_row(self) -> int:
        return self._cursor[0]

    @property
    def cursor_column(self) -> int:
        return self._cursor[1]

    @property
    def cursor_coordinate(self) -> tuple[int, int]:
        return self._cursor

    def move_cursor(
        self, *, row: int | None = None, column: int | None = None, scroll: bool = True
    ) -> None:
        """Move the cursor (clamped to the table) and keep it on screen."""
        old = self._cursor
        new_row = old[0] if row is None else row
        new_column = old[1] if column is None else column
        new_row = max(0, min(new_row, len(self._rows) - 1))
        new_column = max(0, min(new_column, len(self._columns) - 1))
        self._cursor = (new_row, new_column)
        if scroll:
            self._scroll_to_cursor()
        if self._cursor != old:
            self._refresh_row(old[0])
            self._refresh_row(new_row)
            self.post_message(self.CursorMoved(self, new_row, new_column))  # type: ignore[arg-type]

    def _scroll_to_cursor(self) -> None:
        row, column = self._cursor
        visible = max(1, self.scrollable_content_region.height - self.header_height)
        top = round(self.scroll_y)
        y: int | None = None
        if row < top:
            y = row
        elif row >= top + visible:
            y = row - visible + 1
        left = sum(c.render_width for c in self._columns[:column])
        right = left + (self._columns[column].render_width if self._columns else 0)
        width = self.scrollable_content_region.width
        x: int | None = None
        if self.cursor_type == "cell":
            if left < self.scroll_x:
                x = left
            elif right > self.scroll_x + width:
                x = right - width
        if x is not None or y is not None:
            self.scroll_to(x=x, y=y, animate=False)

    def _refresh_row(self, row: int) -> None:
        y = row - round(self.scroll_y) + self.header_height
        if 0 <= y < self.size.height:
            self.refresh_line(y + round(self.scroll_y))

    # Actions.
    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - self.header_height)

    def action_cursor_up(self) -> None:
        self.move_cursor(row=self.cursor_row - 1)

    def action_cursor_down(self) -> None:
        self.move_cursor(row=self.cursor_row + 1)

    def action_cursor_left(self) -> None:
        self.move_cursor(column=self.cursor_column - 1)

    def action_cursor_right(self) -> None:
        self.move_cursor(column=self.cursor_column + 1)

    def action_page_up(self) -> None:
        self.move_cursor(row=self.cursor_row - self._page())

    def action_page_down(self) -> None:
        self.move_cursor(row=self.cursor_row + self._page())

    def action_first_row(self) -> None:
        self.move_cursor(row=0)

    def action_last_row(self) -> None:
        self.move_cursor(row=len(self._rows) - 1)

    def action_first_column(self) -> None:
        self.move_cursor(column=0)

    def action_last_column(self) -> None:
        self.move_cursor(column=len(self._columns) - 1)

    def action_select_cursor(self) -> None:
        if self._rows:
            row, column = self._cursor
            self.post_message(self.Selected(self, row, column))  # type: ignore[arg-type]

    async def _on_click(self, event: events.Click) -> None:
        meta = event.style.meta
        if "row" not in meta or "column" not in meta:
            return
        event.stop()
        row, column = int(meta["row"]), int(meta["column"])
        if row < 0:
            self.post_message(self.HeaderSelected(self, column))  # type: ignore[arg-type]
        elif (row, column if self.cursor_type == "cell" else self.cursor_column) == self._cursor:
            self.action_select_cursor()
        else:
            self.move_cursor(row=row, column=column)

    # Rendering.
    def _changed(self) -> None:
        self._lines.clear()
        self._update_size()
        self.refresh()

    def _update_size(self) -> None:
        width = sum(column.render_width for column in self._columns)
        self.virtual_size = Size(width, len(self._rows) + self.header_height)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines.clear()

    def _on_focus(self, event: events.Focus) -> None:
        self._lines.clear()

    def _on_blur(self, event: events.Blur) -> None:
        self._lines.clear()

    def _on_resize(self, event: events.Resize) -> None:
        self._lines.clear()
        self._fit()

    def render_lines(self, crop: Region) -> list[Strip]:
        # The widget's own style walks its ancestors: work it out once per update.
        self._base_style = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        base = self._base_style
        if y < self.header_height:
            strip = self._line(-1)
        else:
            row = scroll_y + y - self.header_height
            if row >= len(self._rows):
                return Strip.blank(width, base)
            strip = self._line(row)
        return strip.crop_extend(scroll_x, scroll_x + width, base)

    def _line(self, row: int) -> Strip:
        """The full-width line of ``row`` (-1: the header), cached until something changes."""
        cursor_row, cursor_column = self._cursor
        on_cursor = row == cursor_row and row >= 0
        key = (row, cursor_column if on_cursor else -1)
        strip = self._lines.get(key)
        if strip is not None:
            return strip
        if len(self._lines) > CACHE_LINES:
            self._lines.clear()
        base = self._base_style
        if row < 0:
            cells: Sequence[Text] = [Text(column.label) for column in self._columns]
            style = base + self.get_component_rich_style("virtual-table--header")
        else:
            every = self._row_cells(self._rows[row])
            cells = [every[i] for i in self._shown if i < len(every)]
            stripe = "virtual-table--odd-row" if row % 2 else "virtual-table--even-row"
            style = base + (
                self.get_component_rich_style(stripe) if self.zebra_stripes else Style()
            )
        cursor_style = self.get_component_rich_style("virtual-table--cursor")
        strip = row_strip(
            row, self._columns, cells, self.size.width,
            style=style, cursor_type=self.cursor_type,
            cursor_column=cursor_column if on_cursor else None, cursor_style=cursor_style,
            console=self.app.console, background=lambda: self.background_colors[1],
        )  # fmt: skip
        self._lines[key] = strip
        return strip

