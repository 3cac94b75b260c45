"""The what-if's note on the series says which series were paired (issue 49, item 7).

``w`` then ``k=1`` on ``k3_avg_hierarchy``: the table pairs correct.avg@3 with
correct.native@1; the note must say so, and call only the unpaired correct.pass@3 "only in A".
"""

from __future__ import annotations

import pytest

from inspector.app.app import InspectorApp
from inspector.app.screens.compare import CompareScreen

from .helpers import pilot_test, settle, static_text


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (140, 45)])
@pilot_test
async def test_the_series_note_names_the_pairs(run_path, size) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        await pilot.press("enter")  # k=1
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        pairs = [
            (p.a.series_id if p.a else None, p.b.series_id if p.b else None)
            for p in screen.comparison.series
        ]
        assert ("correct.avg@3", "correct.native@1") in pairs
        assert ("correct.pass@3", None) in pairs
        header = " ".join(static_text(screen.header_text, width=1000).split())
        assert (
            "series differ: paired correct.avg@3 ↔ correct.native@1; only in A: correct.pass@3"
            in header
        )
        assert "only in B: correct.native@1" not in header
