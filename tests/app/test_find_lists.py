"""``/`` on the list screens that had none (issue 40): the flaky tasks and the issues. Each
filters as you type, ``enter`` opens the first match, ``escape`` clears and gives the list
the focus back."""

from __future__ import annotations

from inspector.app.app import InspectorApp

from .helpers import pilot_test, settle
from .test_find import on_task, overview_at, typed


@pilot_test
async def test_slash_on_the_flaky_tasks_filters_and_enter_opens(run_path) -> None:  # type: ignore[no-untyped-def]
    from inspector.app.screens.flaky import FlakyScreen

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(80, 24)) as pilot:
        await overview_at(pilot)
        await pilot.press("f")
        await settle(pilot)
        flaky = app.screen
        assert isinstance(flaky, FlakyScreen)
        everything = len(flaky.shown)
        assert everything > 1
        await pilot.press("slash")
        await typed(pilot, "REGEX")  # ignoring case
        assert [f.task_id for f in flaky.shown] == ["regex-log"]
        await pilot.press("enter")
        await settle(pilot)
        assert on_task(pilot, "regex-log"), app.screen
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is flaky
        await pilot.press("slash")
        await typed(pilot, "-")
        await pilot.press("escape")
        await settle(pilot)
        assert len(flaky.shown) == everything and flaky.focused is flaky.table


@pilot_test
async def test_slash_on_the_issues_finds_message_text_and_task_ids(run_path) -> None:  # type: ignore[no-untyped-def]
    from inspector.app.screens.issues import IssuesScreen
    from inspector.app.screens.tasks import TasksScreen

    app = InspectorApp([run_path("k3_pass")])
    async with app.run_test(size=(80, 24)) as pilot:
        await overview_at(pilot)
        await pilot.press("i")
        await settle(pilot)
        issues = app.screen
        assert isinstance(issues, IssuesScreen)
        everything = len(issues.shown)
        await pilot.press("slash")
        # Words of an error message, not of the code: the model_failed row only.
        await typed(pilot, "stream interrupted")
        assert [(r.phase, r.code) for r in issues.shown] == [("run", "model_failed")]
        await pilot.press("enter")
        await settle(pilot)
        tasks = app.screen
        assert isinstance(tasks, TasksScreen)
        assert [row.task_id for row in tasks.shown] == ["06f5d716429d22b1c16edb51"]
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is issues
        # A task id: the rows carrying it, the engine's rules among them.
        issues.query_one(".list-find").focus()
        for _ in "stream interrupted":
            await pilot.press("backspace")
        await typed(pilot, "fd710f50")
        assert {r.code for r in issues.shown} == {
            "missing attempt", "retry-only attempt", "early stop not credited",
        }  # fmt: skip
        await pilot.press("escape")
        await settle(pilot)
        assert len(issues.shown) == everything and issues.focused is issues.issue_table
