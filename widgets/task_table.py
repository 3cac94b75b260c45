"""TaskTable: one row per task for one series; sorting by any column.

A :class:`~widgets.virtual_table.VirtualTable`: it holds the screen's list of rows and draws
only the ones on screen, so 50,000 tasks are shown, re-sorted and re-filtered as fast as 50.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message

from inspector.views.tasks import TaskRow
from widgets.literal import one_line
from widgets.record_table import shown_width
from widgets.virtual_table import Column, VirtualTable

TASK_CHARS = 80
CATEGORY_CHARS = 40

COLUMNS: tuple[tuple[str, str], ...] = (
    ("task", "Task"),
    ("category", "Category"),
    ("state", "State"),
    ("outcomes", "Attempts"),
    ("value", "Value"),
    ("reduction", "Reduction"),
    ("error", "has_error"),
    ("attempts", "Recorded"),
    ("severity", "Severity"),
    ("retries", "Retries"),
)
RIGHT = frozenset({"value", "attempts", "retries"})
FOLD = {
    "attempts": 9,
    "reduction": 7,
    "severity": 6,
    "error": 5,
    "category": 3,
    "outcomes": 2,
}
"""Which columns give way first on a narrow screen: the task, its state, value and retries
never (ids, values and counts stay); "Recorded" (2/3) first, the marks say the same."""
SHRINK = {"task": 18, "category": 14, "reduction": 22}
"""Columns cut down (task ids and categories in the middle) before any column folds."""
REDUCTION_CHARS = 60

STATE_STYLES = {
    "evaluated": "green",
    "error": "bold red",
    "unavailable": "yellow",
    "invalidated": "bold magenta",
}
SEVERITY_STYLES = {"fatal": "bold magenta", "error": "red", "warning": "yellow"}

FormatValue = Callable[[float | None], str]

MARK_STYLES = {"✓": "green", "✗": "red", "!": "bold red", "◐": "yellow", "·": "dim", "?": "yellow"}


def marks_text(marks: str) -> Text:
    """The per-attempt marks, each in its colour."""
    text = Text()
    for mark in marks:
        text.append(mark, MARK_STYLES.get(mark, ""))
    return text


def task_columns(rows: Sequence[TaskRow], format_value: FormatValue) -> tuple[Column, ...]:
    """Columns wide enough for every row of ``rows`` (call from a worker for large runs).

    Measured over all the rows of a series, so the columns keep their widths while the rows
    are filtered and sorted.
    """
    widths = dict.fromkeys((key for key, _ in COLUMNS), 0)
    widths["task"] = max((shown_width(row.task_id, TASK_CHARS) for row in rows), default=0)
    widths["category"] = max((shown_width(row.category, CATEGORY_CHARS) for row in rows), default=0)
    widths["state"] = max((len(row.state) for row in rows), default=0)
    widths["outcomes"] = max((len(row.marks) for row in rows), default=0)
    widths["reduction"] = max((shown_width(row.words, REDUCTION_CHARS) for row in rows), default=0)
    widths["value"] = max((cell_len(format_value(row.value)) for row in rows), default=0)
    widths["error"] = 3 if any(row.has_error for row in rows) else 0
    widths["attempts"] = max((len(row.attempts_text) for row in rows), default=0)
    widths["severity"] = max((len(row.severity or "") for row in rows), default=0)
    widths["retries"] = max((len(str(row.retries)) for row in rows if row.retries), default=0)
    return tuple(
        Column(
            key,
            label,
            widths[key],
            "right" if key in RIGHT else "left",
            fold=FOLD.get(key, 0),
            shrink=SHRINK.get(key),
            cut="middle" if key in ("task", "category") else "end",
        )
        for key, label in COLUMNS
    )


class TaskTable(VirtualTable[TaskRow]):
    """Tasks of a run (virtualised: only the visible rows are rendered).

    **enter** opens a task; **s** sorts by the column under the cursor (again: reverse).
    """

    HELP = """\
## Tasks
One row per task: its state and value for the selected series, one mark per attempt
(✓ passed, ✗ failed, ◐ partial, · not run or early stop, ! an ERROR/FATAL issue,
? no observation), the reduction in words (`mean(0, 1, 1) = 0.6667`), attempts recorded
of k, the most severe issue of any attempt, and retries. On a narrow screen the columns
further right fold away first; the line under the table shows the cursor's task in full.
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
        super().__init__(
            [Column(key, label, 0) for key, label in COLUMNS],
            cursor_type="cell",
            zebra_stripes=True,
            id=id,
        )
        self._format_value: FormatValue = lambda value: "-" if value is None else str(value)

    @property
    def task_id(self) -> str | None:
        """The task under the cursor."""
        if not self.rows:
            return None
        return self.rows[min(self.cursor_row, len(self.rows) - 1)].task_id

    def task_id_at(self, row: int) -> str:
        """The task shown on ``row`` (display order)."""
        return self.rows[row].task_id

    @property
    def task_ids(self) -> list[str]:
        """The task ids shown, in display order."""
        return [row.task_id for row in self.rows]

    def show(
        self,
        rows: Sequence[TaskRow],
        format_value: FormatValue,
        columns: Sequence[Column] | None = None,
    ) -> None:
        """Replace the rows, keeping the cursor column.

        ``columns`` (from :func:`task_columns` over every row of the series) keeps the widths
        steady across filters; without it they are measured on ``rows``.
        """
        self._format_value = format_value
        self.set_columns(columns if columns is not None else task_columns(rows, format_value))
        self.set_rows(rows, self._cells)

    def _cells(self, row: TaskRow) -> tuple[Text, ...]:
        return (
            one_line(row.task_id, max_chars=TASK_CHARS),
            one_line(row.category, max_chars=CATEGORY_CHARS),
            Text(row.state, STATE_STYLES.get(row.state, "")),
            marks_text(row.marks),
            Text(self._format_value(row.value)),
            one_line(row.words, max_chars=REDUCTION_CHARS),
            Text("yes" if row.has_error else "", "red"),
            Text(row.attempts_text),
            Text(row.severity or "", SEVERITY_STYLES.get(row.severity or "", "")),
            Text(str(row.retries) if row.retries else ""),
        )

    def texts(self) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
        """Headers and full cell texts of every row shown, folded columns included."""
        headers = tuple(label for _, label in COLUMNS)
        return headers, tuple(
            (
                row.task_id,
                row.category,
                row.state,
                row.marks,
                self._format_value(row.value),
                row.words,
                "yes" if row.has_error else "",
                row.attempts_text,
                row.severity or "",
                str(row.retries) if row.retries else "",
            )
            for row in self.rows
        )

    def action_open_task(self) -> None:
        task_id = self.task_id
        if task_id is not None:
            self.post_message(self.TaskChosen(self, task_id))

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        self.action_open_task()

    def action_sort_column(self) -> None:
        if self.columns:
            self.post_message(self.SortRequested(self, self.columns[self.cursor_column].key))

    def on_virtual_table_header_selected(self, event: VirtualTable.HeaderSelected) -> None:
        event.stop()
        self.post_message(self.SortRequested(self, self.columns[event.column].key))
