"""A 3,000-task run (fixtures/make_large_run.py): the tasks table sorts, filters and scrolls
exactly as the model says, drawn by the virtual table; the index agrees with the model; the
count ledger and "explain" hold every task.

Functional, not timed: benchmarks/bench_app.py times the same steps on 50,000 tasks.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from inspector.app.navigation import TaskPairChosen
from inspector.app.screens.compare import CompareScreen
from inspector.app.screens.explain import ExplainScreen
from inspector.app.screens.ledger import LedgerScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.task import TaskScreen
from inspector.app.screens.tasks import TasksScreen
from inspector.views.audit import InCount, tasks_behind
from inspector.views.explain import explain
from inspector.views.task_index import TaskIndex
from inspector.views.tasks import (
    STATE_FILTERS,
    TaskFilter,
    filter_rows,
    natural_key,
    sort_rows,
    task_rows,
)
from tests.conftest import ROOT
from tests.conftest import open_session as open_run
from widgets.task_table import COLUMNS, TaskTable

from .helpers import capture, cell_text, pilot_test, settle, static_text

SIZE = (140, 45)
TASKS = 3000


@pytest.fixture(scope="module")
def large_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3,000 tasks at k=3 with small trajectories, error, fatal and missing attempts."""
    out = tmp_path_factory.mktemp("large") / "large" / "run_3000"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "fixtures" / "make_large_run.py"),
            "--out",
            str(out),
            "--tasks",
            str(TASKS),
            "--k",
            "3",
            "--trajectory-kb",
            "0.5",
            "--fatal-rate",
            "0.02",
            "--seed",
            "3",
        ],
        check=True,
        capture_output=True,
    )
    return out


def _expected(rows, task_filter: TaskFilter, column: str | None = None, reverse: bool = False):  # type: ignore[no-untyped-def]
    shown = filter_rows(rows, task_filter)
    return sort_rows(shown, column, reverse) if column else shown


def _ids(rows) -> list[str]:  # type: ignore[no-untyped-def]
    return [row.task_id for row in rows]


def test_index_selects_what_the_model_selects(large_run: Path) -> None:
    rec = open_run(large_run).recomputation
    assert rec is not None
    series_id = rec.report.summary_series.series_id
    rows = task_rows(rec, series_id)
    index = TaskIndex(series_id, rows)
    assert len(index) == TASKS
    severities = sorted({key[0] for row in rows for key in row.issue_keys})
    filters = [TaskFilter(series_id)]
    filters += [TaskFilter(series_id, state=token) for token, _ in STATE_FILTERS]
    filters += [
        TaskFilter(series_id, text="Q0001"),
        TaskFilter(series_id, text="cat_003/", state=InCount("error")),
        TaskFilter(series_id, categories=frozenset({"cat_001", "cat_007"}), category_label="x"),
        TaskFilter(series_id, task_ids=frozenset(row.task_id for row in rows[::7])),
        TaskFilter(series_id, code="model_timeout"),
        TaskFilter(series_id, severity=severities[0], phase="run"),
    ]
    for task_filter in filters:
        assert _ids(index.select(task_filter)) == _ids(_expected(rows, task_filter))
        for column, _ in COLUMNS:
            for reverse in (False, True):
                assert _ids(index.select(task_filter, column, reverse)) == _ids(
                    _expected(rows, task_filter, column, reverse)
                ), (task_filter, column, reverse)


def test_a_prepared_index_holds_a_few_bytes_a_row(large_run: Path) -> None:
    """Made when a tasks screen first shows a series, the index keeps per row what its
    sorts and state filters need, not a key tuple per text column (issue 53: 1.8 KB a row,
    180 MB at 100,000 tasks), and its rows share their texts (361 bytes a row before).
    Measured with tracemalloc, not timed."""
    rec = open_run(large_run).recomputation
    assert rec is not None
    series_id = rec.report.summary_series.series_id
    gc.collect()
    tracemalloc.start()
    try:
        index = TaskIndex(series_id, task_rows(rec, series_id))
        rows = tracemalloc.get_traced_memory()[0]
        index.prepare()
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - rows
    finally:
        tracemalloc.stop()
    # The rows share their marks, words and issue sets (a few distinct in a run).
    assert rows / TASKS < 260, f"rows: {rows / TASKS:.0f} bytes a row"
    assert held / TASKS < 400, f"index: {held / TASKS:.0f} bytes a row"


async def _tasks(pilot, task_filter: TaskFilter | None = None) -> TasksScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    overview = pilot.app.screen
    assert isinstance(overview, OverviewScreen)
    assert overview.series_table.row_count > 0, "the large run was not read"
    overview.open_tasks(task_filter or TaskFilter(overview.selected_series or ""))
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, TasksScreen)
    return screen


def _visible_ids(table: TaskTable) -> list[str]:
    top = table.scroll_offset.y
    height = table.scrollable_content_region.height - table.header_height
    return [table.task_id_at(row) for row in range(top, min(top + height, table.row_count))]


@pilot_test
async def test_sort_keys_follow_the_model(large_run: Path) -> None:
    app = InspectorApp([large_run])
    async with app.run_test(size=SIZE) as pilot:
        screen = await _tasks(pilot)
        table = screen.task_table
        rows = task_rows(screen.session.recomputation, screen.task_filter.series_id)  # type: ignore[arg-type]
        assert table.row_count == TASKS and _ids(table.rows) == _ids(rows)
        sorts = capture(table, TaskTable.SortRequested)
        for column in ("state", "value", "severity", "retries"):
            table.move_cursor(column=table.get_column_index(column))
            for reverse in (False, True):
                await pilot.press("s")
                await settle(pilot)
                expected = sort_rows(rows, column, reverse)
                assert (screen.sort_column, screen.sort_reverse) == (column, reverse)
                assert table.task_ids == _ids(expected)
                # What is drawn is the sorted rows from the top.
                assert _visible_ids(table) == _ids(expected)[: len(_visible_ids(table))]
                assert cell_text(table, 0, "task") == expected[0].task_id
        assert [m.column for m in sorts] == ["state", "state", "value", "value", "severity",
                                            "severity", "retries", "retries"]  # fmt: skip


@pilot_test
async def test_text_and_state_filters_follow_the_model(large_run: Path) -> None:
    app = InspectorApp([large_run])
    async with app.run_test(size=SIZE) as pilot:
        screen = await _tasks(pilot)
        table = screen.task_table
        rows = task_rows(screen.session.recomputation, screen.task_filter.series_id)  # type: ignore[arg-type]
        screen.filter_bar.query_one("#text").focus()
        for typed in ("q", "q0", "q00", "q001"):
            await pilot.press(typed[-1])
            await settle(pilot)
            expected = filter_rows(rows, screen.task_filter)
            assert screen.task_filter.text == typed
            assert table.task_ids == _ids(expected) and table.row_count == len(expected)
        state = screen.filter_bar.query_one("#state")
        for token, _ in STATE_FILTERS:
            state.value = token  # type: ignore[attr-defined]
            await settle(pilot)
            expected = filter_rows(rows, TaskFilter(screen.task_filter.series_id, state=token,
                                                    text="q001"))  # fmt: skip
            assert table.task_ids == _ids(expected), token
        note = str(screen.note.content)
        assert note.startswith(f"{table.row_count} of {TASKS} tasks")


@pilot_test
async def test_scrolling_draws_the_rows_under_the_cursor(large_run: Path) -> None:
    app = InspectorApp([large_run])
    async with app.run_test(size=SIZE) as pilot:
        screen = await _tasks(pilot)
        table = screen.task_table
        table.focus()
        page = table.scrollable_content_region.height - table.header_height
        await pilot.press("pagedown")
        assert table.cursor_row == page
        await pilot.press("ctrl+end")
        await settle(pilot)
        assert table.cursor_row == TASKS - 1
        visible = _visible_ids(table)
        assert visible[-1] == table.task_ids[-1] and len(visible) == page
        # The last line on screen is the last task, as drawn.
        last = table.render_line(table.scrollable_content_region.height - 1).text
        assert table.task_ids[-1] in last
        await pilot.press("up", "pageup", "ctrl+home")
        await settle(pilot)
        assert table.cursor_row == 0 and table.scroll_offset.y == 0
        assert table.task_ids[0] in table.render_line(1).text
        opened = capture(table, TaskTable.TaskChosen)
        await pilot.press("down", "enter")
        assert [m.task_id for m in opened] == [table.task_ids[1]]


@pilot_test
async def test_header_click_sorts(large_run: Path) -> None:
    app = InspectorApp([large_run])
    async with app.run_test(size=SIZE) as pilot:
        screen = await _tasks(pilot)
        table = screen.task_table
        sorts = capture(table, TaskTable.SortRequested)
        x = sum(column.render_width for column in table.columns[:2]) + 1  # the State header
        await pilot.click(TaskTable, offset=(x, 0))
        await settle(pilot)
        assert [m.column for m in sorts] == ["state"] and screen.sort_column == "state"


@pilot_test
async def test_the_run_s_objects_are_kept_from_full_collections(large_run: Path) -> None:
    """Loading freezes the run's objects (no half-second collections while typing); the app
    hands them back when it exits."""
    app = InspectorApp([large_run])
    async with app.run_test(size=SIZE) as pilot:
        await _tasks(pilot)
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


@pilot_test
async def test_ledger_and_explain_list_every_task(large_run: Path) -> None:
    """The count ledger and "explain" of 3,000 tasks: virtual tables holding every task."""
    app = InspectorApp([large_run])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen) and overview.recomputation is not None
        rec, series_id = overview.recomputation, overview.selected_series or ""
        overview.open_ledger(series_id, "total")
        await settle(pilot)
        ledger = app.screen
        assert isinstance(ledger, LedgerScreen)
        expected = tasks_behind(rec, series_id, "total").task_ids
        assert len(expected) == TASKS
        assert [task.task_id for task in ledger.task_table.rows] == list(expected)
        ledger.task_table.focus()
        await pilot.press("ctrl+end")
        await settle(pilot)
        assert static_text(ledger.reasons).startswith(expected[-1])
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TaskScreen) and app.screen.task_id == expected[-1]
        await pilot.press("escape", "escape")
        await settle(pilot)
        overview.open_explain(series_id)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ExplainScreen)
        explanation = explain(rec, series_id)
        assert [term.label for term in screen.term_table.rows] == [
            term.label for term in explanation.terms
        ]
        assert [task.task_id for task in screen.task_table.rows] == [
            task.task_id for task in explanation.tasks
        ]


@pilot_test
async def test_compare_lists_every_aligned_task(large_run: Path) -> None:
    """A what-if (k=1 beside avg@3) of 3,000 tasks: the task table holds every aligned task."""
    app = InspectorApp([large_run])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.session is not None
        app.compare_plan(app.session, 1, "avg")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        screen.task_filter = "all"
        await settle(pilot)
        expected = [change.task_id for change in screen.comparison.tasks(screen.pair)]
        expected.sort(key=natural_key)  # the compare screen lists ids in natural order
        assert len(expected) == TASKS
        assert [change.task_id for change in screen.task_table.rows] == expected
        opened = capture(screen, TaskPairChosen)
        screen.task_table.focus()
        await pilot.press("ctrl+end", "enter")
        assert [m.task_id for m in opened] == [expected[-1]]
