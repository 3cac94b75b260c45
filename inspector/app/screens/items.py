"""Tasks across runs: every task id over the finished runs of the runs screen (or
of the leaderboard), flagged, with the task's runs side by side.

Reached with **t** from the runs screen and the leaderboard. The runs are read in the
app's reader processes (:func:`inspector.answers.items.stream_items`) and the rows made by
:mod:`inspector.views.items`; the screen only arranges them. **/** filters; **enter** on a
row moves to its runs (one line per run: its mark, value and attempts), **enter** there
opens that run's task screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Header, Input, Static
from textual.worker import get_current_worker

from inspector import loading
from inspector.answers.items import Skipped, stream_items
from inspector.app.host import InspectorScreen, host_of
from inspector.app.navigation import OpenTask
from inspector.engine.vocabulary import plural
from inspector.session import Session
from inspector.views.items import (
    ItemRow,
    Mark,
    RunTasks,
    filter_rows,
    item_rows,
    mark_of,
)
from widgets.key_footer import KeyFooter
from widgets.literal import literal
from widgets.record_table import Field, RecordTable
from widgets.virtual_table import VirtualTable

SHORT = {"never_solved": "never solved", "always_errors": "always errors",
         "verifier_suspect": "verifier?", "flips_within_model": "flips",
         "one_model_only": "one model"}  # fmt: skip


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


ROW_FIELDS: tuple[Field[ItemRow], ...] = (
    Field("flags", "flags", lambda r: ", ".join(SHORT[f.flag] for f in r.flags), max_chars=30,
          style=lambda r: "bold yellow" if r.flags else "", shrink=9, fold=0),
    Field("task", "task", lambda r: r.task_id, cut="middle", shrink=10),
    Field("benchmark", "benchmark", lambda r: r.benchmark, fold=2, cut="middle"),
    Field("runs", "runs", lambda r: str(r.runs), justify="right", fold=3),
    Field("models", "models", lambda r: str(r.models), justify="right", fold=3, short="mod"),
    Field("attempts", "attempts", lambda r: str(r.attempts), justify="right", short="att"),
    Field("solved", "solved", lambda r: str(r.solved), justify="right", short="✓"),
    Field("failed", "failed", lambda r: str(r.failed), justify="right", short="✗"),
    Field("errored", "errored", lambda r: str(r.errored), justify="right", short="!"),
    Field("unavailable", "unav", lambda r: str(r.unavailable), justify="right", short="·"),
    Field("mean", "mean", lambda r: _number(r.mean), justify="right"),
    Field("strip", "runs (marks)", lambda r: "".join(mark_of(m.outcome) for m in r.marks),
          max_chars=60, fold=1, shrink=6),
)  # fmt: skip

MARK_FIELDS: tuple[Field[Mark], ...] = (
    Field("mark", "", lambda m: mark_of(m.outcome)),
    Field("run", "run", lambda m: m.run, cut="middle", shrink=12),
    Field("model", "model", lambda m: m.model, cut="middle", fold=1),
    Field("plan", "plan", lambda m: m.plan, fold=2),
    Field("value", "value", lambda m: _number(m.outcome.value), justify="right"),
    Field("state", "state", lambda m: m.outcome.state, fold=3),
    Field("attempts", "✓ ✗ ! ·", lambda m: f"{m.outcome.solved} {m.outcome.failed} {m.outcome.errored} {m.outcome.unavailable}"),
)  # fmt: skip


def _order(marks: tuple[Mark, ...]) -> list[Mark]:
    return sorted(marks, key=lambda m: (m.model, m.run))


class ItemsScreen(InspectorScreen):
    """Every task id over many runs, flagged; a row's runs side by side."""

    HELP = """\
# Tasks across runs
One row per benchmark and task id over every finished run: runs, models, attempts and how
they ended (solved ✓ / failed ✗ / errored ! / unavailable ·, adding up to the attempts), the
mean of the recomputed headline value, and flags — never solved (by at least three models),
always errors, verifier suspect (the same verifier output on every attempt, a value outside
the contract's range, or evaluated by no run), flips (one model solves it in one run and
fails it in another with the same plan), solved by one model only. Flagged rows first; the
line below gives each flag's reason and its evidence (attempts in runs; never solved and
always errors need 2 attempts). `runs (marks)` is one mark per run: ! an attempt errored,
else ✓ solved, ◐ some attempts solved, ✗ failed, · nothing scored.
**/** filters (task id, benchmark, flag name, `flagged`); **enter** moves to the row's runs,
side by side; **enter** on a run opens its task screen.
"""

    DEFAULT_CSS = """
    ItemsScreen #items-reason { height: auto; max-height: 3; }
    ItemsScreen #items-marks { height: 8; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", tooltip="Back to the rows, or to the runs"),
        Binding("slash", "focus_filter", "Filter", tooltip="Filter: task, benchmark or flag"),
    ]

    @dataclass
    class Arrived(Message):
        answers: list[RunTasks | Skipped]

    @dataclass
    class Done(Message):
        pass

    @dataclass
    class SessionReady(Message):
        session: Session
        task_id: str

    def __init__(self, runs: list[tuple[str, str]], title: str) -> None:
        super().__init__()
        self.runs = runs
        """``(path, shown as)`` of every run asked for."""
        self.paths = {shown: path for path, shown in runs}
        self.heading = title
        self.reduced: list[RunTasks] = []
        self.skipped: list[Skipped] = []
        self.rows: list[ItemRow] = []
        self.shown: list[ItemRow] = []
        self.done = False

    @property
    def table(self) -> RecordTable[ItemRow]:
        return self.query_one("#items-table", RecordTable)

    @property
    def marks(self) -> RecordTable[Mark]:
        return self.query_one("#items-marks", RecordTable)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="items-note")
        yield Input(placeholder="filter: task, benchmark, flag name or flagged", id="items-filter")
        yield RecordTable(ROW_FIELDS, id="items-table")
        yield Static(id="items-reason")
        yield RecordTable(MARK_FIELDS, id="items-marks")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.sub_title = f"tasks across runs · {self.heading}"
        self.query_one("#items-filter", Input).display = False
        self._note()
        self._read()
        self.table.focus()

    @work(thread=True, exclusive=True, exit_on_error=False, group="items",
          description="tasks across runs")  # fmt: skip
    def _read(self) -> None:
        worker = get_current_worker()
        host = host_of(self)
        overrides = host.settings.overrides if host is not None else None
        for batch in stream_items(self.runs, overrides, cancelled=lambda: worker.is_cancelled):
            self.post_message(self.Arrived(batch))
        if not worker.is_cancelled:
            self.post_message(self.Done())

    @on(Arrived)
    def _arrived(self, message: Arrived) -> None:
        for answer in message.answers:
            (self.reduced if isinstance(answer, RunTasks) else self.skipped).append(answer)  # type: ignore[arg-type]
        self._note()

    @on(Done)
    def _done(self, message: Done) -> None:
        self.done = True
        self.reduced.sort(key=lambda r: r.run)
        self.rows = item_rows(self.reduced)
        self._show()

    def _note(self) -> None:
        read = len(self.reduced) + len(self.skipped)
        if not self.done:
            text = f"reading runs {read}/{len(self.runs)}…"
        else:
            flagged = sum(1 for r in self.rows if r.flags)
            text = (f"{len(self.shown)} of {len(self.rows)} tasks · {flagged} flagged · "
                    f"{len(self.reduced)} finished runs")  # fmt: skip
            if self.skipped:
                text += f" · {len(self.skipped)} left out (not finished or not recomputed)"
            text += " · flagged first · enter: runs"
        self.query_one("#items-note", Static).update(literal(text))

    def _show(self) -> None:
        text = self.query_one("#items-filter", Input).value
        self.shown = filter_rows(self.rows, text) if text.strip() else list(self.rows)
        self.table.show(self.shown)
        self._note()
        self.show_cursor()

    def show_cursor(self) -> None:
        """Below the table: the flags' reasons of the row under the cursor, and its runs."""
        row = self.table.cursor_item if self.shown else None
        reason = self.query_one("#items-reason", Static)
        if row is None:
            reason.update("")
            self.marks.show([])
            return
        lines = [f"{f.flag}: {f.reason}" for f in row.flags] or [
            f"{row.task_id}: no flag · {plural(row.runs, 'run')} · {plural(row.attempts, 'attempt')}"
        ]
        reason.update(literal("\n".join(lines)))
        self.marks.show(_order(row.marks))

    @on(VirtualTable.CursorMoved, "#items-table")
    def _cursor_moved(self, event: VirtualTable.CursorMoved) -> None:
        self.show_cursor()

    @on(VirtualTable.Selected, "#items-table")
    def _row_selected(self, event: VirtualTable.Selected) -> None:
        if self.shown:
            self.marks.focus()

    @on(VirtualTable.Selected, "#items-marks")
    def _mark_selected(self, event: VirtualTable.Selected) -> None:
        row, mark = self.table.cursor_item, self.marks.cursor_item
        if row is None or mark is None:
            return
        self.notify(f"Opening {mark.run}…", timeout=2, markup=False)
        self._open(self.paths.get(mark.run, mark.run), row.task_id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="items-open",
          description="open a run's task")  # fmt: skip
    def _open(self, path: str, task_id: str) -> None:
        host = host_of(self)
        overrides = host.settings.overrides if host is not None else None
        result = loading.read(Path(path), overrides)
        if isinstance(result, loading.Failed):
            self.app.call_from_thread(self.notify, result.message, severity="error", markup=False)
            return
        self.post_message(self.SessionReady(result.session, task_id))

    @on(SessionReady)
    def _session_ready(self, message: SessionReady) -> None:
        self.post_message(OpenTask(message.session, message.task_id, None))

    def action_focus_filter(self) -> None:
        field = self.query_one("#items-filter", Input)
        field.display = True
        field.focus()

    @on(Input.Changed, "#items-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        if self.done:
            self._show()

    @on(Input.Submitted, "#items-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.table.focus()

    def action_back(self) -> None:
        if self.marks.has_focus or self.query_one("#items-filter", Input).has_focus:
            self.table.focus()
        else:
            self.app.pop_screen()
