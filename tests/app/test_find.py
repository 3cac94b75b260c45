"""Issue 40: find anything in three keys, see everything at 80 columns — run names that
tell runs apart, keys that move the cursor, the palette's providers, ``/`` and ``:``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from tests.conftest import FIXTURE_RUNS
from tests.results_root import checked_screen

from .helpers import pilot_test, settle

NAMESPACE = "gpt_scicode_scicode_tool_use_namespace"
ALIKE = (
    f"{NAMESPACE}/syn_alpha_avg_fatal_hierarchy",  # differ in the middle
    f"{NAMESPACE}/syn_beta_avg_fatal_hierarchy",
    f"{NAMESPACE}/20261130_000001",  # differ at the end
    f"{NAMESPACE}/20261130_000002",
)


@pytest.fixture
def alike_root(tmp_path: Path) -> Path:
    """Four runs of one long namespace: two differ only in the middle of their folder
    name, two only at its end; one model is gpt-5, the other gpt-5-mini."""
    root = tmp_path / "results"
    for n, relative in enumerate(ALIKE):
        shutil.copytree(FIXTURE_RUNS / ("compare_a" if n % 2 else "compare_b"), root / relative)
    return root


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (140, 45)])
@pilot_test
async def test_run_names_under_a_root_are_unique_at_every_size(
    alike_root: Path, size: tuple[int, int]
) -> None:
    app = InspectorApp([alike_root])
    async with app.run_test(size=size) as pilot:
        screen = await checked_screen(pilot, settle)
        table = screen.run_table
        keys = table.column_keys
        for key in ("run", "model"):
            if key not in keys:
                continue
            shown = {
                row.summary.relative: table.get_cell_at((n, keys.index(key))).plain
                for n, row in enumerate(table.rows_shown)
            }
            names = {row.summary.relative: (row.summary.relative if key == "run" else
                                            row.summary.model) for row in table.rows_shown}  # fmt: skip
            distinct_names = len(set(names.values()))
            assert len(set(shown.values())) == distinct_names, (size, key, shown)
        assert "run" in keys


@pilot_test
async def test_end_and_home_move_the_cursor_of_the_runs_list(alike_root: Path) -> None:
    app = InspectorApp([alike_root])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await checked_screen(pilot, settle)
        table = screen.run_table
        table.focus()
        await pilot.press("end")
        assert table.cursor_row == len(ALIKE) - 1
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.press("pagedown")
        assert table.cursor_row == len(ALIKE) - 1
