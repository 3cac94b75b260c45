"""Every dialog at 80×24, 100×30 and 140×45 (issue 14): help, the what-if chooser, the run
export, the table export, the leaderboard export and a load problem in full.

The runs sit under a long namespace (only ``namespace/run_id`` is ever on screen); exports
name ``/tmp`` as the current folder (``Settings.cwd``), the same on every machine. Sync test
functions; interaction in ``run_before``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from inspector.app.app import InspectorApp
from inspector.app.screens.leaderboard import LeaderboardScreen
from inspector.app.settings import Settings
from inspector.views.tasks import TaskFilter
from tests.results_root import checked_screen, make_results_root

from .test_sizes import NAMESPACE, ROOT, SIZES, overview
from .test_snapshots import settle, steps

CWD = Path("/tmp")
"""The current folder the export dialogs show (an absolute path alike on every machine)."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A hierarchy run and a run with load problems, under a long namespace."""
    root = tmp_path_factory.mktemp("modals") / NAMESPACE
    shutil.copytree(ROOT / "runs" / "k3_avg_hierarchy", root / "20261130_000001")
    shutil.copytree(ROOT / "runs" / "load_problems", root / "20261130_000006")
    return root


def app_for(path: Path) -> InspectorApp:
    app = InspectorApp([path], settings=Settings(cwd=CWD))
    app.animation_level = "none"
    return app


async def press(pilot: Pilot[None], *keys: str) -> None:
    await pilot.press(*keys)
    await settle(pilot)


class TestDialogSizes:
    @pytest.mark.parametrize("size", SIZES)
    def test_help(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see the overview's help over it, and at the bottom help's own footer:
        esc/q/? Close help (no "q Quit" while help is open)."""
        assert snap_compare(app_for(runs / "20261130_000001"), terminal_size=size,
                            run_before=steps(lambda p: press(p, "question_mark")))  # fmt: skip

    @pytest.mark.parametrize("size", SIZES)
    def test_what_if(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see the what-if plans of an avg@3 run: k=1, avg@2, pass@2, pass@3,
        each with what it keeps, and the keys to choose or cancel."""
        assert snap_compare(app_for(runs / "20261130_000001"), terminal_size=size,
                            run_before=steps(lambda p: press(p, "w")))  # fmt: skip

    @pytest.mark.parametrize("size", SIZES)
    def test_run_export(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see the folder (/tmp) and the four formats with what each writes."""
        assert snap_compare(app_for(runs / "20261130_000001"), terminal_size=size,
                            run_before=steps(lambda p: press(p, "x")))  # fmt: skip

    @pytest.mark.parametrize("size", SIZES)
    def test_table_export(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see how many rows and which columns the tasks table exports, the
        formats, the file's path and the full path it writes."""

        async def export_tasks(pilot: Pilot[None]) -> None:
            overview(pilot).open_tasks(TaskFilter("correct.avg@3"))
            await settle(pilot)
            await press(pilot, "x")

        assert snap_compare(app_for(runs / "20261130_000001"), terminal_size=size,
                            run_before=steps(export_tasks))  # fmt: skip

    @pytest.mark.parametrize("size", SIZES)
    def test_load_problem(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see one load problem in full: the file (namespace/run/...), what is
        wrong, the rule and its effect, with o to read the file."""

        async def open_problem(pilot: Pilot[None]) -> None:
            await press(pilot, "p")
            await press(pilot, "enter")

        assert snap_compare(app_for(runs / "20261130_000006"), terminal_size=size,
                            run_before=steps(open_problem))  # fmt: skip

    @pytest.mark.parametrize("size", SIZES)
    def test_leaderboard_export(
        self, snap_compare: Any, tmp_path: Path, size: tuple[int, int]
    ) -> None:
        """You should see the leaderboard's export dialog: the file to write, with its
        formats named."""
        app = InspectorApp([make_results_root(tmp_path, ends_alike_only=True)],
                           settings=Settings(cwd=CWD))  # fmt: skip
        app.animation_level = "none"

        async def export_board(pilot: Pilot[None]) -> None:
            await checked_screen(pilot, settle)
            await press(pilot, "g")
            assert isinstance(pilot.app.screen, LeaderboardScreen)
            await press(pilot, "x")

        assert snap_compare(app, terminal_size=size, run_before=export_board)
