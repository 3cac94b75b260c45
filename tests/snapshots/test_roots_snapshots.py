"""Snapshots of the runs screen with recomputed values and of the leaderboard (issue 16,
issue 14 item 1), at 80×24, 100×30 and 140×45, on the results root of tests/results_root.py:
three runs whose folder names differ only at the end (one with a tampered metrics.json), a
failed run, a cancelled run, a legacy v2 run and a run that cannot be recomputed.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from inspector.app.app import InspectorApp
from inspector.app.screens import runs as runs_module
from inspector.app.screens.leaderboard import LeaderboardScreen
from inspector.app.screens.runs import RunsScreen
from tests.app.test_runs_cached import first_opening
from tests.loading.helpers import settle_time_stamps
from tests.results_root import SCICODE_MODEL, checked_screen, make_results_root
from tests.snapshots.test_snapshots import settle

SIZES = {"small": (80, 24), "medium": (100, 30), "large": (140, 45)}


def make_app(tmp_path: Path) -> InspectorApp:
    app = InspectorApp([make_results_root(tmp_path)])
    app.animation_level = "none"
    return app


async def all_checked(pilot: Pilot[None]) -> None:
    await checked_screen(pilot, settle)


async def open_board(pilot: Pilot[None]) -> LeaderboardScreen:
    """Every run checked, then the leaderboard (``g``)."""
    await all_checked(pilot)
    await pilot.press("g")
    await settle(pilot)
    board = pilot.app.screen
    assert isinstance(board, LeaderboardScreen)
    return board


class TestRunsRecomputed:
    @pytest.mark.parametrize("size", SIZES, ids=SIZES)
    def test_runs_checked(self, snap_compare: Any, tmp_path: Path, size: str) -> None:
        """You should see every run with its recomputed headline, ✓ (≠ for the tampered
        …/20261130_000002, ! with the stored value for scicode/compare_b), the error /
        unavailable / invalidated counts, "ref" on the failed run, 4 tasks for the legacy
        run, each …/20261130_00000N folder name whole, and the cursor row in full below."""

        async def run_before(pilot: Pilot[None]) -> None:
            await all_checked(pilot)

        assert snap_compare(make_app(tmp_path), terminal_size=SIZES[size], run_before=run_before)

    def test_runs_differing_sorted_by_check(self, snap_compare: Any, tmp_path: Path) -> None:
        """You should see the runs sorted by check (the one that cannot be recomputed, then
        the tampered one first) with the cursor on the tampered run: the line below says
        stored 0.7500, recomputed 0.5000 and where they differ (100×30)."""

        async def run_before(pilot: Pilot[None]) -> None:
            await all_checked(pilot)
            screen = pilot.app.screen
            assert isinstance(screen, RunsScreen)
            while screen.sort_by != "check":
                await pilot.press("s")
            screen.run_table.move_cursor(row=1)  # the second failure: the tampered run
            await settle(pilot)

        assert snap_compare(
            make_app(tmp_path), terminal_size=SIZES["medium"], run_before=run_before
        )


class TestRunsGate:
    @pytest.mark.parametrize("size", SIZES, ids=SIZES)
    def test_runs_gated(
        self, snap_compare: Any, tmp_path: Path, size: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """You should see a Gate column after G (policy: require_stored_equal, error rate at
        most 0.5): FAIL for the tampered …/20261130_000002, ! for scicode/compare_b, pass
        for the others, and with the cursor on the tampered run the line below ending
        "gate (policy: …inspector-gate.toml): FAIL (1 passed, 1 failed, 0 skipped)
        require_stored_equal: run (…)" before its status and model."""
        app = make_app(tmp_path)
        (tmp_path / "here").mkdir()  # the policy: where the app runs, never in the results
        (tmp_path / "here" / "inspector-gate.toml").write_text(
            "require_stored_equal = true\nmax_error_rate = 0.5\n", encoding="utf-8"
        )
        monkeypatch.chdir(tmp_path / "here")

        async def run_before(pilot: Pilot[None]) -> None:
            await all_checked(pilot)
            screen = pilot.app.screen
            assert isinstance(screen, RunsScreen)
            await pilot.press("G")
            for _ in range(600):
                await settle(pilot)
                if screen.gates is not None and len(screen.gates) == len(screen.rows):
                    break
                await pilot.pause(0.1)
            tampered = next(
                n for n, p in enumerate(screen.run_table.paths) if p.name == "20261130_000002"
            )
            screen.run_table.move_cursor(row=tampered)
            await settle(pilot)

        assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


class TestLeaderboard:
    @pytest.mark.parametrize("size", SIZES, ids=SIZES)
    def test_leaderboard(self, snap_compare: Any, tmp_path: Path, size: str) -> None:
        """You should see models × benchmarks; the scicode cell of gpt-5-mini reads
        0.5000 ≠ (a run behind it differs), the gpt-5 scicode cell "-" with !, the
        screenspot cell a reference value of a failed run, and the line below the whole
        cell under the cursor (the scicode cell of gpt-5-mini: run 1 of 3)."""

        async def run_before(pilot: Pilot[None]) -> None:
            board = await open_board(pilot)
            row = board.board.models.index(SCICODE_MODEL)
            board.table.move_cursor(row=row, column=board.board.benchmarks.index("scicode") + 1)
            await settle(pilot)

        assert snap_compare(make_app(tmp_path), terminal_size=SIZES[size], run_before=run_before)


class TestLeaderboardTies:
    @pytest.mark.parametrize("size", SIZES, ids=SIZES)
    def test_leaderboard_ties(self, snap_compare: Any, tmp_path: Path, size: str) -> None:
        """You should see four models on hle (fixtures/make_tied_root.py) and a last
        column "Rank": model-a and model-b "#1–2 (a)" (one task apart: not separated),
        model-c "#3 (b)", model-d "#4 (c)"."""
        from tests.app.test_leaderboard_ties import _tied_root

        app = InspectorApp([_tied_root(tmp_path / "tied")])
        app.animation_level = "none"

        async def run_before(pilot: Pilot[None]) -> None:
            board = await open_board(pilot)
            # the ties worker starts when the board mounts with every run recomputed;
            # settle waits for it and handles its TiesFound (the Rank column's width is
            # fixed when drawn, not measured at the table's next idle)
            await settle(pilot)
            assert board.board.ties

        assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


class TestRunsCached:
    @pytest.mark.parametrize("size", SIZES, ids=SIZES)
    def test_runs_cached(
        self, snap_compare: Any, tmp_path: Path, size: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """You should see a root checked before, while it is checked again: every run that
        could be recomputed with "0.xxxx cached" and its last check's mark and counts, dim
        (≠ for …/20261130_000002), scicode/compare_b with its stored value, and the note
        "checking 9 again… (cached values until then)"."""
        root = make_results_root(tmp_path)
        settle_time_stamps()
        asyncio.run(first_opening(root))

        def held(runs, overrides, *, cancelled, **kwargs):  # type: ignore[no-untyped-def]
            while not cancelled():  # the app's exit cancels the check: the snapshot shows the wait
                time.sleep(0.05)
            yield from ()

        monkeypatch.setattr(runs_module, "audit_runs", held)
        app = InspectorApp([root])
        app.animation_level = "none"

        async def run_before(pilot: Pilot[None]) -> None:
            # Not settle(): it waits for every worker, and the held check never ends.
            screen = pilot.app.screen
            while not (isinstance(screen, RunsScreen) and screen.rows):
                await pilot.pause(0.05)
                screen = pilot.app.screen
            assert screen.all_shown and not screen.all_checked
            await pilot.pause(0.2)
            pilot.app.clear_notifications()

        assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
