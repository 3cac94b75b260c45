"""The count ledger and "explain this number": the tasks behind a count, and how a value is made.

Both screens only show what :mod:`inspector.audit` and :mod:`inspector.explain` pick from one
:class:`~inspector.engine.Recomputation`; every result-file string (task ids, categories,
reasons holding issue messages) is rendered with :func:`widgets.literal.literal`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from inspector.audit import (
    COUNTS,
    SERIES_SCOPE,
    AuditError,
    LedgerTask,
    Scope,
    series_of,
    task_filter,
    tasks_behind,
)
from inspector.engine import Recomputation
from inspector.engine.render import format_value
from inspector.explain import Explanation, explain
from inspector.session import Session
from widgets.literal import literal, one_line


@dataclass
class TaskChosen(Message):
    """The user opened a task from a ledger or an explanation."""

    task_id: str
    series_id: str


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.6g}"


class LedgerScreen(Screen[None]):
    """The exact tasks behind one count of a series, category or hierarchy node, with reasons."""

    HELP = """\
# Count ledger
The tasks behind one count, each with the engine's reason for its state or its error.
`unavailable` includes the tasks in state error; `error` counts every task with has_error and
overlaps the other counts (an evaluated task can be an error; invalidated tasks always are).
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", tooltip="Return to the previous screen"),
        Binding("c", "next_count", "Next count", tooltip="Show the tasks behind the next count"),
        Binding("e", "explain", "Explain", tooltip="How the value of this scope is made"),
    ]

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

    @property
    def title_bar(self) -> Static:
        return self.query_one("#ledger-title", Static)

    @property
    def task_table(self) -> DataTable[Text | str]:
        return self.query_one("#ledger-tasks", DataTable)

    @property
    def reasons(self) -> Static:
        return self.query_one("#ledger-reasons", Static)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="ledger-title")
        table: DataTable[Text | str] = DataTable(id="ledger-tasks", cursor_type="row")
        table.add_columns("task", "category", "state", "error", "value", "reason")
        yield table
        yield Static(id="ledger-reasons")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "count ledger"
        self.show()
        self.task_table.focus()

    def show(self) -> None:
        """Fill the title and the table for the current count, scope and state."""
        rec = self.recomputation
        series = series_of(rec, self.series_id)
        self.tasks = task_filter(
            rec, self.series_id, count=self.count, state=self.state, scope=self.scope
        )
        title = Text()
        title.append_text(one_line(self.series_id))
        if self.scope != SERIES_SCOPE:
            title.append(" · ")
            title.append_text(one_line(self.scope.label))
        if self.count:
            entry = tasks_behind(rec, self.series_id, self.count, self.scope)
            title.append(f" · count {self.count} = {entry.reported}", "bold")
            title.append(f" · {len(self.tasks)} tasks listed")
            title.append("\n")
            title.append(entry.note, "dim")
        else:
            title.append(f" · {len(self.tasks)} tasks")
        if self.state:
            title.append(f"\nonly state {self.state}")
        if rec.plan.derived:
            title.append("\nderived plan: ")
            title.append_text(one_line(rec.plan.derived))
        self.title_bar.update(title)
        table = self.task_table
        table.clear()
        for task in self.tasks:
            first = task.reasons[0].text if task.reasons else ""
            table.add_row(
                one_line(task.task_id),
                one_line(task.category),
                task.state,
                "yes" if task.has_error else "",
                format_value(task.value, series) if task.value is not None else "—",
                one_line(first, 120),
                key=task.task_id,
            )
        self._show_reasons(self.tasks[0] if self.tasks else None)

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

    def _ledger_task(self, key: str | None) -> LedgerTask | None:
        return next((t for t in self.tasks if t.task_id == key), None)

    @on(DataTable.RowHighlighted, "#ledger-tasks")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_reasons(self._ledger_task(event.row_key.value))

    @on(DataTable.RowSelected, "#ledger-tasks")
    def _selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.post_message(TaskChosen(event.row_key.value, self.series_id))

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_next_count(self) -> None:
        index = COUNTS.index(self.count) if self.count in COUNTS else -1
        self.count = COUNTS[(index + 1) % len(COUNTS)]
        self.show()

    def action_explain(self) -> None:
        self.app.push_screen(ExplainScreen(self.recomputation, self.series_id, self.scope))

    def refresh_session(self, session: Session) -> None:
        """The run was reloaded: list the same count of the new recomputation."""
        rec = session.recomputation
        if rec is None:
            return
        try:
            self.series_id = series_of(rec, self.series_id).series_id
            task_filter(rec, self.series_id, count=self.count, state=self.state, scope=self.scope)
        except AuditError:
            self.notify("This count is no longer in the reloaded run.", severity="warning")
            return
        self.recomputation = rec
        self.show()


class ExplainScreen(Screen[None]):
    """How one value is made: the formula, the weights after re-normalisation, the inputs."""

    HELP = """\
# Explain this number
The formula behind the value, each input with its weight after re-normalisation, and the
evaluated tasks that fed it. Enter on a category or node explains that part in turn.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", tooltip="Return to the previous screen"),
        Binding("l", "ledger", "Ledger", tooltip="The tasks behind the counts of this scope"),
    ]

    def __init__(
        self,
        recomputation: Recomputation,
        series_id: str | None = None,
        scope: Scope = SERIES_SCOPE,
    ) -> None:
        super().__init__()
        self.recomputation = recomputation
        self.series_id = series_of(recomputation, series_id).series_id
        self.scope = scope
        self.explanation: Explanation = explain(recomputation, self.series_id, scope)

    @property
    def summary(self) -> Static:
        return self.query_one("#explain-summary", Static)

    @property
    def term_table(self) -> DataTable[Text | str]:
        return self.query_one("#explain-terms", DataTable)

    @property
    def task_table(self) -> DataTable[Text | str]:
        return self.query_one("#explain-tasks", DataTable)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="explain-summary")
        terms: DataTable[Text | str] = DataTable(id="explain-terms", cursor_type="row")
        terms.add_columns("input", "value", "weight", "detail")
        yield terms
        tasks: DataTable[Text | str] = DataTable(id="explain-tasks", cursor_type="row")
        tasks.add_columns("task", "category", "value")
        yield tasks
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "explain"
        self.show()
        self.term_table.focus()

    def show(self) -> None:
        """Fill the summary and both tables from the explanation."""
        e = self.explanation
        series = series_of(self.recomputation, self.series_id)
        text = Text()
        text.append_text(one_line(self.series_id))
        if e.scope != SERIES_SCOPE:
            text.append(" · ")
            text.append_text(one_line(e.scope.label))
        value = format_value(e.value, series) if e.value is not None else "null"
        text.append(f" = {value}", "bold")
        if e.is_reference:
            text.append(" (reference)", "italic")
        text.append("\n")
        text.append(e.formula)
        for note in e.notes:
            text.append("\n• ")
            text.append_text(literal(note, multiline=True))
        if not e.agrees:
            text.append(f"\nthe inputs re-combine to {_number(e.check)}, not the value", "bold red")
        self.summary.update(text)
        self.term_table.clear()
        self.task_table.clear()
        for index, term in enumerate(e.terms):
            self.term_table.add_row(
                one_line(term.label),
                _number(term.value),
                _number(term.weight),
                one_line(term.detail),
                key=str(index),
            )
        for task in e.tasks:
            self.task_table.add_row(
                one_line(task.task_id),
                one_line(task.category),
                _number(task.value),
                key=task.task_id,
            )

    @on(DataTable.RowSelected, "#explain-terms")
    def _term_selected(self, event: DataTable.RowSelected) -> None:
        term = self.explanation.terms[int(event.row_key.value or 0)]
        if term.scope is not None:
            self.app.push_screen(ExplainScreen(self.recomputation, self.series_id, term.scope))
        elif term.kind == "task":
            self.post_message(TaskChosen(term.label, self.series_id))

    @on(DataTable.RowSelected, "#explain-tasks")
    def _task_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.post_message(TaskChosen(event.row_key.value, self.series_id))

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_ledger(self) -> None:
        self.app.push_screen(LedgerScreen(self.recomputation, self.series_id, "total", self.scope))

    def refresh_session(self, session: Session) -> None:
        """The run was reloaded: explain the same value of the new recomputation."""
        rec = session.recomputation
        if rec is None:
            return
        try:
            self.explanation = explain(rec, self.series_id, self.scope)
        except AuditError:
            self.notify("This value is no longer in the reloaded run.", severity="warning")
            return
        self.recomputation = rec
        self.show()
