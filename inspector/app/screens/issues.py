"""Issues by severity × phase × code, the counts they pushed tasks into, and retries by pattern.

Both tables show what :mod:`inspector.views.attribution` picks from one recomputation; retry
records are read lazily in a worker. Result-file strings go through :mod:`widgets.literal`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable, Header, Static
from textual.worker import get_current_worker

from inspector.app.list_filter import FIND, FilteredList, holds
from inspector.app.messages import RetriesRead
from inspector.app.navigation import OpenTasks
from inspector.app.screens.issues_rows import (
    ISSUE_FIELDS,
    PUSHED,
    SEVERITY_STYLES,
    cursor_text,
)
from inspector.app.table_export import Table
from inspector.app.titles import place, plural, session_title
from inspector.engine.recomputation import Recomputation
from inspector.engine.vocabulary import is_count
from inspector.session import Session
from inspector.views.attribution import (
    EFFECTS,
    NO_ISSUE,
    IssueRow,
    RetryRow,
    RetrySummary,
    counted_with_no_issue,
    issue_table,
    issue_totals,
    load_retry_records,
    retry_summary,
    unexplained_rows,
)
from inspector.views.audit import InCount
from inspector.views.fingerprints import FingerprintGroup, group, occurrences
from inspector.views.tasks import TaskFilter
from widgets._table import ListTable
from widgets.fingerprint_lines import FingerprintLines
from widgets.key_footer import KeyFooter
from widgets.literal import literal, one_line
from widgets.record_table import RecordTable
from widgets.virtual_table import VirtualTable


@dataclass
class Attributed(Message):
    """The issues of a series were attributed (in a worker), with the retry counts."""

    recomputation: Recomputation
    series_id: str
    issues: tuple[IssueRow, ...]
    retries: RetrySummary
    fingerprints: tuple[FingerprintGroup, ...] = ()


class IssuesScreen(FilteredList):
    """Which issues the scored attempts carry, which counts they pushed tasks into, and retries."""

    HELP = """\
# Issues and retries
Top: every severity × phase × code of the scored attempts — how many attempts and tasks carry
it, and how many of those tasks sit in each count of the series (FATAL invalidates a task and
counts it as error; ERROR counts it as error, and as unavailable when no value remains;
WARNING changes nothing). Rows of severity *none* (phase *rule*) are tasks a count holds by one of the
engine's rules with no issue behind it (a missing attempt, a metric no attempt observed),
with the engine's reason. Totals count each attempt and task once. **enter** lists the
tasks; on a count column, only the tasks in that count. Under it: the issue's error
fingerprints (as `inspector errors RUN`). Bottom: retries by stage, scope and matched pattern (read from the retry records);
**enter** lists the tasks that retried. **n** moves to the next series. **/** filters the
issue rows as you type: severity, phase, code, a carrying task's id, a rule's reason or the
text of an error message (escape clears; enter lists the first row's tasks).
"""

    EXPORTS = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", tooltip="Return to the previous screen"),
        Binding(
            "n", "next_series", "Next series", tooltip="Attribute the issues to the next series"
        ),
        FIND,
    ]

    AUTO_FOCUS = "#issues"
    """The issue table, once the issues are attributed (nothing meanwhile)."""

    def __init__(self, session: Session, series_id: str | None = None) -> None:
        super().__init__()
        assert session.recomputation is not None
        self.session = session
        self.series_id = series_id or self.recomputation.report.summary_series.series_id
        self.issues: tuple[IssueRow, ...] = ()
        self.shown: tuple[IssueRow, ...] = ()
        """The issue rows on screen: those the text filter (``/``) keeps."""
        self.prints: tuple[FingerprintGroup, ...] = ()
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
    def issue_table(self) -> RecordTable[IssueRow]:
        return self.query_one("#issues", RecordTable)

    @property
    def cursor_line(self) -> Static:
        return self.query_one("#issues-cursor", Static)

    @property
    def retry_note(self) -> Static:
        return self.query_one("#retries-note", Static)

    @property
    def retry_table(self) -> DataTable[Text | str]:
        return self.query_one("#retries", DataTable)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="issues-title")
        yield self.filter_input("/ text (severity, phase, code, task id, message, reason)")
        yield RecordTable(ISSUE_FIELDS, cursor_type="cell", id="issues")
        yield Static(id="issues-cursor")
        yield FingerprintLines(id="issues-fingerprints")
        yield Static(id="retries-note")
        retries: DataTable[Text | str] = ListTable(id="retries", cursor_type="row")
        retries.add_columns("stage", "scope", "matched pattern", "records", "attempts", "tasks")
        yield retries
        yield KeyFooter()

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
        issues = issue_table(rec, series_id) + unexplained_rows(rec, series_id)
        prints = tuple(group(occurrences(self.session.run.run_id, rec.tasks)))
        self.post_message(Attributed(rec, series_id, issues, retry_summary(rec.tasks), prints))

    @on(Attributed)
    def _attributed(self, message: Attributed) -> None:
        if (message.recomputation, message.series_id) != (self.recomputation, self.series_id):
            return  # an earlier series or run, still on its way
        self.issues = message.issues
        self.prints = message.fingerprints
        self.query_one(FingerprintLines).prints = message.fingerprints
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
        issues = [row for row in self.issues if row.reason is None]
        ruled = [row for row in self.issues if row.reason is not None]
        attempts, tasks = issue_totals(issues)
        title = Text()
        title.append("issues attributed to ")
        title.append_text(one_line(self.series_id))
        title.append(
            f" · {len(issues)} severity × phase × code · "
            f"{plural(attempts, 'issue-carrying attempt')} of {plural(tasks, 'task')}",
            "bold",
        )
        if unruled := len(counted_with_no_issue(self.issues)):
            title.append(
                f" · {plural(unruled, 'task')} counted with no issue (severity {NO_ISSUE})"
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
        self.shown = tuple(row for row in self.issues if self._holds(row, self.needle))
        if self.needle:
            title.append(f"\n{len(self.shown)} of {plural(len(self.issues), 'row')} hold the filter",
                         "italic")  # fmt: skip
        self.title_bar.update(title)
        self.issue_table.show(self.shown)
        self.show_cursor()
        if not issues:
            said = "No attempt carries an issue."
            if ruled:
                said += (
                    " The counts in the rows below come from the engine's rules: enter lists them."
                )
            self.title_bar.update(title + Text(f"\n{said}", "italic"))

    def show_cursor(self) -> None:
        """The status line: the cursor's issue in full, and what its cell counts."""
        table = self.issue_table
        row = table.cursor_item
        self.query_one(FingerprintLines).show(row)
        if row is None or not table.columns:
            self.cursor_line.update("")
            return
        self.cursor_line.update(cursor_text(row, table.columns[table.cursor_column].key))

    def _holds(self, row: IssueRow, needle: str) -> bool:
        """Whether the row's words, tasks, reasons or error messages hold ``needle``."""
        messages = (p.example for p in self.prints if (p.phase, p.code) == (row.phase, row.code))
        return holds(needle, row.severity, row.phase, row.code, row.reason or "",
                     *row.task_ids, *row.reason_texts, *messages)  # fmt: skip

    def refilter(self) -> None:
        self.show_issues()

    def list_widget(self) -> RecordTable[IssueRow]:
        return self.issue_table

    def open_first(self) -> None:
        if self.shown:
            self._open_row(self.shown[0], "tasks")

    @on(VirtualTable.CursorMoved, "#issues")
    def _cursor_moved(self, event: VirtualTable.CursorMoved) -> None:
        self.show_cursor()

    def show_retries(self) -> None:
        """Fill the retries note and table from the current retry summary."""
        summary = self.retries
        note = Text()
        retries = f"{summary.total} {'retry' if summary.total == 1 else 'retries'}"
        note.append(
            f"{retries} on {plural(len(summary.by_attempt), 'attempt')} "
            f"of {plural(len(summary.task_ids), 'task')}",
            "bold",
        )
        if summary.retry_only:
            note.append(f" · {plural(len(summary.retry_only), 'attempt')} left only a retry count")
        if summary.archives:
            note.append(f" · {plural(len(summary.archives), 'archived execution')}")
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

    @on(VirtualTable.Selected, "#issues")
    def _issue_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        if self.shown:
            self._open_row(self.shown[event.row], self.issue_table.columns[event.column].key)

    def _open_row(self, row: IssueRow, column: str) -> None:
        """List the row's tasks; on a count column, only those in that count."""
        state = InCount(column) if is_count(column) and column in PUSHED else None
        if row.reason is not None:
            label = f"{row.code} (no issue)"
            ids = frozenset(row.task_ids)
            self.open_tasks(TaskFilter(self.series_id, state, task_ids=ids, task_ids_label=label))
            return
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
        headers, rows = self.issue_table.texts()  # full headers and codes
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
