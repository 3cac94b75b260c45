"""Snapshot of a large attempt's trajectory, read a page at a time (issue 53 item 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inspector.app.app import InspectorApp
from tests.app.test_big_attempt import MAKER
from tests.snapshots.test_hostile_snapshots import open_diagnostics_of
from tests.snapshots.test_snapshots import LARGE, steps


@pytest.fixture
def big_run(tmp_path: Path) -> Path:
    """The hostile run with a 3 MB result.json (fixtures/make_big_attempt.py)."""
    run = tmp_path / "runs" / "hostile"  # the title shows "runs/hostile", as elsewhere
    MAKER.make(run, 3, 0.2)
    return run


class TestBigAttempt:
    def test_trajectory_first_page(self, snap_compare: Any, big_run: Path) -> None:
        """You should see the trajectory of task 数学/题目-7 (a 3 MB result.json) from its
        first line: schema_version, started_at, finished_at, "── step 1 (0) ──" and the
        step's fields, the tool output's ␛[31mFAILED␛[0m and [bold]expected[/bold] as typed;
        the list on the left has "trajectory (241 steps)", and the status line says
        "line 1 of 1862+": the line count grows as the pager reads on."""
        app = InspectorApp([big_run])
        app.animation_level = "none"
        assert snap_compare(
            app,
            terminal_size=LARGE,
            run_before=steps(open_diagnostics_of("数学/题目-7", "trajectory")),
        )
