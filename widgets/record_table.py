"""RecordTable: a virtual table whose columns are fields of the rows (task lists of any size).

Each :class:`Field` names a column and says how to read its text from a row; the text is shown
with :func:`widgets.literal.one_line`, so result-file strings are never markup and never drive
the terminal. Column widths are measured once over every row, without building a ``Text`` per
cell (plain printable ASCII is measured by its length).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Literal

from rich.text import Text

from widgets.literal import one_line
from widgets.virtual_table import Column, RowT, VirtualTable


def shown_width(text: str, max_chars: int) -> int:
    """Cells ``one_line(text, max_chars=...)`` takes (plain ASCII is measured without it)."""
    if text.isascii() and text.isprintable() and len(text) <= max_chars:
        return len(text)
    return one_line(text, max_chars=max_chars).cell_len


@dataclass(frozen=True)
class Field(Generic[RowT]):
    """One column: its key and label, and the text (and Rich style) of a row's cell."""

    key: str
    label: str
    text: Callable[[RowT], str]
    max_chars: int = 200
    justify: Literal["left", "right"] = "left"
    style: Callable[[RowT], str] | None = None
    fold: int = 0
    """When the column gives way on a narrow screen (0: never; see ``Column``)."""
    shrink: int | None = None
    """How narrow the column may be cut before columns fold."""
    cut: Literal["end", "middle"] = "end"
    short: str | None = None
    """A shorter header, for a screen too narrow for the full ones."""

    def cell(self, row: RowT) -> Text:
        text = one_line(self.text(row), max_chars=self.max_chars)
        if self.style is not None:
            text.stylize(self.style(row))
        return text


def field_columns(fields: Sequence[Field[RowT]], rows: Sequence[RowT]) -> tuple[Column, ...]:
    """Columns as wide as the widest cell of each field over ``rows``."""
    return tuple(
        Column(
            field.key,
            field.label,
            max((shown_width(field.text(row), field.max_chars) for row in rows), default=0),
            field.justify,
            fold=field.fold,
            shrink=field.shrink,
            cut=field.cut,
            short=field.short,
        )
        for field in fields
    )


class RecordTable(VirtualTable[RowT]):
    """Rows shown through a list of :class:`Field`."""

    DEFAULT_CSS = """
    RecordTable {
        height: 1fr;
    }
    """

    def __init__(
        self,
        fields: Sequence[Field[RowT]],
        *,
        cursor_type: Literal["cell", "row"] = "row",
        zebra_stripes: bool = False,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        self.fields = tuple(fields)
        super().__init__(
            field_columns(self.fields, ()),
            cursor_type=cursor_type,
            zebra_stripes=zebra_stripes,
            id=id,
            classes=classes,
        )

    def show(
        self,
        rows: Sequence[RowT],
        fields: Sequence[Field[RowT]] | None = None,
        columns: Sequence[Column] | None = None,
    ) -> None:
        """Show ``rows`` (through new ``fields``, if given); ``columns`` (from
        :func:`field_columns`) saves measuring them again."""
        if fields is not None:
            self.fields = tuple(fields)
        self.set_columns(columns if columns is not None else field_columns(self.fields, rows))
        self.set_rows(rows, self._cells)

    def _cells(self, row: RowT) -> tuple[Text, ...]:
        return tuple(field.cell(row) for field in self.fields)

    def texts(self) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
        """Headers and the full text of every field of every row shown (for an export)."""
        headers = tuple(field.label for field in self.fields)
        return headers, tuple(tuple(field.text(row) for field in self.fields) for row in self.rows)

    @property
    def cursor_item(self) -> RowT | None:
        """The row under the cursor."""
        if not self.rows:
            return None
        return self.rows[min(self.cursor_row, len(self.rows) - 1)]

    def copy_text(self, row: bool, key: Callable[[RowT], str]) -> str | None:
        """What ``y`` / ``Y`` copy: ``key`` of the row under the cursor (its id), or the
        whole row's fields tab-separated (None: no rows)."""
        item = self.cursor_item
        if item is None:
            return None
        return "\t".join(field.text(item) for field in self.fields) if row else key(item)
