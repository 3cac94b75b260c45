"""Flaky tasks: the tasks whose attempts disagree, and the pass@j / pass^j curves.

Reached from the overview (``f``). The numbers come from :mod:`inspector.views.run_stats`,
computed in a worker; the screen only arranges them. **s** switches the order between most
disagreement first and task id; **/** filters (task id, category, metric); **enter** opens
the task.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Header, Static

from inspector.app.list_filter import FIND, FilteredList, holds
from inspector.app.navigation import OpenTask
from inspector.app.titles import plural, session_title
from inspector.session import Session
from inspector.views.attempt_stats import (
    FlakyTask,
    PassCurve,
    flaky_tasks,
    outcomes_text,
    pass_curves,
)
from inspector.views.attempt_stats import pass_curves_note as curves_note
from widgets.bar_chart import Bar, BarChart
from widgets.key_footer import KeyFooter
from widgets.literal import literal
from widgets.record_table import Field, RecordTable
from widgets.virtual_table import VirtualTable

ORDERS = ("disagreement", "task")


def _passes(flaky: FlakyTask) -> str:
    return "" if flaky.passes is None else f"{flaky.passes}/{flaky.observed}"


FLAKY_FIELDS: tuple[Field[FlakyTask], ...] = (
    Field("task", "task", lambda f: f.task_id, cut="middle"),
    Field("category", "category", lambda f: f.category, max_chars=40, fold=1, shrink=12,
          cut="middle"),
    Field("metric", "metric", lambda f: f.metric_id, cut="middle"),
    Field("disagreement", "disagreement", lambda f: f"{f.disagreement:.3f}", justify="right",
          short="disagr"),
    Field("passes", "passes", lambda f: _passes(f), justify="right"),
    Field("attempts", "attempts", outcomes_text),
)  # fmt: skip
"""Below ~95 columns the header "disagreement" shortens and the category is cut in the
middle (the line under the table says the cursor's row in full); ids, values and each
attempt's outcome never fold."""


def cursor_text(flaky: FlakyTask) -> str:
    """The cursor's row in full, for the line under the table."""
    passes = _passes(flaky)
    return " · ".join(
        part
        for part in (
            flaky.task_id,
            flaky.category,
            flaky.metric_id,
            f"disagreement {flaky.disagreement:.3f}",
            f"passes {passes}" if passes else "",
            outcomes_text(flaky),
        )
        if part
    )


def curve_rows(curve: PassCurve) -> list[Bar]:
    """pass@j then pass^j, one bar per j, each with its estimate and se."""
    rows = []
    for name, points in (("pass@", curve.pass_at), ("pass^", curve.pass_hat)):
        for j, point in enumerate(points, 1):
            se = "" if point.se is None else f" ± {point.se:.3f} se"
            estimate = "—" if point.estimate is None else f"{point.estimate:.3f}"
            rows.append(Bar(f"{name}{j}", point.estimate, estimate + se))
    return rows


def curve_title(curve: PassCurve) -> str:
    theirs = ", ".join(
        f"{sid} = {'—' if v is None else f'{v:.3f}'}" for sid, v in curve.agentcompass.items()
    )
    return (
        f"{curve.metric_id}: Chen et al. estimates over {plural(curve.tasks, 'task')} with all {curve.k} "
        f"attempts ({curve.excluded} left out) — AgentCompass's own: {theirs}"
    )


class FlakyScreen(FilteredList):
    """The flaky tasks of a run and its pass@j / pass^j estimates."""

    HELP = """\
# Flaky tasks
Tasks whose recorded attempts disagree on the primary metric or a binary metric, with each
attempt's outcome (✓ / ✗, a number, or — when the attempt recorded none). `disagreement` is
4p(1 − p) for a binary metric (1 = an even split) and max − min for a scalar one.
Above: Chen et al.'s unbiased pass@j and pass^j for j = 1..k (runs where every attempt ran),
estimates beside — never instead of — AgentCompass's own pass@k.
**s** switches the order (most disagreement first / task id); **/** filters as you type (task
id, category, metric; escape clears); **enter** opens the task.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", tooltip="Return to the overview"),
        Binding("s", "sort", "Sort", tooltip="Most disagreement first / by task id"),
        FIND,
    ]

    @dataclass
    class Computed(Message):
        flaky: tuple[FlakyTask, ...]
        curves: tuple[PassCurve, ...]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.flaky: tuple[FlakyTask, ...] = ()
        self.shown: tuple[FlakyTask, ...] = ()
        self.order = ORDERS[0]

    def shown_sessions(self) -> tuple[Session, ...]:
        return (self.session,)

    @property
    def table(self) -> RecordTable[FlakyTask]:
        return self.query_one("#flaky-tasks", RecordTable)

    def compose(self) -> ComposeResult:
        yield Header()
        yield BarChart(id="pass-curves")
        yield Static(id="flaky-summary")
        yield self.filter_input("/ text (task id, category, metric)")
        yield RecordTable(FLAKY_FIELDS, id="flaky-tasks")
        yield Static(id="flaky-cursor")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = session_title(self.session)
        self.sub_title = "flaky tasks"
        self.table.loading = True
        self._compute()

    @work(thread=True, exclusive=True, exit_on_error=False, group="flaky",
          description="flaky tasks")  # fmt: skip
    def _compute(self) -> None:
        rec = self.session.recomputation
        assert rec is not None
        self.post_message(self.Computed(flaky_tasks(rec), pass_curves(rec)))

    @on(Computed)
    def _computed(self, message: Computed) -> None:
        rec = self.session.recomputation
        assert rec is not None
        chart = self.query_one(BarChart)
        if message.curves:
            curve = message.curves[0]  # the primary metric's when it is binary
            chart.show(curve_title(curve), curve_rows(curve))
        else:
            chart.show(curves_note(rec) or "no binary metric: no pass@j / pass^j", [])
        self.flaky = message.flaky
        self.table.loading = False
        self._show()
        self.table.focus()

    def _show(self) -> None:
        needle = self.needle
        kept = [f for f in self.flaky if holds(needle, f.task_id, f.category, f.metric_id)]
        if self.order == "task":
            kept.sort(key=lambda f: (f.task_id, f.metric_id))
        self.shown = tuple(kept)
        order = "most disagreement first" if self.order == "disagreement" else "by task id"
        counted = f"{len(self.flaky)} flaky task/metric pairs"
        if needle:
            counted = f"{len(self.shown)} of {counted} hold the filter"
        self.query_one("#flaky-summary", Static).update(
            f"{counted} · {order} (s: switch) · /: filter · enter: open task"
        )
        self.table.show(self.shown)
        self.show_cursor()

    def refilter(self) -> None:
        self._show()

    def list_widget(self) -> RecordTable[FlakyTask]:
        return self.table

    def open_first(self) -> None:
        if self.shown:
            self._open(self.shown[0])

    def show_cursor(self) -> None:
        """The line under the table: the cursor's row in full."""
        row = self.table.cursor_item if self.shown else None
        self.query_one("#flaky-cursor", Static).update(
            literal(cursor_text(row)) if row is not None else ""
        )

    @on(VirtualTable.CursorMoved, "#flaky-tasks")
    def _cursor_moved(self, event: VirtualTable.CursorMoved) -> None:
        self.show_cursor()

    def action_sort(self) -> None:
        self.order = ORDERS[(ORDERS.index(self.order) + 1) % len(ORDERS)]
        self._show()

    @on(VirtualTable.Selected, "#flaky-tasks")
    def _selected(self, event: VirtualTable.Selected) -> None:
        if not self.shown:
            return
        self._open(self.shown[min(event.row, len(self.shown) - 1)])

    def _open(self, flaky: FlakyTask) -> None:
        rec = self.session.recomputation
        assert rec is not None
        series = next(
            (s.series_id for s in rec.report.series if s.metric_id == flaky.metric_id),
            rec.report.summary_series.series_id,
        )
        self.post_message(OpenTask(self.session, flaky.task_id, series))

    def action_back(self) -> None:
        self.app.pop_screen()
