"""``/`` in the diagnostics screen's trajectory of a large attempt (issue 53 item 3): the
search reads the pages its needle can be on, lands on the line reading every page finds and
says so in the status line; ``N`` from the top goes round to the last line holding it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.app.app import InspectorApp
from inspector.app.diagnostics import trajectory_text
from inspector.views import paged as paged_module
from inspector.views.paged import PagedDocument
from tests.app.helpers import pilot_test, settle, static_text
from tests.app.test_big_attempt import MAKER, SIZE, _diagnostics, _result


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hostile run with a 3 MB result.json (about 230 steps, 23 pages)."""
    path = tmp_path_factory.mktemp("search") / "big"
    MAKER.make(path, 3, 0.1)
    return path


@pilot_test
async def test_slash_lands_on_the_line_of_the_whole_text(
    run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _result(run).open(encoding="utf-8") as stream:
        trajectory = json.load(stream)["trajectory"]
    last = len(trajectory["steps"]) - 1
    needle = f"module_{last - 1}_7.py"
    whole = trajectory_text(trajectory).split("\n")  # no line here is 2,000 characters long
    holding = [i for i, line in enumerate(whole) if needle in line]
    expected = holding[0]
    written: list[int] = []
    step_lines = paged_module.step_lines

    def counted(number: int, step: Any) -> list[str]:
        written.append(number)
        return step_lines(number, step)

    monkeypatch.setattr(paged_module, "step_lines", counted)
    app = InspectorApp([run])
    async with app.run_test(size=SIZE) as pilot:
        diagnostics = await _diagnostics(pilot, "trajectory")
        document = diagnostics.pager.document
        assert isinstance(document, PagedDocument)
        shown = len(written)
        await pilot.press("slash")
        for character in needle:
            await pilot.press(character)
        await pilot.press("enter")
        await settle(pilot)
        assert diagnostics.pager.match_line == expected
        assert document.lines(expected, 1) == [whole[expected]]
        status = " ".join(static_text(diagnostics.status).split())
        assert f"match on line {expected + 1}" in status
        # the match's page written, not the steps before it (reading every page wrote all)
        assert len(written) - shown <= 40 < last
        await pilot.press("home")
        diagnostics.pager.match_line = None
        await pilot.press("N")  # backwards from the top: round to the last line holding it
        await settle(pilot)
        assert diagnostics.pager.match_line == holding[-1] > expected
