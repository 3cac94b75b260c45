"""What fits at 80×24, 100×30 and 140×45 (issue 14 items 6 and 8): every count of the
series table without scrolling sideways, category names whole in the tree at 140 columns,
issue codes on one line in the filter bar, the reasons of a task as lines of text."""

from __future__ import annotations

import pytest

from inspector.app.app import InspectorApp
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.task import TaskScreen
from inspector.app.screens.tasks import TasksScreen
from inspector.views.tasks import TaskFilter
from widgets.reductions_panel import ReductionsPanel
from widgets.series_table import COUNT_COLUMNS

from .helpers import pilot_test, settle, static_text

SIZES = [(80, 24), (100, 30), (140, 45)]


def _line(widget, y: int) -> str:  # type: ignore[no-untyped-def]
    return "".join(segment.text for segment in widget.render_line(y))


async def _overview(pilot, app: InspectorApp) -> OverviewScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, OverviewScreen)
    return screen


async def _task(pilot, app: InspectorApp, task_id: str) -> TaskScreen:  # type: ignore[no-untyped-def]
    overview = await _overview(pilot, app)
    assert overview.session is not None
    app.push_screen(TaskScreen(overview.session, task_id, "correct.avg@3"))
    await settle(pilot)
    assert isinstance(app.screen, TaskScreen)
    return app.screen


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pilot_test
async def test_series_table_shows_every_count_without_scrolling(run_path, size) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=size) as pilot:
        overview = await _overview(pilot, app)
        table = overview.series_table
        keys = [column.key.value for column in table.ordered_columns]
        assert set(COUNT_COLUMNS) <= set(keys)  # "Invalidated" is never off-screen
        assert "series" in keys and "value" in keys
        assert table.virtual_size.width <= table.scrollable_content_region.width


@pilot_test
async def test_tree_shows_category_names_whole_at_140_columns(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(140, 45)) as pilot:
        overview = await _overview(pilot, app)
        tree = overview.category_tree
        tree.root.expand_all()
        await settle(pilot)
        lines = [_line(tree, y) for y in range(tree.size.height)]
        assert any("build-and-dependency-management" in line for line in lines), lines
        assert not any("…" in line for line in lines), lines


@pytest.mark.parametrize("size", [(100, 30), (140, 45)], ids=lambda s: f"{s[0]}x{s[1]}")
@pilot_test
async def test_filter_bar_shows_an_issue_code_on_one_line(run_path, size) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=size) as pilot:
        overview = await _overview(pilot, app)
        overview.open_tasks(TaskFilter("correct.avg@3", code="environment_failed"))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TasksScreen)
        label = screen.query_one("#code").query_one("SelectCurrent #label")
        assert label.size.height == 1
        assert "environment_failed" in _line(label, 0)  # not "environ/ment_fa/iled"
        for name in ("category", "severity", "phase"):  # the prompts whole, not "categ…"
            prompt = screen.query_one(f"#{name}").query_one("SelectCurrent #label")
            assert name in _line(prompt, 0), name


@pilot_test
async def test_task_reasons_read_as_lines_at_100_columns(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(100, 30)) as pilot:
        await _task(pilot, app, "git-leak-recovery")
        panel = app.screen.query_one(ReductionsPanel)
        lines = [_line(panel, y) for y in range(panel.size.height)]
        # each reason is one line of text beside its series, not one word per line
        for reason in ("attempt 3 of 3 is missing", "attempt 3 left only a retry count, no result"):
            assert any(reason in line and "correct.avg@3" in line for line in lines), lines


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pilot_test
async def test_compare_series_table_fits_without_scrolling(runs_root, size) -> None:  # type: ignore[no-untyped-def]
    from inspector.app.screens.compare import CompareScreen
    from inspector.views.compare import compare
    from tests.conftest import open_session

    a = open_session(runs_root / "compare_a")
    b = open_session(runs_root / "compare_b")
    assert a.recomputation is not None and b.recomputation is not None
    long = "qwen3-coder-480b-a35b-instruct_terminal_bench_2_terminus2_long_namespace/20261130_00000"
    comparison = compare(a.recomputation, b.recomputation, label_a=f"{long}3", label_b=f"{long}4")
    app = InspectorApp([runs_root / "compare_a"])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        app.push_screen(CompareScreen(comparison, (a, b)))
        await settle(pilot)
        table = app.screen.query_one("#compare-series")
        assert len(table.ordered_columns) == 6  # series, A, B, B − A, A counts, B counts
        assert table.virtual_size.width <= table.scrollable_content_region.width
        headers = [str(column.label) for column in table.ordered_columns]
        # which run each side is, at every width: the ends of the folder names (cut in the
        # middle), not just "A" / "B"
        assert headers[1].startswith("A ") and headers[1].endswith("0003"), headers
        assert headers[2].startswith("B ") and headers[2].endswith("0004"), headers
        series = [str(table.get_cell_at((row, 0))) for row in range(table.row_count)]
        assert len(set(series)) == len(series), series  # ids cut in the middle, still apart
        # and the names above the table, each on one line keeping where they differ (their
        # last characters) whole
        header = app.screen.query_one("#compare-header")
        lines = [_line(header, y).strip() for y in range(header.size.height)]
        a_line = next(line for line in lines if line.startswith("A: "))
        b_line = next(line for line in lines if line.startswith("B: "))
        assert a_line.endswith(f"{long[-20:]}3") and b_line.endswith(f"{long[-20:]}4"), lines


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pilot_test
async def test_issue_table_shows_ids_and_counts_without_scrolling(run_path, size) -> None:  # type: ignore[no-untyped-def]
    from inspector.app.screens.issues import PUSHED, IssuesScreen

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=size) as pilot:
        await _overview(pilot, app)
        await pilot.press("i")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, IssuesScreen)
        table = screen.issue_table
        keys = [column.key for column in table.columns]
        # severity × phase × code and every count: none folds, none is off-screen
        assert {"severity", "phase", "code", "attempts", "tasks", *PUSHED} <= set(keys), keys
        assert table.virtual_size.width <= table.scrollable_content_region.width
        lines = [_line(table, y) for y in range(table.size.height)]
        assert any("verifier_result_invalid" in line for line in lines), lines  # codes whole
        # the cursor's issue in full, whatever the headers were shortened to
        table.move_cursor(column=keys.index("error"))
        await pilot.pause()
        line = _line(screen.cursor_line, 0) + _line(screen.cursor_line, 1)
        assert "error · run · harness_failed" in line and "1 of 1 carrying task in error" in line


@pilot_test
async def test_plan_panel_breaks_long_names_after_a_dot(run_path) -> None:  # type: ignore[no-untyped-def]
    from widgets.plan_panel import PlanPanel

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(100, 30)) as pilot:
        overview = await _overview(pilot, app)
        panel = overview.query_one(PlanPanel)
        lines = [_line(panel, y).strip() for y in range(panel.size.height)]
        # "request.execution.attempts.k" does not fit the panel's 26 columns: it breaks
        # after a dot, not inside a word ("request.execution.attempt" / "s.k")
        assert "request.execution." in lines and "attempts.k" in lines, lines
        assert "s.k" not in lines and "s.strategy" not in lines, lines


@pilot_test
async def test_task_source_is_whole_at_80_columns(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(80, 24)) as pilot:
        await _task(pilot, app, "git-leak-recovery")
        source = app.screen.task.source
        assert len(source) > 70  # longer than the column beside "source"
        head = app.screen.query_one("#task-head")
        shown = "".join(_line(head, y).strip() for y in range(head.size.height))
        assert source in shown.replace("source", "", 1).replace(" ", ""), shown


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pilot_test
async def test_flaky_table_shows_each_attempt_without_scrolling(run_path, size) -> None:  # type: ignore[no-untyped-def]
    from inspector.app.screens.flaky import FlakyScreen

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=size) as pilot:
        overview = await _overview(pilot, app)
        overview.action_flaky()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FlakyScreen)
        table = screen.table
        keys = [column.key for column in table.columns]
        # each attempt's outcome is on screen (it was off to the right at 80 columns)
        assert {"task", "metric", "disagreement", "passes", "attempts"} <= set(keys), keys
        assert table.virtual_size.width <= table.scrollable_content_region.width, size
        # the cursor's row in full below the table: its category whole even when cut above
        row = table.cursor_item
        assert row is not None
        line = " ".join(static_text(screen.query_one("#flaky-cursor"), width=400).split())
        assert line.startswith(f"{row.task_id} · {row.category} · {row.metric_id}"), line
        assert "1:✓ 2:✗ 3:✓" in line, line
