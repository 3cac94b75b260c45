"""The overview's export (key x): a folder (the current one by default) and a format; the
files are those of `inspector export`, and never written inside the run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from inspector.app.screens.export import ExportScreen
from inspector.app.screens.overview import OverviewScreen
from tests.conftest import FIXTURE_RUNS

from .helpers import pilot_test, settle

SIZE = (100, 30)


async def _export(run: Path, folder: str | None, fmt_index: int) -> list[str]:
    app = InspectorApp([run])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)
        await pilot.press("x")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        if folder is not None:
            screen.query_one("#export-folder").value = folder  # type: ignore[attr-defined]
        for _ in range(fmt_index):
            await pilot.press("down")
        await pilot.press("enter")
        await settle(pilot, rounds=6)
        assert isinstance(app.screen, OverviewScreen)
        return [n.message for n in app._notifications]


@pilot_test
async def test_export_from_the_overview_writes_the_cli_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k3_pass", run)
    monkeypatch.chdir(tmp_path)  # the default folder: the current one
    messages = await _export(run, None, 3)  # jsonl
    written = list(tmp_path.glob("*.tasks.jsonl"))
    assert len(written) == 1 and any("exported jsonl" in m for m in messages)
    rows = [json.loads(line) for line in written[0].read_text(encoding="utf-8").splitlines()]
    assert {row["series_id"] for row in rows} >= {"correct.pass@3"}


@pilot_test
async def test_export_refuses_the_run_folder(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    before = sorted(p.relative_to(run) for p in run.rglob("*"))
    messages = await _export(run, str(run / "details"), 0)
    assert any("never writes there" in m for m in messages)
    assert sorted(p.relative_to(run) for p in run.rglob("*")) == before
