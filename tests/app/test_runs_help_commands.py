"""Runs screen, help screen, command palette provider, what opens with no argument."""

from __future__ import annotations

from pathlib import Path

from inspector.app.app import InspectorApp
from inspector.app.commands import InspectorCommands
from inspector.app.screens.help import HelpScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.runs import RunsScreen
from inspector.app.screens.tasks import TasksScreen
from inspector.app.settings import Settings
from inspector.views.audit import InCount

from .helpers import pilot_test, settle

SIZE = (140, 45)


@pilot_test
async def test_runs_screen_lists_filters_and_opens(runs_root: Path) -> None:
    app = InspectorApp([runs_root])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        names = {run.path.name for run in screen.runs}
        assert {"k1_micro", "k3_avg_hierarchy", "k3_pass"} <= names
        assert screen.run_table.row_count == len(screen.runs)
        await pilot.press("slash")
        await pilot.press(*"k3_pass")
        await settle(pilot)
        assert [run.path.name for run in screen.shown] == ["k3_pass"]
        await pilot.press("enter")  # opens the first match (issue 40)
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)
        assert app.screen.path.name == "k3_pass"
        await pilot.press("escape")
        assert app.screen is screen


@pilot_test
async def test_no_argument_opens_runs_under_cwd_else_the_sample(run_path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings = Settings(cwd=tmp_path, sample_run=run_path("k3_avg_hierarchy"))
    app = InspectorApp([], settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)
        assert app.screen.path == run_path("k3_avg_hierarchy")


@pilot_test
async def test_help_screen_lists_keys_of_the_screen(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k1_micro")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.text
        assert "Open count" in text and "Reload" in text and "# Overview" in text
        assert "## Series" in text  # a widget's HELP
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, OverviewScreen)


@pilot_test
async def test_q_on_help_closes_help_and_its_footer_says_so(run_path) -> None:  # type: ignore[no-untyped-def]
    """Help reads like a pager: q closes it (as escape and ? do) and does not quit; the
    footer on screen is help's own, not the "q Quit" of the screen underneath."""
    from textual.widgets import Footer

    app = InspectorApp([run_path("k1_micro")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for close in ("q", "escape", "question_mark"):
            await pilot.press("question_mark")
            await settle(pilot)
            help_screen = app.screen
            assert isinstance(help_screen, HelpScreen)
            footer = help_screen.query_one(Footer)
            assert footer.region.y == 23  # the bottom line: it covers the footer underneath
            keys = {(b.binding.key_display, b.binding.description)
                    for b in help_screen.active_bindings.values() if b.binding.show}  # fmt: skip
            assert keys == {("esc/q/?", "Close help")}, keys
            await pilot.press(close)
            await settle(pilot)
            assert app.is_running and isinstance(app.screen, OverviewScreen), close
        await pilot.press("q")  # q still quits from the screens themselves
        await pilot.pause()
        assert not app.is_running


@pilot_test
async def test_command_palette_goes_to_tasks_with_errors(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        provider = InspectorCommands(app.screen)
        commands = {title: callback for title, callback, _ in provider.commands()}
        assert "go: tasks with errors" in commands
        assert "series: correct.pass@3" in commands
        hits = [hit async for hit in provider.search("tasks with errors")]
        assert hits
        commands["go: tasks with errors"]()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TasksScreen)
        assert screen.task_filter.state == InCount("error")
        # From deeper screens the commands still work.
        commands = {title: callback for title, callback, _ in InspectorCommands(screen).commands()}
        commands["go: overview"]()
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)


@pilot_test
async def test_command_palette_opens_from_keys(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k1_micro")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"tasks with errors")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TasksScreen)
        assert app.screen.task_filter.state == InCount("error")
