"""Issues by severity × phase × code, the counts they pushed tasks into, and retries by pattern.

Both tables show what :mod:`inspector.views.attribution` picks from one recomputation; the retry
records are read lazily, in a worker, through the reader. Result-file strings (codes, stages,
scopes, patterns) go through :mod:`widgets.literal`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import get_current_worker

from inspector.app.host import InspectorScreen
from inspector.app.messages import RetriesRead
from inspector.app.navigation import OpenTasks
from inspector.app.table_export import Table
from inspector.app.titles import place, session_title
from inspector.engine.recomputation import Recomputation
from inspector.engine.vocabulary import is_count
from inspector.session import Session
from inspector.views.attribution import (
    EFFECTS,
    IssueRow,
    RetryRow,
    RetrySummary,
    issue_table,
    load_retry_records,
    retry_summary,
)
from inspector.views.audit import InCount
from inspector.views.tasks import TaskFilter
from widgets.literal import literal, one_line

PUSHED = ("invalidated", "error", "unavailable", "evaluated")
"""The counts an issue can push its tasks into, most severe first."""

SEVERITY_STYLES = {"fatal": "bold magenta", "error": "red", "warning": "yellow"}

SHORT_EFFECTS = {"fatal": "invalidates", "error": "error", "warning": "none"}
"""The effect column; the title spells out :data:`inspector.views.attribution.EFFECTS`."""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@dataclass
class Attributed(Message):
    """The issues of a series were attributed (in a worker), with the retry counts."""

    recomputation: Recomputation
    series_id: str
    issues: tuple[IssueRow, ...]
    retries: RetrySummary


class IssuesScreen(InspectorScreen):
    """Which issues the scored attempts carry, which counts they pushed tasks into, and retries."""

    HELP = """\
# Issues and retries
Top: every severity × phase × code of the scored attempts — how many attempts and tasks carry
it, and how many of those tasks sit in each count of the series (FATAL invalidates a task and
counts it as error; ERROR counts it as error, and as unavailable when no value remains;
WARNING changes nothing). **enter** lists the tasks; on a count column, only the tasks in
that count. Bottom: retries by stage, scope and matched pattern (read from the retry records);
**enter** lists the tasks that retried. **n** moves to the next series.
"""

    EXPORTS = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", tooltip="Return to the previous screen"),
        Binding(
            "n", "next_series", "Next series", tooltip="Attribute the issues to the next series"
        ),
    ]

    AUTO_FOCUS = "#issues"
    """The issue table, once the issues are attributed (nothing meanwhile)."""

    def __init__(self, session: Session, series_id: str | None = None) -> None:
        super().__init__()
        assert session.recomputation is not None
        self.session = session
        self.series_id = series_id or self.recomputation.report.summary_series.series_id
        self.issues: tuple[IssueRow, ...] = ()
        self.retries = RetrySummary(0, (), (), (), records_read=False, notes=())
        """Retry counts, then (once a worker has read the retry records) their patterns."""

    def shown_sessions(self) -> tuple[Session, ...]:
        return (self.session,)

    @property
    def recomputation(self) -> Recomputation:
        rec = self.session.recomputation
        assert rec is not None
        return rec

    @property
    def title_bar(self) -> Static:
        return self.query_one("#issues-title", Static)

    @property
    def issue_table(self) -> DataTable[Text | str]:
        return self.query_one("#issues", DataTable)

    @property
    def retry_note(self) -> Static:
        return self.query_one("#retries-note", Static)

    @property
    def retry_table(self) -> DataTable[Text | str]:
        return self.query_one("#retries", DataTable)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="issues-title")
        issues: DataTable[Text | str] = DataTable(id="issues", cursor_type="cell")
        for label, key in (
            ("severity", "severity"),
            ("phase", "phase"),
            ("code", "code"),
            ("attempts", "attempts"),
            ("tasks", "tasks"),
            *((name, name) for name in PUSHED),
            ("effect", "effect"),
        ):
            issues.add_column(label, key=key)
        yield issues
        yield Static(id="retries-note")
        retries: DataTable[Text | str] = DataTable(id="retries", cursor_type="row")
        retries.add_columns("stage", "scope", "matched pattern", "records", "attempts", "tasks")
        yield retries
        yield Footer()

    def on_mount(self) -> None:
        self.title = session_title(self.session)
        self.sub_title = place("issues and retries", self.series_id)
        self.attribute()
        self._read_retries()

    def attribute(self) -> None:
        """Attribute the issues to the current series (in a worker), then show them."""
        self.issue_table.loading = True
        self._attribute(self.recomputation, self.series_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="issues",
          description="attribute issues")  # fmt: skip
    def _attribute(self, rec: Recomputation, series_id: str) -> None:
        issues = issue_table(rec, series_id)
        self.post_message(Attributed(rec, series_id, issues, retry_summary(rec.tasks)))

    @on(Attributed)
    def _attributed(self, message: Attributed) -> None:
        if (message.recomputation, message.series_id) != (self.recomputation, self.series_id):
            return  # an earlier series or run, still on its way
        self.issues = message.issues
        if not self.retries.records_read:
            self.retries = message.retries
        self.issue_table.loading = False
        self.show_issues()
        self.show_retries()
        if self.focused is None:
            self.issue_table.focus()

    def show_issues(self) -> None:
        """Fill the issue table from the attributed issues of the current series."""
        rec = self.recomputation
        attempts = sum(len(row.attempts) for row in self.issues)
        title = Text()
        title.append("issues attributed to ")
        title.append_text(one_line(self.series_id))
        title.append(
            f" · {len(self.issues)} severity × phase × code · {attempts} issue-carrying attempts",
            "bold",
        )
        title.append(
            "\ncount columns: how many of the carrying tasks are in that count of the series "
            "(unavailable includes state error; error overlaps the other counts)",
            "dim",
        )
        for severity in ("fatal", "error", "warning"):
            title.append(f"\n{severity}: ", SEVERITY_STYLES[severity])
            title.append(EFFECTS[severity], "dim")
        if rec.plan.derived:
            title.append("\nderived plan: ")
            title.append_text(one_line(rec.plan.derived))
        self.title_bar.update(title)
        table = self.issue_table
        table.clear()
        for index, row in enumerate(self.issues):
            table.add_row(
                Text(row.severity, SEVERITY_STYLES.get(row.severity, "")),
                one_line(row.phase),
                one_line(row.code, max_chars=40),
                Text(str(len(row.attempts)), justify="right"),
                Text(str(len(row.task_ids)), justify="right"),
                *(
                    Text(
                        str(len(row.pushed.get(name, ()))) if name in row.pushed else "",
                        justify="right",
                    )
                    for name in PUSHED
                ),
                Text(SHORT_EFFECTS.get(row.severity, row.effect), "dim"),
                key=str(index),
            )
        if not self.issues:
            self.title_bar.update(title + Text("\nNo attempt carries an issue.", "italic"))

    def show_retries(self) -> None:
        """Fill the retries note and table from the current retry summary."""
        summary = self.retries
        note = Text()
        retries = f"{summary.total} {'retry' if summary.total == 1 else 'retries'}"
        note.append(
            f"{retries} on {_plural(len(summary.by_attempt), 'attempt')} "
            f"of {_plural(len(summary.task_ids), 'task')}",
            "bold",
        )
        if summary.retry_only:
            note.append(f" · {_plural(len(summary.retry_only), 'attempt')} left only a retry count")
        if summary.archives:
            note.append(f" · {_plural(len(summary.archives), 'archived execution')}")
        if not summary.records_read and summary.total:
            note.append(" · reading the retry records…", "dim")
        for line in summary.notes:
            note.append("\n")
            note.append_text(literal(line, max_chars=300))
        self.retry_note.update(note)
        table = self.retry_table
        table.clear()
        for index, row in enumerate(summary.rows):
            table.add_row(
                one_line(row.stage),
                one_line(row.scope),
                one_line(row.matched_pattern, max_chars=60),
                Text(str(row.records), justify="right"),
                Text(str(len(row.attempts)), justify="right"),
                Text(str(len(row.task_ids)), justify="right"),
                key=str(index),
            )

    @work(thread=True, exclusive=True, exit_on_error=False, group="retries",
          description="read retry records")  # fmt: skip
    def _read_retries(self) -> None:
        worker = get_current_worker()
        tasks = self.recomputation.tasks
        if not any(task.retry_count for task in tasks):
            return
        records = load_retry_records(self.session.run, tasks)
        if not worker.is_cancelled:
            self.post_message(RetriesRead(retry_summary(tasks, records)))

    @on(RetriesRead)
    def _retries_read(self, message: RetriesRead) -> None:
        self.retries = message.summary
        self.show_retries()

    @on(DataTable.CellSelected, "#issues")
    def _issue_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        row = self.issues[int(event.cell_key.row_key.value or 0)]
        column = event.cell_key.column_key.value
        state = InCount(column) if is_count(column) and column in PUSHED else None
        self.open_tasks(
            TaskFilter(
                self.series_id, state=state, severity=row.severity, phase=row.phase, code=row.code
            )
        )

    @on(DataTable.RowSelected, "#retries")
    def _retry_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        row: RetryRow = self.retries.rows[int(event.row_key.value or 0)]
        label = f"retries {row.stage} / {row.scope} / {row.matched_pattern}"
        self.open_tasks(
            TaskFilter(self.series_id, task_ids=frozenset(row.task_ids), task_ids_label=label)
        )

    def open_tasks(self, task_filter: TaskFilter) -> None:
        """Push the tasks screen above this one, filtered to ``task_filter``."""
        self.post_message(OpenTasks(self.session, task_filter))

    def export_table(self) -> Table:
        """The severity × phase × code rows of the issue table (x)."""
        table = self.issue_table
        headers = tuple(str(column.label) for column in table.ordered_columns)
        rows = tuple(
            tuple(cell.plain if isinstance(cell, Text) else str(cell)
                  for cell in table.get_row_at(index))
            for index in range(table.row_count)
        )  # fmt: skip
        rows = tuple(  # full codes, not the shortened cells
            (*row[:2], self.issues[index].code, *row[3:]) for index, row in enumerate(rows)
        )
        return Table(f"issues-{self.series_id}", headers, rows)

    def action_next_series(self) -> None:
        ids = [s.series_id for s in self.recomputation.report.series]
        self.series_id = ids[(ids.index(self.series_id) + 1) % len(ids)]
        self.attribute()

    def action_back(self) -> None:
        self.app.pop_screen()

    def refresh_session(self, replaced: Session, session: Session) -> None:
        """The run was reloaded: attribute the issues of the new recomputation."""
        if self.session is not replaced or session.recomputation is None:
            return
        self.session = session
        if self.series_id not in {s.series_id for s in session.recomputation.report.series}:
            self.series_id = session.recomputation.report.summary_series.series_id
        self.retries = RetrySummary(0, (), (), (), records_read=False, notes=())
        self.attribute()
        self._read_retries()
