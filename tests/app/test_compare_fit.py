"""The compare screen never cuts a number, a header or the statistics, and the two sides'
names keep the part where they differ (issue 49, item 7)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from inspector.app.screens.compare import CompareScreen
from tests.conftest import conformance_run

from .helpers import compare_marked, pilot_test, settle, static_text

SIZES = [(80, 24), (100, 30), (140, 45)]


async def _what_if(pilot) -> CompareScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press("w")
    await settle(pilot)
    await pilot.press("enter")  # k=1
    for _ in range(5):
        await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, CompareScreen)
    return screen


def _check_fits(screen: CompareScreen) -> str:
    table = screen.series_table
    # every column of the series table on screen: no sideways scrolling cuts one off
    assert table.max_scroll_x == 0, (table.virtual_size.width, table.scrollable_content_region)
    for row in range(table.row_count):
        for column, key in enumerate(table.columns):
            cell = str(table.get_cell_at((row, column)))
            if key.value in ("counts_a", "counts_b"):
                assert cell == "—" or cell.count("/") == 4, cell
    # the statistics lines are shown whole (not scrolled out of a capped box)
    stats = screen.stats_line
    rendered = static_text(stats, width=stats.content_region.width).rstrip("\n").split("\n")
    assert len(rendered) <= stats.content_region.height, (rendered, stats.content_region)
    return " ".join(" ".join(rendered).split())


@pytest.mark.parametrize("size", SIZES)
@pilot_test
async def test_a_what_if_of_an_e2e_run_fits(size) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([conformance_run("e2e_k3_avg_category_mean")])
    async with app.run_test(size=size) as pilot:
        screen = await _what_if(pilot)
        assert "p inverts the CI)" in _check_fits(screen)


@pytest.mark.parametrize("size", SIZES)
@pilot_test
async def test_sides_named_by_where_they_differ(tmp_path: Path, size) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "results"
    names = ("experiment_alpha_2026_final_run", "experiment_bravo_2026_final_run")
    for name in names:
        shutil.copytree(conformance_run("e2e_k1_micro"), root / name)
    app = InspectorApp([root])
    async with app.run_test(size=size) as pilot:
        screen = await compare_marked(pilot, names)
        c = screen.comparison
        a, b = ("alpha", "bravo") if "alpha" in c.label_a else ("bravo", "alpha")
        headers = {
            str(col.key.value): str(col.label) for col in screen.series_table.ordered_columns
        }
        assert a in headers["a"] and b in headers["b"], headers
        assert a in screen.sub_title and b in screen.sub_title, screen.sub_title


@pytest.mark.parametrize("size", SIZES)
@pilot_test
async def test_reference_values_fold_a_column_rather_than_cut_one(
    run_path, tmp_path: Path, size
) -> None:  # type: ignore[no-untyped-def]
    """Two failed runs: each value reads '0.636364 (reference)'; where the series table
    cannot hold every column, the counts fold into the statistics lines."""
    root = tmp_path / "results"
    for name in ("failed_one", "failed_two"):
        shutil.copytree(run_path("k1_evaluation_failed"), root / name)
    app = InspectorApp([root])
    async with app.run_test(size=size) as pilot:
        screen = await compare_marked(pilot, ("failed_one", "failed_two"))
        for _ in range(3):
            await settle(pilot)
        _check_fits(screen)
        keys = [str(col.key.value) for col in screen.series_table.ordered_columns]
        counts = screen.comparison.a.report.series[0].counts
        said = f"{counts.total}/{counts.evaluated}/{counts.error}/{counts.unavailable}/{counts.invalidated}"
        if "counts_a" not in keys:  # folded: said under the table
            text = " ".join(static_text(screen.stats_line, width=400).split())
            assert f"counts A {said} · B {said}" in text, text
        else:
            assert size[0] >= 100
