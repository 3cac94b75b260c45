"""The tasks-across-runs screen (issue 41): reached with t from the runs screen and the
leaderboard, filtered with /, and enter on a run's mark opens that run's task screen."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from inspector.app.app import InspectorApp
from inspector.app.screens.issues import IssuesScreen
from inspector.app.screens.items import ItemsScreen
from inspector.app.screens.leaderboard import LeaderboardScreen
from inspector.app.screens.runs import RunsScreen
from inspector.app.screens.task import TaskScreen
from tests.items.planted import generator, make


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make(tmp_path_factory.mktemp("planted") / "root")


async def wait_for(pilot: Pilot[None], test: object, seconds: float = 60) -> None:
    for _ in range(int(seconds / 0.05)):
        if test():  # type: ignore[operator]
            return
        await pilot.pause(0.05)
    raise AssertionError("timed out")


async def opened(pilot: Pilot[None]) -> ItemsScreen:
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen) and app.screen.rows)
    await pilot.press("t")
    screen = app.screen
    assert isinstance(screen, ItemsScreen)
    await wait_for(pilot, lambda: screen.done)
    await pilot.pause()
    return screen


def test_rows_filter_and_a_runs_task_screen(planted: Path) -> None:
    async def run() -> None:
        app = InspectorApp([planted])
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await opened(pilot)
            flagged = {r.task_id: [f.flag for f in r.flags] for r in screen.shown if r.flags}
            assert flagged == {t: [f] for t, f in generator().PLANTED.items()}
            assert [r.task_id for r in screen.shown[:4]] == list(generator().PLANTED)
            await pilot.press("slash", *"flips", "enter")
            await pilot.pause()
            assert [r.task_id for r in screen.shown] == ["flip"]
            await pilot.press("enter")  # to the row's runs
            assert screen.marks.has_focus
            runs = [m.run for m in screen.marks.rows]
            screen.marks.move_cursor(row=runs.index("model-a/run2"))
            await pilot.press("enter")  # that run's task screen
            await wait_for(pilot, lambda: isinstance(app.screen, TaskScreen))
            task = app.screen
            assert isinstance(task, TaskScreen)
            assert task.task_id == "flip"
            assert task.session.run.path.name == "run2"
            assert task.session.run.path.parent.name == "model-a"

    asyncio.run(run())


def test_reached_from_the_leaderboard(planted: Path) -> None:
    async def run() -> None:
        app = InspectorApp([planted])
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen) and app.screen.rows)
            await pilot.press("g")
            await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
            await pilot.press("t")
            screen = app.screen
            assert isinstance(screen, ItemsScreen)
            await wait_for(pilot, lambda: screen.done)
            assert len(screen.rows) == len(generator().TASKS)
            assert len(screen.reduced) == 6

    asyncio.run(run())


def test_the_issues_screen_shows_the_fingerprints_of_the_issue_under_the_cursor(
    planted: Path,
) -> None:
    run, phase, code = generator().NEW_ERROR

    async def go() -> None:
        app = InspectorApp([planted / run])
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.session is not None)
            await pilot.press("i")
            await wait_for(pilot, lambda: isinstance(app.screen, IssuesScreen))
            screen = app.screen
            assert isinstance(screen, IssuesScreen)
            await wait_for(pilot, lambda: bool(screen.issues))
            keys = [(r.phase, r.code) for r in screen.issues]
            screen.issue_table.move_cursor(row=keys.index((phase, code)))
            await pilot.pause()
            shown = str(screen.query_one("#issues-fingerprints", Static).render())
            assert (
                "1 att · evaluate/verifier_crashed: RuntimeError: grader crashed at <hex>" in shown
            )
            assert "e.g. RuntimeError: grader crashed at 0x7f" in shown
            screen.issue_table.move_cursor(row=keys.index(("run", "model_failed")))
            await pilot.pause()
            shown = str(screen.query_one("#issues-fingerprints", Static).render())
            assert (
                "2 att · run/model_failed: HTTP <n>: upstream overloaded (request id <uuid>)"
                in shown
            )

    asyncio.run(go())


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (140, 45)])
def test_the_strip_marks_a_run_with_an_errored_attempt(planted: Path, size) -> None:  # type: ignore[no-untyped-def]
    """Issue 49: ok_03 has one errored attempt in one run (its other attempts solved): that
    run's mark is ! in the strip and in the row's runs, not ✓."""

    async def run() -> None:
        app = InspectorApp([planted])
        async with app.run_test(size=size) as pilot:
            screen = await opened(pilot)
            await pilot.press("slash", *"ok_03", "enter")
            await pilot.pause()
            [row] = screen.shown
            assert row.errored == 1
            errored = [m.run for m in row.marks if m.outcome.errored]
            assert len(errored) == 1
            headers, texts = screen.table.texts()
            strip = texts[0][headers.index("runs (marks)")]
            assert strip.count("!") == 1 and len(strip) == row.runs
            await pilot.press("enter")  # to the row's runs
            headers, texts = screen.marks.texts()
            marks = {t[headers.index("run")]: t[0] for t in texts}
            assert marks[errored[0]] == "!"

    asyncio.run(run())
