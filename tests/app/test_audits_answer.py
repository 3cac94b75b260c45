"""Audits that end in an answer (issue 37 item 7): every count says where it comes from."""

from __future__ import annotations

import shutil
from pathlib import Path

from inspector.app.app import InspectorApp
from inspector.app.screens.issues import IssuesScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.tasks import TasksScreen
from inspector.views.attribution import NO_ISSUE
from inspector.views.audit import InCount
from tests.audit.helpers import CONFORMANCE, dump, load, task_folders

from .helpers import pilot_test, settle, static_text

SIZE = (140, 45)


def _without_issues(tmp_path: Path) -> Path:
    """syn_k3_avg_score_category_mean with every issue taken out: its error count is left
    to the missing attempts alone."""
    run = tmp_path / "no_issues"
    shutil.copytree(CONFORMANCE / "syn_k3_avg_score_category_mean", run)
    for folder, _ in task_folders(run):
        for path in folder.glob("attempt-*/result.json"):
            payload = load(path)
            if "issues" in payload:
                payload["issues"] = []
                dump(path, payload)
    return run


async def _issues(pilot) -> IssuesScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    assert isinstance(pilot.app.screen, OverviewScreen)
    await pilot.press("i")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, IssuesScreen)
    return screen


@pilot_test
async def test_an_error_count_with_no_issue_says_where_it_comes_from(tmp_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([_without_issues(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        issues = await _issues(pilot)
        rec = issues.recomputation
        assert rec.report.summary_series.counts.error == 3
        title = static_text(issues.title_bar)
        assert "0 issue-carrying attempts of 0 tasks" in title, title
        assert "No attempt carries an issue." in title and "enter lists them" in title, title
        rows = [r for r in issues.issues if r.severity == NO_ISSUE]
        missing = next(r for r in rows if r.code == "missing attempt")
        assert set(missing.task_ids) == {"t-3", "t-6", "t-8"}
        # the attempts named are the missing ones: t-3's 2nd, t-6's 3rd, t-8's 2nd and 3rd
        assert sorted(missing.attempts) == [("t-3", 2), ("t-6", 3), ("t-8", 2), ("t-8", 3)]
        table = issues.issue_table
        row = issues.issues.index(missing)
        table.move_cursor(row=row, column=table.get_column_index("error"))
        await pilot.pause()
        line = static_text(issues.cursor_line)
        assert "attempt 2 of 3 is missing" in line and "3 of 3 tasks in error" in line, line
        await pilot.press("enter")
        await settle(pilot)
        tasks = app.screen
        assert isinstance(tasks, TasksScreen)
        assert tasks.task_filter.state == InCount("error")
        assert {r.task_id for r in tasks.shown} == {"t-3", "t-6", "t-8"}
        assert "missing attempt" in tasks.task_filter.describe()


@pilot_test
async def test_issue_totals_count_each_attempt_once(run_path) -> None:  # type: ignore[no-untyped-def]
    # k1_micro: taubench attempts carry 4 issue rows, one attempt two of them (3 attempts).
    app = InspectorApp([run_path("k1_micro")])
    async with app.run_test(size=SIZE) as pilot:
        issues = await _issues(pilot)
        carried = [r for r in issues.issues if r.severity != NO_ISSUE]
        assert sum(len(r.attempts) for r in carried) == 4
        title = static_text(issues.title_bar)
        assert "3 issue-carrying attempts of 3 tasks" in title, title


@pilot_test
async def test_diagnostics_say_nothing_recorded_for_each_absent_source() -> None:
    from inspector.app.screens.diagnostics import DiagnosticsScreen

    app = InspectorApp([CONFORMANCE / "syn_deepswe_eval_timeout_k1"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        # owner__repo-101 attempt 1: no execution_diagnostics, verifier output, analyzers,
        # trajectory, retry records or artifact files; it has meta.harness and final_answer.
        screen = DiagnosticsScreen(overview.session, "owner__repo-101", 1)
        app.push_screen(screen)
        await settle(pilot)
        labels = [s.label for s in screen.sources]
        for name in (
            "execution_diagnostics",
            "verifier output",
            "analyzers",
            "trajectory",
            "retry records",
            "artifact files",
        ):
            assert f"{name}: nothing recorded" in labels, labels
        assert "meta.harness" in labels and "final_answer" in labels, labels
        # the pager opens on the first source that holds something
        assert screen.current_key == "meta.harness"
        screen.source_list.highlighted = labels.index("verifier output: nothing recorded")
        await settle(pilot)
        document = screen.pager.document
        assert document is not None
        text = "\n".join(document.lines(0, document.line_count))
        assert text == "Nothing recorded: result.json has no meta.benchmark.eval_raw_data.", text


def _legacy_judge_failure(tmp_path: Path) -> Path:
    """syn_legacy_v2_layout with legacy-2's judge failed, as a v2 attempt records it: the
    attempt's ``error`` and ``meta.benchmark.scoring.error`` hold the real text."""
    run = tmp_path / "legacy"
    shutil.copytree(CONFORMANCE / "syn_legacy_v2_layout", run)
    path = next(run.glob("details/legacy-2--*/attempt-1/result.json"))
    payload = load(path)
    payload["error"] = "judge request timed out"
    payload["meta"]["benchmark"]["scoring"] = {"error": "judge request timed out", "correct": False}
    dump(path, payload)
    return run


def test_legacy_reason_shows_the_real_text(tmp_path: Path) -> None:
    from inspector.results.reader import read_run

    run = read_run(_legacy_judge_failure(tmp_path))
    task = next(t for t in run.tasks if t.task_id == "legacy-2")
    (issue,) = task.attempts[1].issues
    assert (issue.severity, issue.phase, issue.code) == ("fatal", "evaluate", "judge_failed")
    # AgentCompass's own words, then the attempt's (the same text once, not twice)
    assert issue.message == "Historical judge failure: judge request timed out"


@pilot_test
async def test_legacy_task_screen_reason_reads_the_real_text(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from inspector.app.screens.task import TaskScreen

    app = InspectorApp([_legacy_judge_failure(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        app.push_screen(TaskScreen(overview.session, "legacy-2", "correct.native@1"))
        await settle(pilot)
        shown = " ".join(static_text(w) for w in app.screen.query("Static"))
        assert "judge_failed: Historical judge failure: judge request timed out" in shown, shown


@pilot_test
async def test_overview_names_the_fallback_rule_and_shows_report_extra() -> None:
    from widgets.plan_panel import PlanPanel

    app = InspectorApp([CONFORMANCE / "syn_deepswe_eval_timeout_k1"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        panel = static_text(overview.query_one(PlanPanel))
        assert "eval timeout" in panel and "correct = false, reward = 0.0" in panel, panel
        assert "deepswe's evaluation_timeout_metrics" in panel, panel
        # report.extra, literally
        assert "dataset_revision" in panel and "0b9fabbb63b9104d678fe965e1632f2dd9eaa2ea" in panel
        assert "benchmark_version" in panel and "v1.1" in panel, panel


@pilot_test
async def test_plan_panel_says_the_hierarchy_replaced_the_aggregation(run_path) -> None:  # type: ignore[no-untyped-def]
    from widgets.plan_panel import PlanPanel

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = static_text(app.screen.query_one(PlanPanel))
        # not "category_hierarchy … default (micro_weighted)": the default was not used
        assert "aggregation category_hierarchy" in panel, panel
        assert "from the hierarchy; replaces the default micro_weighted" in panel, panel
        assert "default (micro_weighted)" not in panel, panel


@pilot_test
async def test_load_problem_header_says_which_files_were_used() -> None:
    from textual.widgets import Static

    app = InspectorApp([CONFORMANCE / "syn_legacy_v2_layout"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        title = static_text(overview.query_one("#problems-title", Static))
        assert "not used" not in title, title
        assert "Load problems (1) — 1 noted: still used" in title, title
        assert overview.problems_table.get_cell_at((0, 0)).plain == "noted: still used"


@pilot_test
async def test_load_problem_header_of_a_skipped_file(run_path) -> None:  # type: ignore[no-untyped-def]
    from textual.widgets import Static

    app = InspectorApp([run_path("load_problems")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        title = static_text(app.screen.query_one("#problems-title", Static))
        assert "Load problems (1) — 1 skipped: not used" in title, title


@pilot_test
async def test_task_screen_names_the_rule_behind_a_fallback_value() -> None:
    from inspector.app.screens.task import TaskScreen
    from widgets.attempt_card import AttemptCard
    from widgets.reductions_panel import ReductionsPanel

    app = InspectorApp([CONFORMANCE / "syn_deepswe_eval_timeout_k1"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        app.push_screen(TaskScreen(overview.session, "owner__repo-103", "correct.native@1"))
        await settle(pilot)
        reasons = static_text(app.screen.query_one(ReductionsPanel))
        assert "correct.native@1 rule: correct = false in attempt 1 is deepswe's" in reasons
        card = static_text(app.screen.query_one(AttemptCard))
        assert "rule" in card and "evaluation_timeout_metrics" in card, card
