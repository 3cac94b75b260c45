"""One task: the reduction of every series, and its attempts side by side."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.widgets import Header, Static

from inspector.app.handoff import command_of, hand_over
from inspector.app.host import InspectorScreen
from inspector.app.messages import PayloadsLoaded
from inspector.app.navigation import OpenDiagnostics
from inspector.app.payloads import PayloadTooLarge, read_payload, result_path, too_large_message
from inspector.app.titles import middle, place, run_label, session_title
from inspector.engine.model import TaskRecord
from inspector.engine.reduction import TaskReduction
from inspector.engine.render import format_value
from inspector.results.lazy import ground_truth
from inspector.results.problems import ResultFileError
from inspector.session import Session
from inspector.views.rules import series_rules, timeout_fallback
from widgets.attempt_card import AttemptCard, json_scalar
from widgets.key_footer import KeyFooter
from widgets.literal import literal, literal_plain
from widgets.reductions_panel import ReductionsPanel


class TaskScreen(InspectorScreen):
    """The task's reductions with reasons, its attempts, final answers and ground truth."""

    HELP = """\
# Task
Top: how every series reduced this task and why. Below: the attempts side by side (three
a row from 120 columns, two from 100, one below), the focused one framed.
**.** / **,** move to the next / previous attempt (tab too); **d** opens the diagnostics
of the focused attempt.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("full_stop", "attempt(1)", "Next attempt", tooltip="Focus the next attempt"),
        Binding("comma", "attempt(-1)", "Prev attempt", show=False, tooltip="The previous attempt"),
        Binding(
            "d",
            "diagnostics",
            "Diagnostics",
            tooltip="Verifier output, retries, artifacts, trajectory",
        ),
        Binding(
            "o",
            "open_result",
            "Pager: result.json",
            tooltip="Read the focused attempt's result.json in $PAGER (the file itself)",
        ),
        Binding(
            "e",
            "open_folder",
            "Editor: task folder",
            tooltip="Open the task's folder in $EDITOR (the inspector itself never writes)",
        ),
    ]

    def __init__(
        self, session: Session, task_id: str, series_id: str, side: str | None = None
    ) -> None:
        super().__init__()
        self.session = session
        self.task_id = task_id
        self.series_id = series_id
        self.side = side
        """Which side of a comparison the task was opened on ("side B: <label>"), if any."""
        self.payloads: dict[int, dict[str, Any]] = {}
        self.payload_errors: dict[int, str] = {}

    def shown_sessions(self) -> tuple[Session, ...]:
        return (self.session,)

    @property
    def task(self) -> TaskRecord:
        rec = self.session.recomputation
        assert rec is not None
        return rec.tasks[rec.task_index()[self.task_id]]

    @property
    def reductions(self) -> list[TaskReduction]:
        rec = self.session.recomputation
        assert rec is not None
        index = rec.task_index()[self.task_id]
        return [rec.reductions[s.series_id][index] for s in rec.report.series]

    @property
    def cards(self) -> list[AttemptCard]:
        return list(self.query(AttemptCard))

    @property
    def k(self) -> int:
        rec = self.session.recomputation
        assert rec is not None
        return rec.plan.k

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="task-body"):
            yield Static(id="task-head")
            yield Static(id="task-files")
            yield ReductionsPanel()
            with Grid(id="attempts"):
                for index in range(1, self.k + 1):
                    yield AttemptCard(index, id=f"attempt-{index}")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = session_title(self.session)
        self.sub_title = place(f"task {self.task_id}", self.series_id, self.side)
        self.show_task()
        self._load_payloads()
        focus = self._default_attempt()
        # Focus the attempt that failed without scrolling to it: the task id, category and
        # ground truth stay on screen, above the attempts.
        self.query_one(f"#attempt-{focus}", AttemptCard).focus(scroll_visible=False)

    def _default_attempt(self) -> int:
        task = self.task
        for index in sorted(task.attempts):
            if task.attempts[index].has_error_issue:
                return index
        return min(task.attempts) if task.attempts else 1

    def show_task(self) -> None:
        rec = self.session.recomputation
        assert rec is not None
        task = self.task
        index = rec.task_index()[self.task_id]
        head = Table.grid(padding=(0, 1))
        head.add_column(style="bold", no_wrap=True)
        head.add_column(overflow="fold")
        if self.side:
            head.add_row("side", Text(self.side, "bold"))
        head.add_row("task", _folding(literal(task.task_id, max_chars=400)))
        head.add_row("category", _folding(literal(rec.category_keys[index], max_chars=200)))
        try:  # not held with the task: read again from its task.json
            truth = ground_truth(self.session.run, task)
        except ResultFileError as exc:
            head.add_row("ground truth", literal(exc.problem.line(), max_chars=600))
        else:
            head.add_row(
                "ground truth",
                literal(
                    truth if isinstance(truth, str) else json_scalar(truth),
                    multiline=True,
                    max_chars=600,
                ),
            )
        plan = Text(f"k={task.plan_k} strategy={task.plan_strategy}")
        if rec.plan.derived:
            plan.append(" · derived plan: ", "bold yellow")
            plan.append_text(literal(rec.plan.derived))
        head.add_row("plan", plan)
        head.add_row("retries", Text(str(task.retry_count)))
        head.add_row("source", _folding(literal(task.source, max_chars=400)))
        self.query_one("#task-head", Static).update(head)
        series = {s.series_id: s for s in rec.report.series}
        self.query_one(ReductionsPanel).show(
            self.reductions,
            lambda sid, value: format_value(value, series[sid]),
            series_rules(rec, self.task_id),
        )
        self.show_attempts()
        self.show_files()

    def show_attempts(self) -> None:
        task = self.task
        early = any(r.early_stopped for r in self.reductions)
        rec = self.session.recomputation
        benchmark = rec.plan.benchmark_id if rec is not None else ""
        for card in self.cards:
            attempt = task.attempts.get(card.index)
            card.show(
                attempt,
                rule=timeout_fallback(benchmark, attempt) if attempt is not None else None,
                retries=task.retry_counts.get(card.index, 0),
                payload=self.payloads.get(card.index),
                payload_error=self.payload_errors.get(card.index),
                early_stopped=early,
            )

    @work(
        thread=True,
        exclusive=True,
        exit_on_error=False,
        group="payloads",
        description="read attempts",
    )
    def _load_payloads(self) -> None:
        run = self.session.run
        entry = run.entry_for(self.task_id)
        payloads: dict[int, dict[str, Any]] = {}
        errors: dict[int, str] = {}
        if entry is not None:
            for index in sorted(self.task.attempts):
                try:
                    payloads[index] = read_payload(run, entry, index)
                except PayloadTooLarge as exc:
                    size = too_large_message(exc.size, exc.limit)
                    errors[index] = f"result.json: {size}; d pages the raw file from disk"
                except ResultFileError as exc:
                    errors[index] = exc.problem.line()
                except Exception as exc:
                    errors[index] = f"{type(exc).__name__}: {exc}"
        self.post_message(PayloadsLoaded(payloads, errors))

    @on(PayloadsLoaded)
    def _payloads_loaded(self, message: PayloadsLoaded) -> None:
        self.payloads = message.payloads
        self.payload_errors = message.errors
        self.show_attempts()

    def result_file(self) -> str | None:
        """The focused attempt's ``result.json``, relative to the run (None: no such file)."""
        entry = self.session.run.entry_for(self.task_id)
        index = self.focused_attempt()
        if entry is None or index not in self.task.attempts:
            return None
        return result_path(entry, index)

    def task_folder(self) -> str | None:
        """The task's folder, relative to the run."""
        entry = self.session.run.entry_for(self.task_id)
        return entry.folder if entry is not None else None

    def show_files(self) -> None:
        """Which file ``o`` and which folder ``e`` open (under the run's folder; cut in the
        middle to one line each: the attempt and the file name stay)."""
        run = run_label(self.session.run.path)
        room = max(20, (self.size.width or 140) - 12)
        text = Text()
        result = self.result_file()
        text.append("o ", "bold")
        if result is None:
            text.append(f"attempt {self.focused_attempt()} has no result.json", "dim")
        else:
            pager = command_of("PAGER")
            text.append(f"{pager} ")
            text.append(middle(literal_plain(f"{run}/{result}"), room - len(pager)))
        folder = self.task_folder()
        if folder is not None:
            editor = command_of("EDITOR")
            text.append("\ne ", "bold")
            text.append(f"{editor} ")
            text.append(middle(literal_plain(f"{run}/{folder}/"), room - len(editor)))
        self.query_one("#task-files", Static).update(text)

    def on_resize(self) -> None:
        self.show_files()
        width = self.size.width
        per_row = 3 if width >= 120 else 2 if width >= 100 else 1
        self.query_one("#attempts", Grid).styles.grid_size_columns = min(per_row, self.k)

    def action_attempt(self, step: int) -> None:
        """Focus the next (``step`` 1) or previous (-1) attempt, and show it whole."""
        cards = self.cards
        if not cards:
            return
        current = self.focused_attempt()
        index = next((n for n, card in enumerate(cards) if card.index == current), 0)
        card = cards[(index + step) % len(cards)]
        card.focus(scroll_visible=False)
        body = self.query_one("#task-body", VerticalScroll)
        self.call_after_refresh(body.scroll_to_widget, card, animate=False, top=True)

    def on_descendant_focus(self) -> None:
        self.show_files()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("open_result", "open_folder"):  # a browser has no terminal to hand over
            return not self.app.is_web
        return True

    def action_open_result(self) -> None:
        result = self.result_file()
        if result is None:
            self.notify(f"Attempt {self.focused_attempt()} has no result.json.", severity="warning")
            return
        hand_over(self.app, "PAGER", self.session.run.path / result)

    def action_open_folder(self) -> None:
        folder = self.task_folder()
        if folder is None:
            self.notify("The task has no folder in this run.", severity="warning")
            return
        hand_over(self.app, "EDITOR", self.session.run.path / folder)

    def focused_attempt(self) -> int:
        focused = self.focused
        if isinstance(focused, AttemptCard):
            return focused.index
        return self._default_attempt()

    def action_diagnostics(self) -> None:
        self.post_message(
            OpenDiagnostics(self.session, self.task_id, self.focused_attempt(), self.side)
        )

    def refresh_session(self, replaced: Session, session: Session) -> None:
        if self.session is not replaced:
            return
        rec = session.recomputation
        if rec is None or self.task_id not in rec.task_index():
            self.notify("This task is no longer in the reloaded run.", severity="warning")
            return
        self.session = session
        self.show_task()
        self._load_payloads()


def _folding(text: Text) -> Text:
    """``text`` folded onto the next lines when longer than its column, so a long task id,
    category or task folder is whole on screen (at 80 columns too)."""
    text.no_wrap, text.overflow = False, "fold"
    return text
