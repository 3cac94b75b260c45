"""Tasks screen: every count lists exactly its tasks; filters; sorting."""

from __future__ import annotations

import threading

import pytest

from inspector.app.app import InspectorApp
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.tasks import TasksScreen
from inspector.engine.vocabulary import COUNTS
from inspector.views.audit import InCount, Scope, tasks_behind
from inspector.views.tasks import TaskFilter, filter_rows, task_rows
from tests.conftest import conformance_runs
from tests.conftest import open_session as open_run
from widgets.task_filter_bar import TaskFilterBar
from widgets.task_table import TaskTable

from .helpers import capture, cell_text, pilot_test, settle

SIZE = (140, 45)


@pytest.mark.parametrize(
    "name",
    ["k1_micro", "k3_avg_hierarchy", "k3_pass", "k1_evaluation_failed", "load_problems", "hostile"],
)
def test_every_count_selects_exactly_its_tasks(run_path, name: str) -> None:  # type: ignore[no-untyped-def]
    rec = open_run(run_path(name)).recomputation
    assert rec is not None
    for series in rec.report.series:
        rows = task_rows(rec, series.series_id)
        for count in COUNTS:
            shown = filter_rows(rows, TaskFilter(series.series_id, state=InCount(count)))
            assert len(shown) == getattr(series.counts, count), (series.series_id, count)
        for key, part in series.categories.items():
            for count in COUNTS:
                shown = filter_rows(
                    rows,
                    TaskFilter(
                        series.series_id, state=InCount(count), categories=frozenset({key})
                    ),
                )
                assert len(shown) == getattr(part.counts, count), (series.series_id, key, count)


@pytest.mark.parametrize("path", conformance_runs(), ids=lambda p: p.name)
def test_rows_behind_a_count_are_the_ledger_s_tasks(path) -> None:  # type: ignore[no-untyped-def]
    """The tasks screen and the count ledger are one implementation: same tasks, same order."""
    rec = open_run(path).recomputation
    assert rec is not None
    for series in rec.report.series:
        rows = task_rows(rec, series.series_id)
        for count in COUNTS:
            shown = filter_rows(rows, TaskFilter(series.series_id, state=InCount(count)))
            ledger = tasks_behind(rec, series.series_id, count)
            assert [r.task_id for r in shown] == list(ledger.task_ids), (series.series_id, count)
            for key in series.categories:
                shown = filter_rows(
                    rows,
                    TaskFilter(
                        series.series_id, state=InCount(count), categories=frozenset({key})
                    ),
                )
                ledger = tasks_behind(rec, series.series_id, count, Scope(category=key))
                assert [r.task_id for r in shown] == list(ledger.task_ids), (key, count)


async def _tasks_screen(pilot, task_filter: TaskFilter) -> TasksScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    overview = pilot.app.screen
    assert isinstance(overview, OverviewScreen)
    overview.open_tasks(task_filter)
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, TasksScreen)
    return screen


@pilot_test
async def test_filter_bar_changes_the_rows(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        screen = await _tasks_screen(pilot, TaskFilter("correct.avg@3"))
        total = len(screen.shown)
        changes = capture(screen.filter_bar, TaskFilterBar.Changed)
        state = screen.filter_bar.query_one("#state")
        state.value = InCount("evaluated")  # type: ignore[attr-defined]
        await settle(pilot)
        assert changes and changes[-1].task_filter.state == InCount("evaluated")
        assert all(row.state == "evaluated" for row in screen.shown)
        assert len(screen.shown) < total
        # Text filter on the task id.
        first = screen.shown[0].task_id
        text = screen.filter_bar.query_one("#text")
        text.value = first  # type: ignore[attr-defined]
        await settle(pilot)
        assert [row.task_id for row in screen.shown] == [first] or all(
            first.casefold() in row.task_id.casefold() for row in screen.shown
        )


@pilot_test
async def test_severity_filter(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        screen = await _tasks_screen(pilot, TaskFilter("correct.avg@3", severity="error"))
        assert screen.shown
        assert all(any(k[0] == "error" for k in row.issue_keys) for row in screen.shown)


@pilot_test
async def test_sort_by_column_and_reverse(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        screen = await _tasks_screen(pilot, TaskFilter("correct.avg@3"))
        table = screen.task_table
        sorts = capture(table, TaskTable.SortRequested)
        table.focus()
        table.move_cursor(column=table.get_column_index("value"))
        await pilot.press("s")
        await settle(pilot)
        assert [m.column for m in sorts] == ["value"]
        values = [row.value for row in screen.shown]
        present = [v for v in values if v is not None]
        assert present == sorted(present)
        assert values[: len(present)] == present  # missing values last
        await pilot.press("s")
        await settle(pilot)
        present = [row.value for row in screen.shown if row.value is not None]
        assert present == sorted(present, reverse=True)
        assert cell_text(table, 0, "value") != ""


@pilot_test
async def test_hostile_text_is_literal_in_the_table(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("hostile")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        series_id = overview.selected_series
        assert series_id is not None
        screen = await _tasks_screen(pilot, TaskFilter(series_id))
        table = screen.task_table
        for row in range(table.row_count):
            for column in ("task", "category"):
                text = cell_text(table, row, column)
                assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text


@pilot_test
async def test_filter_bar_is_compact_below_120_columns(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _tasks_screen(pilot, TaskFilter("correct.avg@3"))
        bar = screen.filter_bar
        assert bar.has_class("-narrow") and bar.size.height == 1
        assert all(w.compact for w in bar.query("Select, Input"))  # type: ignore[attr-defined]
        await pilot.resize_terminal(140, 45)
        await settle(pilot)
        assert not bar.has_class("-narrow") and bar.size.height == 3


@pilot_test
async def test_rows_built_in_a_worker_then_the_table_takes_the_focus(run_path) -> None:  # type: ignore[no-untyped-def]
    """A series whose rows are not built yet: the table loads (and cannot take the focus),
    then shows them and takes the focus."""
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen) and overview.recomputation is not None
        rec = overview.recomputation
        other = next(s.series_id for s in rec.report.series if s is not rec.report.summary_series)
        indexes = app.task_indexes(rec)
        assert indexes.get(other) is None
        release = threading.Event()
        build = indexes.build

        def slow_build(series_id: str):  # type: ignore[no-untyped-def]
            release.wait(10)
            return build(series_id)

        indexes.build = slow_build  # type: ignore[method-assign]
        overview.open_tasks(TaskFilter(other))
        for _ in range(3):
            await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TasksScreen)
        assert screen.task_table.loading and app.focused is None
        release.set()
        await settle(pilot)
        assert not screen.task_table.loading and app.focused is screen.task_table
        assert screen.task_table.task_ids == [row.task_id for row in task_rows(rec, other)]
