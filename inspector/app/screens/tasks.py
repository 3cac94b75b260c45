"""Tasks of a run for one series, filtered and sorted."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from inspector.app.model import (
    COUNT_MEANINGS,
    COUNTS_NOTE,
    TaskFilter,
    TaskRow,
    filter_rows,
    issue_choices,
    sort_rows,
    task_rows,
)
from inspector.engine.render import format_value
from inspector.session import Session
from widgets.task_filter_bar import TaskFilterBar
from widgets.task_table import TaskTable


class TasksScreen(Screen[None]):
    """Every task of the run with its state for one series; filters and sorting."""

    HELP = """\
# Tasks
Each row is one task with its state and value for the selected series. Filters narrow the
list; opening a count from the overview lands here filtered to exactly its tasks.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+f", "focus_filters", "Filters", tooltip="Move to the filter bar"),
    ]

    def __init__(self, session: Session, task_filter: TaskFilter) -> None:
        super().__init__()
        assert session.recomputation is not None
        self.session = session
        self.task_filter = task_filter
        self.sort_column: str | None = None
        self.sort_reverse = False
        self._rows: dict[str, list[TaskRow]] = {}
        self.shown: list[TaskRow] = []

    @property
    def task_table(self) -> TaskTable:
        return self.query_one(TaskTable)

    @property
    def filter_bar(self) -> TaskFilterBar:
        return self.query_one(TaskFilterBar)

    @property
    def note(self) -> Static:
        return self.query_one("#tasks-note", Static)

    def compose(self) -> ComposeResult:
        rec = self.session.recomputation
        assert rec is not None
        yield Header()
        yield TaskFilterBar(
            [s.series_id for s in rec.report.series], issue_choices(rec), self.task_filter
        )
        yield Static(id="tasks-note")
        yield TaskTable()
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "tasks"
        self.refresh_rows()
        self.task_table.focus()

    def rows_for(self, series_id: str) -> list[TaskRow]:
        if series_id not in self._rows:
            rec = self.session.recomputation
            assert rec is not None
            self._rows[series_id] = task_rows(rec, series_id)
        return self._rows[series_id]

    def refresh_rows(self) -> None:
        """Apply the filter and sort, and show the rows."""
        rec = self.session.recomputation
        assert rec is not None
        task_filter = self.task_filter
        rows = self.rows_for(task_filter.series_id)
        shown = filter_rows(rows, task_filter)
        if self.sort_column:
            shown = sort_rows(shown, self.sort_column, self.sort_reverse)
        self.shown = shown
        series = rec.report.series_by_id(task_filter.series_id)
        self.task_table.show(shown, lambda value: format_value(value, series))
        note = Text()
        note.append(f"{len(shown)} of {len(rows)} tasks", "bold")
        note.append(" · ")
        note.append(task_filter.describe())
        token = task_filter.state or ""
        if token.startswith("count:"):
            name = token.split(":", 1)[1]
            note.append(f"\ncount {name}: {COUNT_MEANINGS.get(name, '')}")
        if self.sort_column:
            note.append(
                f" · sorted by {self.sort_column}{' (reversed)' if self.sort_reverse else ''}"
            )
        note.append("\n" + COUNTS_NOTE, "dim")
        self.note.update(note)

    @on(TaskFilterBar.Changed)
    def _filter_changed(self, message: TaskFilterBar.Changed) -> None:
        self.task_filter = message.task_filter
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
        from inspector.app.screens.task import TaskScreen

        self.app.push_screen(TaskScreen(self.session, message.task_id, self.task_filter.series_id))

    def action_focus_filters(self) -> None:
        self.filter_bar.query("Select").first().focus()

    def refresh_session(self, session: Session) -> None:
        """The run was reloaded: show the same filter on the new recomputation."""
        if session.recomputation is None:
            return
        self.session = session
        self._rows.clear()
        ids = {s.series_id for s in session.recomputation.report.series}
        if self.task_filter.series_id not in ids:
            self.task_filter = self.task_filter.with_changes(
                series_id=session.recomputation.report.summary_series.series_id
            )
        self.refresh_rows()
