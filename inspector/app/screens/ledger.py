"""The count ledger: the exact tasks behind a count, with the engine's reasons.

It only shows what :mod:`inspector.views.audit` picks from one
:class:`~inspector.engine.Recomputation`; every result-file string (task ids, categories,
reasons holding issue messages) is rendered with :func:`widgets.literal.literal`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Header, Static

from inspector.app.list_filter import FIND, FilteredList, holds
from inspector.app.navigation import OpenExplain, TaskChosen
from inspector.app.table_export import Table
from inspector.app.titles import place, plural, title_of
from inspector.engine.recomputation import Recomputation
from inspector.engine.render import format_value
from inspector.engine.report import MetricSeries
from inspector.session import Session
from inspector.views.audit import (
    COUNTS,
    SERIES_SCOPE,
    AuditError,
    CountLedger,
    LedgerTask,
    Scope,
    series_of,
    task_filter,
    tasks_behind,
)
from widgets.key_footer import KeyFooter
from widgets.literal import literal, one_line
from widgets.record_table import Field, RecordTable, field_columns
from widgets.virtual_table import Column, VirtualTable


@dataclass
class Listed(Message):
    """The tasks behind a count were picked (in a worker), with the columns they need."""

    asked: tuple[object, ...]
    tasks: tuple[LedgerTask, ...]
    entry: CountLedger | None
    fields: tuple[Field[LedgerTask], ...]
    columns: tuple[Column, ...]


def ledger_fields(series: MetricSeries) -> tuple[Field[LedgerTask], ...]:
    """The ledger's columns: task, category, state, error, value (as the series shows it),
    the first reason."""
    return (
        Field("task", "task", lambda t: t.task_id, shrink=18, cut="middle"),
        Field("category", "category", lambda t: t.category, fold=2, shrink=14, cut="middle"),
        Field("state", "state", lambda t: t.state),
        Field("error", "error", lambda t: "yes" if t.has_error else ""),
        Field(
            "value",
            "value",
            lambda t: format_value(t.value, series) if t.value is not None else "—",
        ),
        Field("reason", "reason", lambda t: t.reasons[0].text if t.reasons else "", 120, shrink=24),
    )


class LedgerScreen(FilteredList):
    """The exact tasks behind one count of a series, category or hierarchy node, with reasons."""

    HELP = """\
# Count ledger
The tasks behind one count, each with the engine's reason for its state or its error.
`unavailable` includes the tasks in state error; `error` counts every task with has_error and
overlaps the other counts (an evaluated task can be an error; invalidated tasks always are).
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", tooltip="Return to the previous screen"),
        Binding("n", "next_count", "Next count", tooltip="Show the tasks behind the next count"),
        Binding("h", "explain", "Explain", tooltip="How the value of this scope is made"),
        FIND,
    ]

    EXPORTS = COPIES = True
    AUTO_FOCUS = "#ledger-tasks"
    """The table, once its tasks are listed (nothing meanwhile)."""

    def __init__(
        self,
        recomputation: Recomputation,
        series_id: str | None = None,
        count: str | None = "total",
        scope: Scope = SERIES_SCOPE,
        state: str | None = None,
    ) -> None:
        super().__init__()
        self.recomputation = recomputation
        self.series_id = series_of(recomputation, series_id).series_id
        self.count = count
        self.scope = scope
        self.state = state
        self.tasks: tuple[LedgerTask, ...] = ()
        """The tasks shown: those listed that the text filter (``/``) keeps."""
        self.listed: tuple[LedgerTask, ...] = ()
        self._shape: tuple[tuple[Field[LedgerTask], ...], tuple[Column, ...]] = ((), ())

    @property
    def title_bar(self) -> Static:
        return self.query_one("#ledger-title", Static)

    @property
    def task_table(self) -> RecordTable[LedgerTask]:
        return self.query_one("#ledger-tasks", RecordTable)

    @property
    def reasons(self) -> Static:
        return self.query_one("#ledger-reasons", Static)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="ledger-title")
        yield self.filter_input("/ text (id, category, reason)")
        yield RecordTable(ledger_fields(series_of(self.recomputation, self.series_id)),
                          id="ledger-tasks")  # fmt: skip
        yield Static(id="ledger-reasons")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = title_of(self, self.recomputation)
        self.sub_title = place(
            "count ledger",
            self.series_id,
            None if self.scope == SERIES_SCOPE else self.scope.label,
            f"count {self.count}" if self.count else None,
        )
        self.show()

    def _asked(self) -> tuple[object, ...]:
        return (self.recomputation, self.series_id, self.count, self.scope, self.state)

    def show(self) -> None:
        """List the tasks behind the current count, scope and state (picked in a worker)."""
        self.task_table.loading = True
        self._list(*self._asked())

    @work(thread=True, exclusive=True, exit_on_error=False, group="ledger",
          description="count ledger")  # fmt: skip
    def _list(
        self,
        rec: Recomputation,
        series_id: str,
        count: str | None,
        scope: Scope,
        state: str | None,
    ) -> None:
        tasks = task_filter(rec, series_id, count=count, state=state, scope=scope)
        entry = tasks_behind(rec, series_id, count, scope) if count else None
        fields = ledger_fields(series_of(rec, series_id))
        columns = field_columns(fields, tasks)
        asked = (rec, series_id, count, scope, state)
        self.post_message(Listed(asked, tasks, entry, fields, columns))

    @on(Listed)
    def _listed(self, message: Listed) -> None:
        if message.asked != self._asked():
            return  # an earlier count, still on its way
        self.listed = message.tasks
        self._shape = (message.fields, message.columns)
        self._filter()
        self._show_title(message.entry)
        self.task_table.loading = False
        if self.focused is None:
            self.task_table.focus()

    def _filter(self) -> None:
        """Show the listed tasks whose id, category or reasons hold the text filter."""
        needle = self.needle
        self.tasks = tuple(
            t for t in self.listed if holds(needle, t.task_id, t.category, t.reason_text)
        )
        self.task_table.show(self.tasks, *self._shape)
        self.task_table.move_cursor(row=0)
        self._show_reasons(self.tasks[0] if self.tasks else None)

    def refilter(self) -> None:
        self._filter()

    def open_first(self) -> None:
        if self.tasks:
            self.post_message(TaskChosen(self.tasks[0].task_id, self.series_id, self.recomputation))

    def list_widget(self) -> RecordTable[LedgerTask]:
        return self.task_table

    def _show_title(self, entry: CountLedger | None) -> None:
        rec = self.recomputation
        title = Text()
        title.append_text(one_line(self.series_id))
        if self.scope != SERIES_SCOPE:
            title.append(" · ")
            title.append_text(one_line(self.scope.label))
        if self.count and entry is not None:
            title.append(f" · count {self.count} = {entry.reported}", "bold")
            title.append(f" · {plural(len(self.tasks), 'task')} listed")
            title.append("\n")
            title.append(entry.note, "dim")
        else:
            title.append(f" · {plural(len(self.tasks), 'task')}")
        if self.state:
            title.append(f"\nonly state {self.state}")
        if rec.plan.derived:
            title.append("\nderived plan: ")
            title.append_text(one_line(rec.plan.derived))
        self.title_bar.update(title)

    def _show_reasons(self, task: LedgerTask | None) -> None:
        if task is None:
            self.reasons.update("")
            return
        text = Text()
        text.append_text(one_line(task.task_id))
        text.append(f": {task.state}{', has_error' if task.has_error else ''}", "bold")
        for reason in task.reasons:
            text.append(f"\n  {reason.code}: ", "bold")
            text.append_text(literal(reason.text, multiline=True, max_chars=2000))
        if not task.reasons:
            text.append("\n  evaluated, no error")
        self.reasons.update(text)

    @on(VirtualTable.CursorMoved, "#ledger-tasks")
    def _highlighted(self, event: VirtualTable.CursorMoved) -> None:
        self._show_reasons(self.tasks[event.row] if event.row < len(self.tasks) else None)

    @on(VirtualTable.Selected, "#ledger-tasks")
    def _selected(self, event: VirtualTable.Selected) -> None:
        self.post_message(
            TaskChosen(self.tasks[event.row].task_id, self.series_id, self.recomputation)
        )

    def action_back(self) -> None:
        self.app.pop_screen()

    def export_table(self) -> Table:
        """The tasks listed, every column (x)."""
        headers, rows = self.task_table.texts()
        name = "-".join(p for p in ("ledger", self.series_id, self.count) if p)
        return Table(name, headers, rows)

    def copy_text(self, row: bool = False) -> str | None:
        return self.task_table.copy_text(row, lambda task: task.task_id)

    def action_next_count(self) -> None:
        index = COUNTS.index(self.count) if self.count in COUNTS else -1
        self.count = COUNTS[(index + 1) % len(COUNTS)]
        self.show()

    def action_explain(self) -> None:
        self.post_message(OpenExplain(self.recomputation, self.series_id, self.scope))

    def refresh_session(self, replaced: Session, session: Session) -> None:
        """The run was reloaded: list the same count of the new recomputation."""
        rec = session.recomputation
        if rec is None or replaced.recomputation is not self.recomputation:
            return
        try:
            self.series_id = series_of(rec, self.series_id).series_id
            task_filter(rec, self.series_id, count=self.count, state=self.state, scope=self.scope)
        except AuditError:
            self.notify("This count is no longer in the reloaded run.", severity="warning")
            return
        self.recomputation = rec
        self.show()
