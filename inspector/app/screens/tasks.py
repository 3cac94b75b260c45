"""Tasks of a run for one series, filtered and sorted.

The rows of a series are built once, in a worker, into a :class:`TaskIndex` shared by every
tasks screen of the run (:meth:`InspectorApp.task_indexes`); filtering and sorting then take
milliseconds and happen in the message handlers, even for 50,000 tasks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Header, Input, Static
from textual.worker import get_current_worker

from inspector import loading
from inspector.app.host import InspectorScreen, host_of
from inspector.app.navigation import OpenTask
from inspector.app.table_export import Table
from inspector.app.titles import place, plural, session_title
from inspector.engine.render import format_value
from inspector.session import Session
from inspector.views.audit import InCount
from inspector.views.task_index import TaskIndex, TaskIndexes
from inspector.views.tasks import (
    COUNT_MEANINGS,
    COUNTS_NOTE,
    COUNTS_NOTE_SHORT,
    TaskFilter,
    TaskRow,
    issue_choices,
)
from widgets.filter_input import FilterInput
from widgets.key_footer import KeyFooter
from widgets.literal import one_line
from widgets.task_filter_bar import TaskFilterBar
from widgets.task_table import FormatValue, TaskTable, marks_text, task_columns
from widgets.virtual_table import Column, VirtualTable

MARK_WORDS = {"✓": "passed", "✗": "failed", "◐": "partial", "·": "not run",
              "!": "ERROR/FATAL issue", "?": "no observation"}  # fmt: skip
"""The legend of the attempt marks on screen (:mod:`inspector.views.outcomes` says each
mark's meaning in full)."""


class TasksScreen(InspectorScreen):
    """Every task of the run with its state for one series; filters and sorting."""

    HELP = """\
# Tasks
Each row is one task with its state and value for the selected series. Filters narrow the
list; opening a count from the overview lands here filtered to exactly its tasks.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "slash",
            "focus_text",
            "Find",
            tooltip="Filter as you type (id, category, reason, issue code); enter opens the "
            "first match, escape clears",
        ),
        Binding("ctrl+f", "focus_filters", "Filters", tooltip="Move to the filter bar"),
    ]

    EXPORTS = COPIES = True
    AUTO_FOCUS = "TaskTable"
    """The table, once its rows are built (nothing else meanwhile: see ``_index_ready``)."""

    @dataclass
    class IndexReady(Message):
        """The rows of a series were built (in a worker), with column widths for all of them."""

        series_id: str
        index: TaskIndex
        columns: tuple[Column, ...]

    def __init__(self, session: Session, task_filter: TaskFilter) -> None:
        super().__init__()
        assert session.recomputation is not None
        self.session = session
        self.task_filter = task_filter
        self.sort_column: str | None = None
        self.sort_reverse = False
        self.shown: list[TaskRow] = []
        self.total = 0
        """Tasks of the series, before filtering."""
        self._columns: dict[str, tuple[Column, ...]] = {}
        self._own_indexes: TaskIndexes | None = None
        """The task rows when no inspector app shares them (a bare test app)."""

    def shown_sessions(self) -> tuple[Session, ...]:
        return (self.session,)

    @property
    def task_table(self) -> TaskTable:
        return self.query_one(TaskTable)

    @property
    def filter_bar(self) -> TaskFilterBar:
        return self.query_one(TaskFilterBar)

    @property
    def note(self) -> Static:
        return self.query_one("#tasks-note", Static)

    @property
    def indexes(self) -> TaskIndexes:
        rec = self.session.recomputation
        assert rec is not None
        host = host_of(self)
        if host is not None:
            return host.task_indexes(rec)
        if self._own_indexes is None or self._own_indexes.recomputation is not rec:
            self._own_indexes = TaskIndexes(rec)
        return self._own_indexes

    def compose(self) -> ComposeResult:
        rec = self.session.recomputation
        assert rec is not None
        yield Header()
        yield TaskFilterBar(
            [s.series_id for s in rec.report.series], issue_choices(rec), self.task_filter
        )
        yield Static(id="tasks-note")
        yield TaskTable()
        yield Static(id="tasks-cursor", classes="cursor-line")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = session_title(self.session)
        self.sub_title = place("tasks", self.task_filter.series_id)
        self.refresh_rows()
        self.task_table.focus()

    def format_value(self) -> FormatValue:
        """How the series of the filter formats a task value."""
        rec = self.session.recomputation
        assert rec is not None
        series = rec.report.series_by_id(self.task_filter.series_id)
        return lambda value: format_value(value, series)

    def refresh_rows(self) -> None:
        """Apply the filter and sort, and show the rows (once the series' rows are built)."""
        series_id = self.task_filter.series_id
        index = self.indexes.get(series_id)
        columns = self._columns.get(series_id)
        if index is None or columns is None:
            self.task_table.loading = True
            self.note.update(Text(f"Reading the tasks of {series_id}…", "dim"))
            self._build(self.indexes, series_id, self.format_value())
            return
        self.task_table.loading = False
        self.total = len(index)
        self.shown = index.select(self.task_filter, self.sort_column, self.sort_reverse)
        self.task_table.show(self.shown, self.format_value(), columns)
        self._show_note()
        self._show_cursor()

    @on(VirtualTable.CursorMoved)
    def _cursor_moved(self, message: VirtualTable.CursorMoved) -> None:
        self._show_cursor()

    def _show_cursor(self) -> None:
        """The task under the cursor in full: id, category, reduction, attempt marks."""
        table = self.task_table
        line = Text()
        if self.shown:
            row = self.shown[min(table.cursor_row, len(self.shown) - 1)]
            line.append_text(one_line(row.task_id, max_chars=200))
            line.append(" · ", "dim")
            line.append_text(one_line(row.category, max_chars=120))
            line.append(" · ", "dim")
            line.append_text(marks_text(row.marks))
            line.append(" · ", "dim")
            line.append_text(one_line(row.words, max_chars=200))
            if table.folded:
                line.append("  (folded: " + ", ".join(c.label for c in table.folded) + ")", "dim")
        self.query_one("#tasks-cursor", Static).update(line)

    @work(thread=True, exclusive=True, exit_on_error=False, group="task-index",
          description="task rows")  # fmt: skip
    def _build(self, indexes: TaskIndexes, series_id: str, format_value: FormatValue) -> None:
        with loading.collector_paused():
            index = indexes.build(series_id)
        columns = task_columns(index.rows, format_value)
        if not get_current_worker().is_cancelled:
            self.post_message(self.IndexReady(series_id, index, columns))

    @on(IndexReady)
    def _index_ready(self, message: IndexReady) -> None:
        self._columns[message.series_id] = message.columns
        if message.series_id == self.task_filter.series_id:
            self.refresh_rows()
            if self.focused is None:  # a loading table cannot take the focus on mount
                self.task_table.focus()

    def _show_note(self) -> None:
        task_filter = self.task_filter
        note = Text()
        note.append(f"{len(self.shown)} of {plural(self.total, 'task')}", "bold")
        note.append(" · ")
        note.append(task_filter.describe())
        if isinstance(task_filter.state, InCount):
            count = task_filter.state.count
            note.append(f"\ncount {count}: {COUNT_MEANINGS[count]}")
        if self.sort_column:
            note.append(
                f" · sorted by {self.sort_column}{' (reversed)' if self.sort_reverse else ''}"
            )
        note.append("\n" + (COUNTS_NOTE if self.size.width >= 120 else COUNTS_NOTE_SHORT), "dim")
        marks = {mark for row in self.shown for mark in row.marks}
        if marks:
            note.append("\nattempts: ", "dim")
            note.append(" ".join(f"{m} {w}" for m, w in MARK_WORDS.items() if m in marks), "dim")
        self.note.update(note)

    @on(TaskFilterBar.Changed)
    def _filter_changed(self, message: TaskFilterBar.Changed) -> None:
        if message.task_filter.text != self.task_filter.text:
            self.task_table.move_cursor(row=0)  # the first match: what enter opens
        self.task_filter = message.task_filter
        self.sub_title = place("tasks", self.task_filter.series_id)
        self.refresh_rows()

    @on(TaskTable.SortRequested)
    def _sort(self, message: TaskTable.SortRequested) -> None:
        if self.sort_column == message.column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = message.column, False
        self.refresh_rows()

    @on(TaskTable.TaskChosen)
    def _task_chosen(self, message: TaskTable.TaskChosen) -> None:
        self.post_message(OpenTask(self.session, message.task_id, self.task_filter.series_id))

    def export_table(self) -> Table:
        """The rows on screen, every column (x)."""
        headers, rows = self.task_table.texts()
        return Table(f"tasks-{self.task_filter.series_id}", headers, rows)

    def copy_text(self, row: bool = False) -> str | None:
        """The task id under the cursor, or (``row``) its whole row tab-separated."""
        table = self.task_table
        if not self.shown:
            return None
        _, rows = table.texts() if row else ((), ())
        index = min(table.cursor_row, len(self.shown) - 1)
        return "\t".join(rows[index]) if row else self.shown[index].task_id

    def action_focus_filters(self) -> None:
        self.filter_bar.query("Select").first().focus()

    def action_focus_text(self) -> None:
        self.filter_bar.query_one(FilterInput).focus()

    @on(Input.Submitted, "FilterInput")
    def _open_first(self) -> None:
        """``enter`` in the text filter: the task under the cursor (the first match)."""
        if self.shown:
            row = self.shown[min(self.task_table.cursor_row, len(self.shown) - 1)]
            self.post_message(OpenTask(self.session, row.task_id, self.task_filter.series_id))
        else:
            self.notify("No task matches the filter.", severity="warning", timeout=3)

    @on(FilterInput.Cleared)
    @on(FilterInput.Left)
    def _text_cleared(self) -> None:
        self.task_table.focus()

    def refresh_session(self, replaced: Session, session: Session) -> None:
        """The run was reloaded: show the same filter on the new recomputation."""
        if self.session is not replaced or session.recomputation is None:
            return
        self.session = session
        self._columns.clear()
        ids = {s.series_id for s in session.recomputation.report.series}
        if self.task_filter.series_id not in ids:
            self.task_filter = self.task_filter.with_changes(
                series_id=session.recomputation.report.summary_series.series_id
            )
        self.refresh_rows()
