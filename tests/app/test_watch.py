"""Watch mode follows a run that is still going: changed folders appear without a restart."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from inspector.app.app import InspectorApp
from inspector.app.settings import Settings
from tests.app.helpers import pilot_test, settle
from tests.conftest import FIXTURE_RUNS


def _total(app: InspectorApp) -> int | None:
    session = app.session
    if session is None or session.recomputation is None:
        return None
    return session.recomputation.report.series[0].counts.total


@pilot_test
async def test_watch_mode_picks_up_a_published_task(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    parked = tmp_path / "parked"
    victim = sorted((run / "details" / "normal").iterdir())[0]
    shutil.move(str(victim), parked)  # the task is not published yet

    app = InspectorApp([run], settings=Settings(watch_seconds=0.2))
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        before = _total(app)
        assert before is not None
        assert not app.watching
        await pilot.press("a")
        assert app.watching

        shutil.move(str(parked), victim)  # AgentCompass publishes it
        for _ in range(100):
            await asyncio.sleep(0.1)
            await settle(pilot, rounds=1)
            if _total(app) == before + 1:
                break
        assert _total(app) == before + 1

        await pilot.press("a")
        assert not app.watching


@pilot_test
async def test_a_run_that_can_no_longer_be_read_loses_its_numbers(tmp_path: Path) -> None:
    """Issue 39: deleting the open run and pressing r showed "Cannot read the run" above
    the old numbers."""
    run = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    app = InspectorApp([run])
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        overview = app.overview_screen
        assert overview is not None and overview.series_table.styles.display == "block"
        shutil.rmtree(run)
        await pilot.press("r")
        for _ in range(50):
            await asyncio.sleep(0.1)
            await settle(pilot, rounds=1)
            if not overview.reading:
                break
        await settle(pilot)
        assert "Cannot read the run" in str(overview.banner("refusal").render())
        assert overview.series_table.styles.display == "none"
        assert "From the cache" not in str(overview.query_one("#load-status").render())
