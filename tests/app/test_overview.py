"""Overview screen: series, counts, banners, plan, categories / hierarchy, problems."""

from __future__ import annotations

from pathlib import Path

from inspector.app.app import InspectorApp
from inspector.app.screens.overview import OverviewScreen
from inspector.engine.render import format_value
from inspector.engine.vocabulary import COUNTS
from inspector.views.audit import InCount
from widgets.banner import Banner
from widgets.category_tree import CategoryTree
from widgets.series_table import SeriesTable

from .helpers import capture, cell_text, pilot_test, settle, static_text

SIZE = (140, 45)


@pilot_test
async def test_overview_shows_every_series_with_engine_numbers(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        rec = screen.session.recomputation
        assert rec is not None
        table = screen.series_table
        ids = [s.series_id for s in rec.report.series]
        assert ids == ["correct.avg@3", "correct.pass@3"]
        for row, series in enumerate(rec.report.series):
            assert cell_text(table, row, "series") == series.series_id
            assert cell_text(table, row, "reducer") == series.reducer_at_k
            assert cell_text(table, row, "value") == format_value(series.value, series)
            for name in COUNTS:
                assert cell_text(table, row, name) == str(getattr(series.counts, name))
        assert not screen.banner("differences").has_class("-shown")
        # The hierarchy of the selected series, with the root first.
        tree = screen.category_tree
        overall = tree.root.children[0]
        assert overall.data is not None and overall.data.path == "overall"
        assert "unavailable" in static_text(screen.query_one("#counts-note"))


@pilot_test
async def test_selecting_a_series_follows_in_tree_and_plot(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        assert screen.selected_series == "correct.avg@3"
        await pilot.press("down")
        await pilot.pause()
        assert screen.selected_series == "correct.pass@3"
        assert "correct.pass@3" in static_text(screen.distribution)


@pilot_test
async def test_count_cell_opens_exactly_its_tasks(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        messages = capture(screen.series_table, SeriesTable.CountChosen)
        # Cursor starts on Value; four to the right (past the 95% CI) is Error.
        await pilot.press("right", "right", "right", "right", "enter")
        await settle(pilot)
        tasks = app.screen
        from inspector.app.screens.tasks import TasksScreen

        assert isinstance(tasks, TasksScreen)
        assert tasks.task_filter.state == InCount("error")
        series = screen.session.recomputation.report.series_by_id("correct.avg@3")  # type: ignore[union-attr]
        assert len(tasks.shown) == series.counts.error
        assert all(row.has_error for row in tasks.shown)
        assert [(m.series_id, m.count) for m in messages] == [("correct.avg@3", "error")]


@pilot_test
async def test_category_node_opens_its_tasks(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        tree = screen.category_tree
        chosen = capture(tree, CategoryTree.NodeChosen)
        tree.focus()
        await pilot.pause()
        # Line 1 is "overall".
        tree.move_cursor_to_line(1)
        await pilot.pause()
        node = tree.cursor_node
        assert node is not None and node.data is not None
        await pilot.press("enter")
        await settle(pilot)
        from inspector.app.screens.tasks import TasksScreen

        assert isinstance(app.screen, TasksScreen)
        series = screen.session.recomputation.report.series_by_id("correct.avg@3")  # type: ignore[union-attr]
        assert len(app.screen.shown) == series.hierarchy["overall"].counts.total
        assert chosen and chosen[0].data.path == "overall"


@pilot_test
async def test_evaluation_failed_shows_reference_values(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k1_evaluation_failed")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        rec = screen.session.recomputation
        assert rec is not None and rec.report.evaluation_failed
        assert "(reference)" in cell_text(screen.series_table, 0, "value")
        banner = screen.banner("failed")
        assert banner.has_class("-shown")
        assert "Evaluation failed" in static_text(banner)


@pilot_test
async def test_load_problems_are_listed(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("load_problems")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        problems = screen.session.problems
        assert problems
        assert screen.problems_table.row_count == len(problems)
        assert not screen.has_class("-no-problems")
        await pilot.press("p")
        assert app.focused is screen.problems_table


@pilot_test
async def test_differences_banner_names_series_and_field(run_path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import json
    import shutil

    source = run_path("k1_micro")
    copy = tmp_path / "ns" / "edited"
    shutil.copytree(source, copy)
    app_session = InspectorApp([copy])
    from tests.conftest import open_session as open_run

    report = json.loads(open_run(copy).metrics_json())
    report["series"][0]["counts"]["error"] += 1
    (copy / "metrics.json").write_text(json.dumps(report), encoding="utf-8")
    async with app_session.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app_session.screen
        assert isinstance(screen, OverviewScreen)
        banner = screen.query_one("#differences", Banner)
        assert banner.has_class("-shown")
        assert "correct.native@1 counts.error" in static_text(banner)


@pilot_test
async def test_unreadable_path_shows_a_banner_not_a_crash(tmp_path: Path) -> None:
    app = InspectorApp([tmp_path / "missing"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        assert "Cannot read the run" in static_text(screen.banner("refusal"))


@pilot_test
async def test_a_run_the_engine_refuses_shows_why_and_no_numbers(tmp_path: Path) -> None:
    """Read without a problem but refused by the engine (an undeclared metric, spec §10 item 13):
    the refusal, naming the file, in place of the series, the counts note and the lower panels."""
    import json
    import shutil

    from tests.conftest import FIXTURE_RUNS

    run = tmp_path / "ns" / "refused"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    result = sorted(run.glob("details/normal/*/attempt-1/result.json"))[0]
    value = json.loads(result.read_text(encoding="utf-8"))
    value["metrics"]["bogus"] = True
    result.write_text(json.dumps(value), encoding="utf-8")
    app = InspectorApp([run])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        assert screen.session is not None and screen.session.recomputation is None
        assert screen.has_class("-refused") and not screen.has_class("-loading")
        assert "bogus" in static_text(screen.banner("refusal"))
        for hidden in (screen.series_table, screen.query_one("#overview-lower"),
                       screen.query_one("#counts-note")):
            assert not hidden.display
        await pilot.press("t")
        await settle(pilot)
        assert app.screen is screen
        said = [str(n.message) for n in app._notifications]
        assert "The run has no recomputation: no task list." in said


@pilot_test
async def test_a_scored_run_shows_its_numbers(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k1_micro")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        assert not screen.has_class("-refused") and not screen.has_class("-loading")
        assert screen.series_table.display and screen.query_one("#counts-note").display
        assert not screen.banner("refusal").has_class("-shown")
