"""Audits that end in an answer (issue 37 item 7), at 80×24, 100×30 and 140×45.

Sync test functions; interaction in ``run_before``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from inspector.app.screens.task import TaskScreen

from .test_sizes import SIZES, app_for, overview
from .test_snapshots import steps

CONFORMANCE = Path(__file__).resolve().parents[2] / "fixtures" / "conformance"


@pytest.fixture(scope="module")
def deepswe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """syn_deepswe_eval_timeout_k1 under a short fixed name (no temporary path on screen)."""
    run = tmp_path_factory.mktemp("audits") / "results" / "deepswe_eval_timeout"
    shutil.copytree(CONFORMANCE / "syn_deepswe_eval_timeout_k1", run)
    return run


class TestTimeoutFallbackSizes:
    @pytest.mark.parametrize("size", SIZES)
    def test_task(self, snap_compare: Any, deepswe: Path, size: tuple[int, int]) -> None:
        """You should see owner__repo-103, whose evaluation timed out: correct and reward
        evaluated at 0 and as error, and under the reasons a "rule:" line saying the 0 is
        deepswe's evaluation_timeout_metrics fallback, not a verifier's score."""

        def open_task(pilot: Pilot[None]) -> None:
            screen = overview(pilot)
            assert screen.session is not None
            pilot.app.push_screen(TaskScreen(screen.session, "owner__repo-103", "correct.native@1"))

        assert snap_compare(app_for(deepswe), terminal_size=size, run_before=steps(open_task))
