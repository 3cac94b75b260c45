"""The k=1 lottery marks reference values as references (issue 49, item 7).

A k=3 run whose evaluation failed (one task under ``details/fatal/`` with a FATAL issue on its
only attempt) stores ``correct.pass@3`` as ``reference_value`` with ``value: null``; the k=1
value of attempt 1 is a reference too. Neither may read as a value.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.whatif import WhatIfScreen

from .helpers import pilot_test, settle, static_text


def failed_k3_run(source: Path, out: Path) -> Path:
    """``k3_pass`` with its first ERROR task moved to ``details/fatal`` and made FATAL."""
    run = out / "k3_pass"
    shutil.copytree(source, run)
    error = run / "details" / "error"
    task = sorted(error.iterdir())[0]
    (run / "details" / "fatal").mkdir()
    moved = task.rename(run / "details" / "fatal" / task.name)
    for result in moved.glob("attempt-*/result.json"):
        data = json.loads(result.read_text())
        for issue in data["issues"]:
            issue["severity"] = "fatal"
        result.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return run


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (140, 45)])
@pilot_test
async def test_lottery_marks_references(run_path, tmp_path: Path, size) -> None:  # type: ignore[no-untyped-def]
    run = failed_k3_run(run_path("k3_pass"), tmp_path)
    app = InspectorApp([run])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)
        await pilot.press("w")
        await settle(pilot)
        chooser = app.screen
        assert isinstance(chooser, WhatIfScreen)
        text = static_text(chooser.query_one("#whatif-lottery"), width=400)
        # attempt 1 holds the fatal task: its k=1 value is a reference; 2 and 3 are values
        assert "on attempt 1 / 2 / 3: 0.2222 (reference) / 0.4167 / 0.5 " in text
        # the stored pass@3 is null, 0.8611 only its reference
        assert "beside correct.pass@3 0.8611 (reference)" in text
