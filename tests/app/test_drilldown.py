"""The drill-down overview → count → tasks → task → diagnostics and back, by keys."""

from __future__ import annotations

from inspector.app.app import InspectorApp
from inspector.app.screens.diagnostics import DiagnosticsScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.task import TaskScreen
from inspector.app.screens.tasks import TasksScreen
from inspector.views.audit import InCount
from widgets.attempt_card import AttemptCard
from widgets.task_table import TaskTable

from .helpers import capture, pilot_test, settle, static_text

SIZE = (140, 45)


@pilot_test
async def test_drill_down_and_back(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        rec = overview.session.recomputation
        assert rec is not None
        # Value → 95% CI → Total → Evaluated → Error → Unavailable.
        await pilot.press("right", "right", "right", "right", "right", "enter")
        await settle(pilot)
        tasks = app.screen
        assert isinstance(tasks, TasksScreen)
        series = rec.report.series_by_id("correct.avg@3")
        assert tasks.task_filter.state == InCount("unavailable")
        assert len(tasks.shown) == series.counts.unavailable > 0
        assert {row.state for row in tasks.shown} <= {"error", "unavailable"}
        note = static_text(tasks.note)
        assert "includes error-state tasks" in note
        chosen = capture(tasks.task_table, TaskTable.TaskChosen)
        first = tasks.task_table.task_id
        await pilot.press("enter")
        await settle(pilot)
        task = app.screen
        assert isinstance(task, TaskScreen)
        assert [m.task_id for m in chosen] == [first]
        assert task.task_id == first
        cards = task.cards
        assert [card.index for card in cards] == [1, 2, 3]
        assert task.payloads or task.payload_errors
        focused = app.focused
        assert isinstance(focused, AttemptCard)
        await pilot.press("d")
        await settle(pilot)
        diagnostics = app.screen
        assert isinstance(diagnostics, DiagnosticsScreen)
        assert diagnostics.attempt == focused.index
        keys = [source.key for source in diagnostics.sources]
        assert "raw:result.json" in keys
        assert diagnostics.pager.document is not None
        await pilot.press("escape")
        assert isinstance(app.screen, TaskScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, TasksScreen)
        await pilot.press("escape")
        assert app.screen is overview
        # Escape on the first screen stays there.
        await pilot.press("escape")
        assert app.screen is overview


@pilot_test
async def test_q_quits(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k1_micro")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


@pilot_test
async def test_reload_replaces_the_session(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k1_micro")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = app.session
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TasksScreen)
        await pilot.press("r")
        await settle(pilot)
        assert app.session is not first
        assert isinstance(app.screen, TasksScreen)
        assert app.screen.session is app.session
