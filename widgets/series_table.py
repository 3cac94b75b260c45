"""SeriesTable: the series of a metric report with their values and the five counts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable

from inspector.engine.render import REFERENCE_MARK, format_value
from inspector.engine.report import MetricReport, MetricSeries
from inspector.engine.vocabulary import COUNTS, Count, is_count
from widgets._table import ListTable, refresh_header
from widgets.literal import one_line

COUNT_COLUMNS: tuple[Count, ...] = COUNTS
SHORT_COUNTS = {
    "total": "Tot",
    "evaluated": "Eval",
    "error": "Err",
    "unavailable": "Unav",
    "invalidated": "Inv",
}
"""Count headers when the full ones do not fit (the help and the note spell them out)."""
DESCRIPTIONS = (
    ("Series", "series"),
    ("Label", "label"),
    ("Role", "role"),
    ("Reducer", "reducer"),
    ("Formula", "formula"),
    ("Value", "value"),
    ("95% CI", "interval"),
)
FOLD_ORDER = ("label", "formula", "role", "interval", "reducer")
"""The describing columns leave a narrow table in this order; the series id, its value and
the five counts never do. A folded role stays as a mark before the series id (``H`` headline,
``a`` auxiliary, under the header ``H/a Series``) and a folded interval as its bounds, rounded
outwards, after the value (``0.5469 .27–.83``)."""
ROLE_MARKS = {"headline": "H", "auxiliary": "a"}
COMPACT_CELLS = 8
"""Room kept after a value for its compact bounds (`` .27–.83``)."""
INTERVAL_CELLS = 16
"""Room kept for an interval not computed yet (``[0.2700, 0.8300]``)."""
REFERENCE_STYLE = "italic yellow"


def value_text(series: MetricSeries) -> Text:
    """The series value, or its reference value marked as such."""
    if series.value is not None:
        return Text(format_value(series.value, series), style="bold")
    if series.reference_value is not None:
        return Text(format_value(series.reference_value, series) + REFERENCE_MARK, REFERENCE_STYLE)
    return Text("-", "dim")


class SeriesTable(ListTable[Text]):
    """One row per series: id, label, role, reducer@k, formula, value, counts.

    A count cell opens the tasks behind that count.
    """

    HELP = """\
## Series
One row per series of the recomputed report. The value column shows the official value, or
the reference value (marked *reference*) when the evaluation failed; `95% CI` is its
interval (attempts of a task averaged first; see `inspector stats`).
Move to a count and press **enter** to list exactly the tasks behind it. On a narrow
terminal the role is a mark before the series id (`H` headline, `a` auxiliary) and the
interval its bounds after the value, rounded outwards (`0.5469 .27–.83`).
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
        count: Count

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="cell", zebra_stripes=True)
        self._series_ids: list[str] = []
        self._last_series: str | None = None
        self._report: MetricReport | None = None
        self._intervals: dict[str, str] = {}
        """The interval text of each series, kept for a table laid out again."""
        self._compact: dict[str, str] = {}
        """Each interval's compact bounds (``.27–.83``), shown after the value when the interval
        column is folded."""
        self._layout: tuple[frozenset[str], bool] = (frozenset(), False)
        """The folded columns and whether the count headers are short."""

    def on_mount(self) -> None:
        self._add_columns()

    def _add_columns(self) -> None:
        folded, short = self._layout
        for label, key in DESCRIPTIONS:
            if key not in folded:
                compact = key == "series" and "role" in folded
                self.add_column("H/a Series" if compact else label, key=key)
        for name in COUNT_COLUMNS:
            self.add_column(SHORT_COUNTS[name] if short else name.capitalize(), key=name)

    @property
    def folded(self) -> frozenset[str]:
        """The describing columns left out at this width."""
        return self._layout[0]

    def _fit(self, report: MetricReport, width: int) -> tuple[frozenset[str], bool]:
        """The columns to leave out so that the table fits ``width`` cells."""
        cells: dict[str, int] = {"series": 6, "label": 5, "role": 4, "reducer": 7,
                                 "formula": 7, "value": 5, "interval": INTERVAL_CELLS}  # fmt: skip
        for series in report.series:
            for key, text in (
                ("series", series.series_id),
                ("label", series.label),
                ("role", series.role),
                ("reducer", series.reducer_at_k),
                ("formula", series.aggregation),
                ("value", value_text(series).plain),
                ("interval", self._intervals.get(series.series_id, "")),
            ):
                cells[key] = max(cells[key], len(text))
        numbers = max((len(str(getattr(s.counts, n))) for s in report.series
                       for n in COUNT_COLUMNS), default=1)  # fmt: skip

        def needed(folded: set[str], short: bool) -> int:
            described = sum(w + 2 for k, w in cells.items() if k not in folded)
            described += 2 * ("role" in folded) + COMPACT_CELLS * ("interval" in folded)
            counts = sum(
                max(numbers, len(SHORT_COUNTS[n] if short else n)) + 2 for n in COUNT_COLUMNS
            )
            return described + counts + 2  # the scrollbar

        folded: set[str] = set()
        short = False
        for key in (None, *FOLD_ORDER):
            if key is not None:
                folded.add(key)
            if needed(folded, False) <= width:
                break
            if needed(folded, True) <= width:
                short = True
                break
        else:
            short = True
        return frozenset(folded), short

    def on_resize(self) -> None:
        report = self._report
        if (
            report is not None
            and self.size.width
            and self._fit(report, self.size.width) != self._layout
        ):
            self.show(report)

    @property
    def series_id(self) -> str | None:
        """The series under the cursor."""
        if not self._series_ids:
            return None
        return self._series_ids[min(self.cursor_row, len(self._series_ids) - 1)]

    @property
    def count(self) -> Count | None:
        """The count whose column the cursor is on (None on the other columns)."""
        if not self._series_ids:
            return None
        column = self.ordered_columns[self.cursor_column].key.value
        return column if is_count(column) else None

    def show(self, report: MetricReport) -> None:
        """Fill the table from ``report``, leaving out the describing columns that do not
        fit (see :data:`FOLD_ORDER`); the cursor keeps its series and column."""
        same = self._report is not None and [s.series_id for s in self._report.series] == [
            s.series_id for s in report.series
        ]
        keep = (
            (self.series_id, self.ordered_columns[self.cursor_column].key.value)
            if (same and self._series_ids and self.ordered_columns)
            else None
        )
        if report is not self._report:
            self._intervals = {}  # another report: its intervals are still to come
            self._compact = {}
        self._report = report
        layout = self._fit(report, self.size.width or 200)
        if layout != self._layout:
            self._layout = layout
            self.clear(columns=True)
            self._add_columns()
        else:
            self.clear()
        self._series_ids = [s.series_id for s in report.series]
        folded = self._layout[0]
        for series in report.series:
            counts = series.counts
            cells = {
                "series": self._series_cell(series),
                "label": one_line(series.label),
                "role": Text(series.role, "bold" if series.role == "headline" else "dim"),
                "reducer": Text(series.reducer_at_k),
                "formula": one_line(series.aggregation),
                "value": self._value_cell(series),
                "interval": self._interval_cell(series.series_id),
            }
            self.add_row(
                *(cell for key, cell in cells.items() if key not in folded),
                *(Text(str(getattr(counts, name)), justify="right") for name in COUNT_COLUMNS),
                key=series.series_id,
            )
        refresh_header(self)
        if not self._series_ids:
            return
        if keep is not None and keep[0] in self._series_ids:
            keys = [c.key.value for c in self.ordered_columns]
            column = keys.index(keep[1]) if keep[1] in keys else self.get_column_index("value")
            self.move_cursor(row=self._series_ids.index(keep[0]), column=column)
        else:
            self.move_cursor(row=0, column=self.get_column_index("value"))
        self._post_highlight()

    def _series_cell(self, series: MetricSeries) -> Text:
        """The series id, after its role's mark when the role column is folded."""
        if "role" not in self.folded:
            return one_line(series.series_id)
        mark = ROLE_MARKS.get(series.role, "?")
        return Text(mark + " ", "bold" if mark == "H" else "dim") + one_line(series.series_id)

    def _value_cell(self, series: MetricSeries) -> Text:
        """The value, and its interval's compact bounds when the interval column is folded."""
        text = value_text(series)
        compact = self._compact.get(series.series_id)
        if "interval" in self.folded and compact:
            text = text + Text(" " + compact, "dim")
        return text

    def _interval_cell(self, series_id: str) -> Text:
        text = self._intervals.get(series_id, "")
        return Text(text, "dim" if text in ("", "—") else "")

    def show_intervals(
        self, texts: Mapping[str, str], compact: Mapping[str, str] | None = None
    ) -> None:
        """Fill the interval column: series id → its text (``[0.27, 0.83]``, ``—``); kept
        when the column is folded at this width, shown when it fits again. When it is
        folded the value shows ``compact`` (``.27–.83``) instead."""
        self._intervals.update(texts)
        self._compact.update(compact or {})
        if "interval" in self.folded:
            if self._report is not None and compact:
                for series in self._report.series:
                    if series.series_id in compact and series.series_id in self._series_ids:
                        cell = self._value_cell(series)
                        self.update_cell(series.series_id, "value", cell, update_width=True)
                refresh_header(self)
            return
        for series_id in texts:
            if series_id in self._series_ids:
                cell = self._interval_cell(series_id)
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
        count: Count = column if is_count(column) else "total"
        self.post_message(self.CountChosen(self, series_id, count))
