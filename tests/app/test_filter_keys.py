"""Keys around a filter or search box (issue 49, item 7): Down leaves the runs screen's
filter for its list; in the diagnostics pager, enter in the search box hands the focus to the
pager, so n / N jump between matches (and are in the footer) instead of typing "errorn"."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from tests.results_root import checked_screen, make_results_root
from widgets.key_footer import KeyFooter

from .helpers import pilot_test, settle
from .test_task_diagnostics import open_raw_result

SIZES = [(80, 24), (100, 30), (140, 45)]


@pytest.mark.parametrize("size", SIZES)
@pilot_test
async def test_down_leaves_the_runs_filter_for_the_list(tmp_path: Path, size) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([make_results_root(tmp_path)])
    async with app.run_test(size=size) as pilot:
        screen = await checked_screen(pilot, settle)
        await pilot.press("slash", *"k3")
        await settle(pilot)
        assert screen.filter_input.has_focus
        shown = [run.path for run in screen.shown]
        assert 0 < len(shown) < len(screen.runs)
        await pilot.press("down")
        await settle(pilot)
        assert screen.run_table.has_focus
        assert screen.filter_input.value == "k3"  # the filter stays
        assert [run.path for run in screen.shown] == shown
        await pilot.press("down")  # now in the list: the cursor moves
        assert screen.run_table.cursor_row == 1


@pytest.mark.parametrize("size", SIZES)
@pilot_test
async def test_n_and_N_after_a_search(run_path, size) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=size) as pilot:
        diagnostics = await open_raw_result(pilot)
        document = diagnostics.pager.document
        assert document is not None
        lines = document.lines(0, document.line_count)
        matches = [i for i, line in enumerate(lines) if "step_id" in line]
        assert len(matches) >= 2
        await pilot.press("slash", *"step_id", "enter")
        await settle(pilot)
        assert diagnostics.pager.has_focus
        first = diagnostics.pager.match_line
        assert first in matches
        footer = [k.description for k in app.screen.query_one(KeyFooter).shown_keys]
        assert {"Next match", "Prev match"} <= set(footer), footer
        await pilot.press("n")
        await settle(pilot)
        assert diagnostics.search_input.value == "step_id"  # not "step_idn"
        second = diagnostics.pager.match_line
        assert second in matches and second != first
        await pilot.press("N")
        await settle(pilot)
        assert diagnostics.pager.match_line == first
