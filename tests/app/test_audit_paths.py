"""From the overview to the count ledger, "explain this number" and the issues screen, and back."""

from __future__ import annotations

from inspector.app.app import InspectorApp
from inspector.app.commands import InspectorCommands
from inspector.app.navigation import TaskChosen
from inspector.app.screens.explain import ExplainScreen
from inspector.app.screens.help import HelpScreen
from inspector.app.screens.issues import PUSHED, IssuesScreen
from inspector.app.screens.ledger import LedgerScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.task import TaskScreen
from inspector.app.screens.tasks import TasksScreen
from inspector.views.audit import SERIES_SCOPE, InCount, Scope, tasks_behind
from inspector.views.explain import explain

from .helpers import capture, pilot_test, settle, static_text

SIZE = (140, 45)


async def _overview(pilot) -> OverviewScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, OverviewScreen)
    assert screen.recomputation is not None
    return screen


def _keys(table) -> list[str]:  # type: ignore[no-untyped-def]
    """Task ids of the ledger's (virtual) table."""
    return [row.task_id for row in table.rows]


@pilot_test
async def test_count_to_ledger_to_task_and_back(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        overview = await _overview(pilot)
        rec = overview.recomputation
        # Value → 95% CI → Total → Evaluated → Error → Unavailable, then that count's ledger.
        await pilot.press("right", "right", "right", "right", "right", "l")
        await settle(pilot)
        ledger = app.screen
        assert isinstance(ledger, LedgerScreen)
        assert (ledger.series_id, ledger.count, ledger.scope) == (
            "correct.avg@3",
            "unavailable",
            SERIES_SCOPE,
        )
        expected = tasks_behind(rec, "correct.avg@3", "unavailable")
        assert _keys(ledger.task_table) == list(expected.task_ids)
        assert len(expected.task_ids) == rec.report.series[0].counts.unavailable > 0
        title = static_text(ledger.title_bar)
        assert "count unavailable = " in title and "in state error plus" in title
        # Every non-evaluated task has a reason, shown beside it.
        assert all(task.reasons for task in ledger.tasks)
        assert "missing" in static_text(ledger.reasons) or "issue" in static_text(ledger.reasons)
        chosen = capture(ledger, TaskChosen)
        await pilot.press("enter")
        await settle(pilot)
        task = app.screen
        assert isinstance(task, TaskScreen)
        assert [(m.task_id, m.series_id) for m in chosen] == [
            (expected.task_ids[0], "correct.avg@3")
        ]
        assert task.task_id == expected.task_ids[0] and task.session is app.session
        await pilot.press("escape")
        assert app.screen is ledger
        await pilot.press("n")  # unavailable → invalidated
        assert ledger.count == "invalidated"
        await pilot.press("escape")
        assert app.screen is overview


@pilot_test
async def test_count_cells_still_open_the_tasks_screen(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await _overview(pilot)
        await pilot.press("right", "right", "right", "right", "enter")  # past the 95% CI
        await settle(pilot)
        assert isinstance(app.screen, TasksScreen)
        assert app.screen.task_filter.state == InCount("error")


@pilot_test
async def test_tree_node_to_ledger_and_explain(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        overview = await _overview(pilot)
        rec = overview.recomputation
        tree = overview.category_tree
        tree.focus()
        await pilot.press("down")  # overall → its first child
        data = tree.node_data
        assert data is not None and data.path is not None and data.path != "overall"
        await pilot.press("l")
        await settle(pilot)
        ledger = app.screen
        assert isinstance(ledger, LedgerScreen)
        assert ledger.scope == Scope(node=data.path) and ledger.count == "total"
        assert _keys(ledger.task_table) == list(
            tasks_behind(rec, "correct.avg@3", "total", Scope(node=data.path)).task_ids
        )
        await pilot.press("escape", "h")
        await settle(pilot)
        explained = app.screen
        assert isinstance(explained, ExplainScreen)
        assert explained.scope == Scope(node=data.path)
        await pilot.press("escape")
        assert app.screen is overview


@pilot_test
async def test_overview_explains_the_series_value(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        overview = await _overview(pilot)
        rec = overview.recomputation
        await pilot.press("down", "h")  # correct.pass@3
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ExplainScreen)
        expected = explain(rec, "correct.pass@3")
        assert screen.series_id == "correct.pass@3" and screen.scope == SERIES_SCOPE
        summary = static_text(screen.summary)
        assert summary.startswith("correct.pass@3") and expected.formula in summary
        assert expected.agrees
        assert len(screen.term_table.rows) == len(expected.terms)
        # A task of the explanation opens the task screen.
        screen.task_table.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TaskScreen)
        assert app.screen.task_id == expected.tasks[0].task_id
        await pilot.press("escape", "escape")
        assert app.screen is overview


@pilot_test
async def test_issues_screen_opens_the_tasks_behind_an_issue(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        overview = await _overview(pilot)
        await pilot.press("i")
        await settle(pilot)
        issues = app.screen
        assert isinstance(issues, IssuesScreen)
        assert issues.series_id == "correct.avg@3"
        table = issues.issue_table
        assert len(table.rows) == len(issues.issues) > 0
        # The first ERROR row, on its "error" column: the carrying tasks counted as error.
        row = next(i for i, r in enumerate(issues.issues) if r.severity == "error")
        issue = issues.issues[row]
        table.move_cursor(row=row, column=table.get_column_index("error"))
        await pilot.press("enter")
        await settle(pilot)
        tasks = app.screen
        assert isinstance(tasks, TasksScreen)
        f = tasks.task_filter
        assert (f.state, f.severity, f.phase, f.code) == (
            InCount("error"),
            issue.severity,
            issue.phase,
            issue.code,
        )
        assert [r.task_id for r in tasks.shown] == list(issue.pushed["error"])
        await pilot.press("escape")
        assert app.screen is issues
        # On the code column: every task carrying the issue.
        table.move_cursor(row=row, column=table.get_column_index("code"))
        await pilot.press("enter")
        await settle(pilot)
        assert {r.task_id for r in app.screen.shown} == set(issue.task_ids)  # type: ignore[attr-defined]
        await pilot.press("escape")
        # Retries by stage, scope and pattern, read by a worker.
        summary = issues.retries
        assert summary.records_read and summary.rows
        assert len(issues.retry_table.rows) == len(summary.rows)
        assert "retries on" in static_text(issues.retry_note)
        issues.retry_table.focus()
        await pilot.press("enter")
        await settle(pilot)
        tasks = app.screen
        assert isinstance(tasks, TasksScreen)
        assert {r.task_id for r in tasks.shown} == set(summary.rows[0].task_ids)
        assert "tasks of retries" in tasks.task_filter.describe()
        await pilot.press("escape", "n")
        assert issues.series_id == "correct.pass@3"
        await pilot.press("escape")
        assert app.screen is overview


@pilot_test
async def test_issue_counts_come_from_the_attribution(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await _overview(pilot)
        await pilot.press("i")
        await settle(pilot)
        issues = app.screen
        assert isinstance(issues, IssuesScreen)
        table = issues.issue_table
        for index, issue in enumerate(issues.issues):
            cells = [table.get_cell_at((index, c)).plain for c in range(len(table.columns))]
            assert cells[3:5] == [str(len(issue.attempts)), str(len(issue.task_ids))]
            assert cells[5:9] == [
                str(len(issue.pushed[n])) if n in issue.pushed else "" for n in PUSHED
            ]


@pilot_test
async def test_palette_has_ledger_explain_what_if_and_issues(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        overview = await _overview(pilot)
        commands = {t: c for t, c, _ in InspectorCommands(overview).commands()}
        for title in (
            "explain: correct.avg@3",
            "explain: correct.pass@3",
            "ledger: correct.avg@3 · unavailable",
            "ledger: correct.pass@3 · error",
            "what-if: k=1 beside avg@3",
            "what-if: pass@2 beside avg@3",
            "issues: severity × phase × code, retries",
        ):
            assert title in commands, title
        commands["ledger: correct.pass@3 · error"]()
        await settle(pilot)
        ledger = app.screen
        assert isinstance(ledger, LedgerScreen)
        assert (ledger.series_id, ledger.count) == ("correct.pass@3", "error")
        # From a deeper screen, "explain" goes through the overview.
        commands = {t: c for t, c, _ in InspectorCommands(ledger).commands()}
        commands["explain: correct.avg@3"]()
        await settle(pilot)
        assert isinstance(app.screen, ExplainScreen)
        assert app.screen_stack[-2] is overview


@pilot_test
async def test_help_lists_the_new_keys(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await _overview(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.text
        for word in ("Ledger", "Explain", "What-if", "Issues", "count ledger"):
            assert word in text, word
        await pilot.press("escape", "l")
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert "# Count ledger" in app.screen.text and "Next count" in app.screen.text


@pilot_test
async def test_reload_refreshes_the_ledger(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await _overview(pilot)
        first = app.session
        await pilot.press("l")
        await settle(pilot)
        ledger = app.screen
        assert isinstance(ledger, LedgerScreen)
        before = _keys(ledger.task_table)
        await pilot.press("r")
        await settle(pilot)
        assert app.session is not first and app.session is not None
        assert ledger.recomputation is app.session.recomputation
        assert _keys(ledger.task_table) == before
