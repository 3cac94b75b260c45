"""TaskTable: one row per task for one series; sorting by any column."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable

from inspector.app.model import TaskRow
from widgets._table import refresh_header
from widgets.literal import one_line

COLUMNS: tuple[tuple[str, str], ...] = (
    ("task", "Task"),
    ("category", "Category"),
    ("state", "State"),
    ("value", "Value"),
    ("error", "has_error"),
    ("attempts", "Attempts"),
    ("severity", "Severity"),
    ("retries", "Retries"),
)

STATE_STYLES = {
    "evaluated": "green",
    "error": "bold red",
    "unavailable": "yellow",
    "invalidated": "bold magenta",
}
SEVERITY_STYLES = {"fatal": "bold magenta", "error": "red", "warning": "yellow"}


class TaskTable(DataTable[Text]):
    """Tasks of a run (virtualised: only the visible rows are rendered).

    **enter** opens a task; **s** sorts by the column under the cursor (again: reverse).
    """

    HELP = """\
## Tasks
One row per task: its state and value for the selected series, attempts recorded of k,
the most severe issue of any attempt, and retries.
**enter** opens the task, **s** sorts by the cursor's column (press again to reverse).
"""

    DEFAULT_CSS = """
    TaskTable {
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_task", "Open task", tooltip="Show the attempts of this task"),
        Binding("s", "sort_column", "Sort", tooltip="Sort by this column; again to reverse"),
    ]

    @dataclass
    class TaskChosen(Message):
        """The user opened a task."""

        table: TaskTable
        task_id: str

    @dataclass
    class SortRequested(Message):
        """The user asked to sort by a column (the owner re-sorts its rows)."""

        table: TaskTable
        column: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="cell", zebra_stripes=True)
        self._task_ids: list[str] = []

    def on_mount(self) -> None:
        for key, label in COLUMNS:
            self.add_column(label, key=key)

    @property
    def task_id(self) -> str | None:
        """The task under the cursor."""
        if not self._task_ids:
            return None
        return self._task_ids[min(self.cursor_row, len(self._task_ids) - 1)]

    @property
    def task_ids(self) -> list[str]:
        """The task ids shown, in display order."""
        return list(self._task_ids)

    def show(self, rows: Sequence[TaskRow], format_value: Callable[[float | None], str]) -> None:
        """Replace the rows, keeping the cursor column."""
        column = self.cursor_column
        self.clear()
        self._task_ids = [row.task_id for row in rows]
        self.add_rows(
            (
                one_line(row.task_id, max_chars=80),
                one_line(row.category, max_chars=40),
                Text(row.state, STATE_STYLES.get(row.state, "")),
                Text(format_value(row.value), justify="right"),
                Text("yes" if row.has_error else "", "red"),
                Text(row.attempts_text, justify="right"),
                Text(row.severity or "", SEVERITY_STYLES.get(row.severity or "", "")),
                Text(str(row.retries) if row.retries else "", justify="right"),
            )
            for row in rows
        )
        refresh_header(self)
        if rows:
            self.move_cursor(row=0, column=column)

    def action_open_task(self) -> None:
        task_id = self.task_id
        if task_id is not None:
            self.post_message(self.TaskChosen(self, task_id))

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self.action_open_task()

    def action_sort_column(self) -> None:
        self.post_message(self.SortRequested(self, COLUMNS[self.cursor_column][0]))

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self.post_message(self.SortRequested(self, COLUMNS[event.column_index][0]))
