"""The issues screen's rows with no issue behind them (issue 49, item 7).

``k3_avg_hierarchy``'s ``vulnerable-secret`` has attempt 2 with an ERROR evaluate/evaluate_failed
issue and no value, attempts 1 and 3 ``correct = true``: the ERROR row accounts for it, so it is
neither among the "tasks counted with no issue" nor under "no attempt recorded the metric".
"""

from __future__ import annotations

import pytest

from inspector.app.app import InspectorApp
from inspector.app.screens.issues import IssuesScreen
from inspector.views.attribution import NO_ISSUE
from inspector.views.audit import in_count, reductions_of
from tests.conftest import open_session

from .helpers import pilot_test, settle, static_text


def _counted_without_issue(path) -> set[str]:  # type: ignore[no-untyped-def]
    """Tasks in error or unavailable of avg@3 none of whose attempts carries ERROR or FATAL,
    read from the attempts themselves."""
    rec = open_session(path).recomputation
    assert rec is not None
    rows = reductions_of(rec, "correct.avg@3")
    assert rows is not None
    return {
        task.task_id
        for task, row in zip(rec.tasks, rows, strict=True)
        if (row.has_error or in_count(row, "unavailable"))
        and not any(
            i.severity in ("error", "fatal") for a in task.attempts.values() for i in a.issues
        )
    }


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (140, 45)])
@pilot_test
async def test_no_issue_rows_hold_only_tasks_no_issue_explains(run_path, size) -> None:  # type: ignore[no-untyped-def]
    path = run_path("k3_avg_hierarchy")
    expected = _counted_without_issue(path)
    assert expected == {"git-leak-recovery", "sqlite-with-gcov"}
    app = InspectorApp([path])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        issues = app.screen
        assert isinstance(issues, IssuesScreen)
        assert issues.series_id == "correct.avg@3"
        title = " ".join(static_text(issues.title_bar, width=400).split())
        assert f"· {len(expected)} tasks counted with no issue" in title
        ruled = [r for r in issues.issues if r.severity == NO_ISSUE]
        assert {t for r in ruled for t in r.task_ids} == expected
        assert all("vulnerable-secret" not in r.task_ids for r in ruled)
        assert not any("no attempt recorded" in r.effect for r in ruled)
