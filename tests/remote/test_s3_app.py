"""`inspector URL`: the app opened on a run and on a results root behind an s3:// URL, as
the command line builds it (``inspector.cli.build_app``), shows what the local copy shows."""

from __future__ import annotations

import json

from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.runs import RunsScreen
from inspector.cli import main as cli
from tests.app.helpers import cell_text, pilot_test, settle
from tests.conftest import FIXTURE_RUNS

from .conftest import S3

RUNS = sorted(path for path in FIXTURE_RUNS.iterdir() if path.is_dir())
SIZE = (140, 45)


@pilot_test
async def test_the_app_on_a_remote_run_shows_the_stored_values(s3: S3) -> None:
    name = "k3_avg_hierarchy"
    app = cli.build_app([s3.url(f"root/{name}")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        rec = screen.session.recomputation
        assert rec is not None
        stored = json.loads((FIXTURE_RUNS / name / "metrics.json").read_text(encoding="utf-8"))
        assert [(s.series_id, s.value) for s in rec.report.series] == [
            (s["series_id"], s["value"]) for s in stored["series"]
        ]
        table = screen.series_table
        for row, series in enumerate(stored["series"]):
            assert cell_text(table, row, "series") == series["series_id"]
            assert cell_text(table, row, "evaluated") == str(series["counts"]["evaluated"])
    assert s3.counter.writes == []


@pilot_test
async def test_the_runs_screen_lists_the_remote_root(s3: S3) -> None:
    app = cli.build_app([s3.url("root")])
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(50):
            await settle(pilot, rounds=1)
            if isinstance(app.screen, RunsScreen) and app.screen.runs:
                break
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        assert {run.relative for run in screen.runs} == {run.name for run in RUNS}
        assert str(screen.sub_title) == "runs · root"
    assert s3.counter.writes == []
