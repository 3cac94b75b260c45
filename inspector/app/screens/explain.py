"""Explain this number: the formula behind a value, its inputs with their weights, its tasks.

It only shows what :mod:`inspector.views.explain` works out from one
:class:`~inspector.engine.Recomputation`; every result-file string (task ids, categories,
notes) is rendered with :func:`widgets.literal.literal`.
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

from inspector.app.host import InspectorScreen
from inspector.app.intervals import interval_words, scope_interval
from inspector.app.navigation import OpenExplain, OpenLedger, TaskChosen
from inspector.app.table_export import Table
from inspector.app.titles import place, title_of
from inspector.engine.recomputation import Recomputation
from inspector.engine.render import REFERENCE_MARK, format_value
from inspector.session import Session
from inspector.views.audit import SERIES_SCOPE, AuditError, LedgerTask, Scope, series_of
from inspector.views.explain import Explanation, Term, explain
from inspector.views.run_stats import series_stats
from inspector.views.stats import Interval
from inspector.views.text_cells import number_text
from widgets.key_footer import KeyFooter
from widgets.literal import literal, one_line
from widgets.record_table import Field, RecordTable, field_columns
from widgets.virtual_table import Column, VirtualTable


@dataclass
class Explained(Message):
    """A value was explained (in a worker), with the columns of its terms and tasks."""

    recomputation: Recomputation
    explanation: Explanation
    term_columns: tuple[Column, ...]
    task_columns: tuple[Column, ...]
    interval: Interval | None = None
    """The value's interval, as ``inspector stats`` computes it (None: none for this scope)."""


@dataclass
class NotExplained(Message):
    """The value cannot be explained on this recomputation (it is not in the report)."""

    error: str


TERM_FIELDS: tuple[Field[Term], ...] = (
    Field("input", "input", lambda term: term.label),
    Field("value", "value", lambda term: number_text(term.value)),
    Field("weight", "weight", lambda term: number_text(term.weight)),
    Field("detail", "detail", lambda term: term.detail),
)

TASK_FIELDS: tuple[Field[LedgerTask], ...] = (
    Field("task", "task", lambda task: task.task_id, shrink=18, cut="middle"),
    Field("category", "category", lambda task: task.category, shrink=14, cut="middle"),
    Field("value", "value", lambda task: number_text(task.value)),
)


class ExplainScreen(InspectorScreen):
    """How one value is made: the formula, the weights after re-normalisation, the inputs."""

    HELP = """\
# Explain this number
The formula behind the value, its 95% interval with the digits `inspector stats` prints
(and what the narrow columns make of it), each input with its weight after
re-normalisation, and the evaluated tasks that fed it. Enter on a category or node explains that part in turn.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", tooltip="Return to the previous screen"),
        Binding("l", "ledger", "Ledger", tooltip="The tasks behind the counts of this scope"),
    ]

    EXPORTS = COPIES = True
    AUTO_FOCUS = "#explain-terms"
    """The inputs, once the value is explained (nothing meanwhile)."""

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
        self.explanation: Explanation | None = None
        """Worked out in a worker once the screen is up."""
        self.interval: Interval | None = None
        """The value's interval, worked out with the explanation."""

    @property
    def summary(self) -> Static:
        return self.query_one("#explain-summary", Static)

    @property
    def term_table(self) -> RecordTable[Term]:
        return self.query_one("#explain-terms", RecordTable)

    @property
    def task_table(self) -> RecordTable[LedgerTask]:
        return self.query_one("#explain-tasks", RecordTable)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="explain-summary")
        yield RecordTable(TERM_FIELDS, id="explain-terms")
        yield RecordTable(TASK_FIELDS, id="explain-tasks")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = title_of(self, self.recomputation)
        self.sub_title = place(
            "explain",
            self.series_id,
            None if self.scope == SERIES_SCOPE else self.scope.label,
        )
        self.term_table.loading = self.task_table.loading = True
        self._explain(self.recomputation)

    @work(thread=True, exclusive=True, exit_on_error=False, group="explain",
          description="explain")  # fmt: skip
    def _explain(self, rec: Recomputation) -> None:
        try:
            e = explain(rec, self.series_id, self.scope)
        except AuditError as exc:
            self.post_message(NotExplained(str(exc)))
            return
        terms, tasks = field_columns(TERM_FIELDS, e.terms), field_columns(TASK_FIELDS, e.tasks)
        stats = series_stats(rec, series_of(rec, self.series_id))
        self.post_message(Explained(rec, e, terms, tasks, scope_interval(stats, self.scope)))

    @on(Explained)
    def _explained(self, message: Explained) -> None:
        self.recomputation = message.recomputation
        self.explanation = message.explanation
        self.interval = message.interval
        self.show(message.term_columns, message.task_columns)
        self.term_table.loading = self.task_table.loading = False
        if self.focused is None:
            self.term_table.focus()

    @on(NotExplained)
    def _not_explained(self, message: NotExplained) -> None:
        self.term_table.loading = self.task_table.loading = False
        self.notify(message.error, title="Cannot explain this value", severity="warning")

    def show(
        self,
        term_columns: tuple[Column, ...] | None = None,
        task_columns: tuple[Column, ...] | None = None,
    ) -> None:
        """Fill the summary and both tables from the explanation."""
        e = self.explanation
        if e is None:
            return
        series = series_of(self.recomputation, self.series_id)
        text = Text()
        text.append_text(one_line(self.series_id))
        if e.scope != SERIES_SCOPE:
            text.append(" · ")
            text.append_text(one_line(e.scope.label))
        value = format_value(e.value, series) if e.value is not None else "null"
        text.append(f" = {value}", "bold")
        if e.is_reference:
            text.append(REFERENCE_MARK, "italic")
        if self.interval is not None:
            text.append(f"\n{interval_words(self.interval)}")
        text.append("\n")
        text.append(e.formula)
        for note in e.notes:
            text.append("\n• ")
            text.append_text(literal(note, multiline=True))
        if not e.agrees:
            text.append(
                f"\nthe inputs re-combine to {number_text(e.check)}, not the value", "bold red"
            )
        self.summary.update(text)
        self.term_table.show(e.terms, columns=term_columns)
        self.task_table.show(e.tasks, columns=task_columns)

    @on(VirtualTable.Selected, "#explain-terms")
    def _term_selected(self, event: VirtualTable.Selected) -> None:
        if self.explanation is None:
            return
        term = self.explanation.terms[event.row]
        if term.scope is not None:
            self.post_message(OpenExplain(self.recomputation, self.series_id, term.scope))
        elif term.kind == "task":
            self.post_message(TaskChosen(term.label, self.series_id, self.recomputation))

    @on(VirtualTable.Selected, "#explain-tasks")
    def _task_selected(self, event: VirtualTable.Selected) -> None:
        if self.explanation is not None:
            task_id = self.explanation.tasks[event.row].task_id
            self.post_message(TaskChosen(task_id, self.series_id, self.recomputation))

    def action_back(self) -> None:
        self.app.pop_screen()

    def export_table(self) -> Table:
        """The tasks behind the value, every column (x)."""
        headers, rows = self.task_table.texts()
        return Table(f"explain-{self.series_id}", headers, rows)

    def copy_text(self, row: bool = False) -> str | None:
        return self.task_table.copy_text(row, lambda task: task.task_id)

    def action_ledger(self) -> None:
        self.post_message(OpenLedger(self.recomputation, self.series_id, "total", self.scope))

    def refresh_session(self, replaced: Session, session: Session) -> None:
        """The run was reloaded: explain the same value of the new recomputation."""
        rec = session.recomputation
        if rec is not None and replaced.recomputation is self.recomputation:
            self._explain(rec)  # a value no longer in the run: NotExplained, the old one stays
