"""Snapshots of the tasks-across-runs screen (issue 41) at 80×24, 100×30 and 140×45, on the
planted root of fixtures/make_planted_root.py (six runs, no metrics.json)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from inspector.app.app import InspectorApp
from inspector.app.screens.items import ItemsScreen
from inspector.app.screens.runs import RunsScreen
from tests.items.planted import make
from tests.snapshots.test_snapshots import settle

SIZES = {"small": (80, 24), "medium": (100, 30), "large": (140, 45)}


async def items_screen(pilot: Pilot[None]) -> ItemsScreen:
    while not (isinstance(pilot.app.screen, RunsScreen) and pilot.app.screen.rows):
        await pilot.pause(0.05)
    await pilot.press("t")
    screen = pilot.app.screen
    assert isinstance(screen, ItemsScreen)
    while not screen.done:
        await pilot.pause(0.05)
    await settle(pilot)
    return screen


def make_app(tmp_path: Path) -> InspectorApp:
    app = InspectorApp([make(tmp_path / "planted")])
    app.animation_level = "none"
    return app


@pytest.mark.parametrize("size", SIZES, ids=SIZES)
def test_items(snap_compare: Any, tmp_path: Path, size: str) -> None:
    """You should see the four planted tasks first, flagged (never solved: broken; always
    errors: always_error; verifier?: constant_verifier; flips: flip), the six other tasks
    unflagged, each row's counts and mean, the strip of marks (✗✗✗✗✗✗ for broken), the
    reason of the cursor row (broken: evaluated by 3 models, none of its 12 attempts
    succeeded) and its six runs below, each ✗ with value 0.000."""

    async def run_before(pilot: Pilot[None]) -> None:
        await items_screen(pilot)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZES[size], run_before=run_before)


def test_items_flip_runs(snap_compare: Any, tmp_path: Path) -> None:
    """You should see the rows filtered to "flip" and the flip row's runs side by side with
    the focus on them: model-a/run2 ✗ 0.000, every other run ✓ 1.000, and the reason
    "model-a (avg@2) solved it in model-a/run1 and failed it in model-a/run2" (100×30)."""

    async def run_before(pilot: Pilot[None]) -> None:
        await items_screen(pilot)
        await pilot.press("slash", *"flips", "enter")
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZES["medium"], run_before=run_before)


def test_runs_without_stored_reports(snap_compare: Any, tmp_path: Path) -> None:
    """You should see the six planted runs (none has a metrics.json) each with its
    recomputed headline (0.6111 for model-a/run2, …) and the mark ∅, the note "6 ∅ no stored
    report", and the line below saying "∅ no stored report: …/metrics.json: no readable
    stored metrics.json to check" (100×30)."""

    async def run_before(pilot: Pilot[None]) -> None:
        screen = pilot.app.screen
        while not (isinstance(screen, RunsScreen) and screen.rows and screen.all_checked):
            await pilot.pause(0.05)
            screen = pilot.app.screen
        await settle(pilot)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZES["medium"], run_before=run_before)
