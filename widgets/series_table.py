"""SeriesTable: the series of a metric report with their values and the five counts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable

from inspector.engine import MetricReport, MetricSeries
from inspector.engine.render import format_value
from widgets._table import refresh_header
from widgets.literal import one_line

COUNT_COLUMNS = ("total", "evaluated", "error", "unavailable", "invalidated")
REFERENCE_STYLE = "italic yellow"


def value_text(series: MetricSeries) -> Text:
    """The series value, or its reference value marked as such."""
    if series.value is not None:
        return Text(format_value(series.value, series), style="bold")
    if series.reference_value is not None:
        return Text(format_value(series.reference_value, series) + " (reference)", REFERENCE_STYLE)
    return Text("-", "dim")


class SeriesTable(DataTable[Text]):
    """One row per series: id, label, role, reducer@k, formula, value, counts.

    A count cell opens the tasks behind that count.
    """

    HELP = """\
## Series
One row per series of the recomputed report. The value column shows the official value, or
the reference value (marked *reference*) when the evaluation failed; `95% CI` is its
interval (attempts of a task averaged first; see `inspector stats`).
Move to a count and press **enter** to list exactly the tasks behind it.
"""

    DEFAULT_CSS = """
    SeriesTable {
        height: auto;
        max-height: 12;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter", "choose", "Open count", show=True, tooltip="List the tasks behind this cell"
        ),
    ]

    @dataclass
    class SeriesHighlighted(Message):
        """The cursor moved to another series."""

        table: SeriesTable
        series_id: str

    @dataclass
    class CountChosen(Message):
        """The user asked for the tasks behind one count of one series."""

        table: SeriesTable
        series_id: str
        count: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="cell", zebra_stripes=True)
        self._series_ids: list[str] = []
        self._last_series: str | None = None

    def on_mount(self) -> None:
        for label, key in (
            ("Series", "series"),
            ("Label", "label"),
            ("Role", "role"),
            ("Reducer", "reducer"),
            ("Formula", "formula"),
            ("Value", "value"),
            ("95% CI", "interval"),
        ):
            self.add_column(label, key=key)
        for name in COUNT_COLUMNS:
            self.add_column(name.capitalize(), key=name)

    @property
    def series_id(self) -> str | None:
        """The series under the cursor."""
        if not self._series_ids:
            return None
        return self._series_ids[min(self.cursor_row, len(self._series_ids) - 1)]

    @property
    def count(self) -> str | None:
        """The count whose column the cursor is on (None on the other columns)."""
        if not self._series_ids:
            return None
        column = self.ordered_columns[self.cursor_column].key.value
        return column if column in COUNT_COLUMNS else None

    def show(self, report: MetricReport) -> None:
        """Fill the table from ``report``."""
        self.clear()
        self._series_ids = [s.series_id for s in report.series]
        for series in report.series:
            counts = series.counts
            self.add_row(
                one_line(series.series_id),
                one_line(series.label),
                Text(series.role, "bold" if series.role == "headline" else "dim"),
                Text(series.reducer_at_k),
                one_line(series.aggregation),
                value_text(series),
                Text("", "dim"),
                *(Text(str(getattr(counts, name)), justify="right") for name in COUNT_COLUMNS),
                key=series.series_id,
            )
        refresh_header(self)
        if self._series_ids:
            self.move_cursor(row=0, column=self.get_column_index("value"))
            self._post_highlight()

    def show_intervals(self, texts: Mapping[str, str]) -> None:
        """Fill the interval column: series id → its text (``[0.27, 0.83]``, ``—``)."""
        for series_id, text in texts.items():
            if series_id in self._series_ids:
                cell = Text(text, "dim" if text == "—" else "")
                self.update_cell(series_id, "interval", cell, update_width=True)
        refresh_header(self)

    def select_series(self, series_id: str) -> None:
        if series_id in self._series_ids:
            self.move_cursor(row=self._series_ids.index(series_id))

    def _post_highlight(self) -> None:
        series_id = self.series_id
        if series_id is not None and series_id != self._last_series:
            self._last_series = series_id
            self.post_message(self.SeriesHighlighted(self, series_id))

    def on_data_table_cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        self._post_highlight()

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self.action_choose()

    def action_choose(self) -> None:
        series_id = self.series_id
        if series_id is None:
            return
        column = self.ordered_columns[self.cursor_column].key.value
        count = column if column in COUNT_COLUMNS else "total"
        self.post_message(self.CountChosen(self, series_id, count))
