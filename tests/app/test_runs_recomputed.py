"""Runs screen: recomputed values and check marks as they arrive, sorts and filters, column
priorities, the cursor row's full text (issue 16; issue 14 item 1)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from inspector.answers.root import audit_runs
from inspector.app.app import InspectorApp
from inspector.app.screens import runs as runs_module
from inspector.app.screens.runs import RunsScreen
from tests.loading.helpers import settle_time_stamps
from tests.results_root import (
    CANCELLED,
    CUT_OFF,
    ENDS_ALIKE,
    FAILED,
    LEGACY_RUN,
    MICRO,
    PASS,
    TAMPERED,
    make_results_root,
)
from tests.results_root import checked_screen as wait_until_checked
from widgets.run_table import RunTable

from .helpers import pilot_test, settle, static_text


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_results_root(tmp_path)


def row_cells(table: RunTable) -> dict[str, dict[str, str]]:
    """Run (path under the root) -> column key -> the cell's text, for every row shown."""
    keys = table.column_keys
    out = {}
    for number, row in enumerate(table.rows_shown):
        cells = [table.get_cell_at((number, i)).plain.strip() for i in range(len(keys))]
        out[row.summary.relative] = dict(zip(keys, cells, strict=True))
    return out


def stored_headline(run: Path) -> dict:
    metrics = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    return next(s for s in metrics["series"] if s["role"] == "headline")


async def checked_screen(pilot) -> RunsScreen:  # type: ignore[no-untyped-def]
    screen: RunsScreen = await wait_until_checked(pilot, settle)
    return screen


@pilot_test
async def test_every_row_gets_its_recomputed_value_check_mark_and_counts(root: Path) -> None:
    app = InspectorApp([root])
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await checked_screen(pilot)
        cells = row_cells(screen.run_table)
        assert set(cells) == {*ENDS_ALIKE, FAILED, CANCELLED, LEGACY_RUN, CUT_OFF, PASS, MICRO}
        marks = {run: cell["check"] for run, cell in cells.items()}
        assert marks.pop(TAMPERED) == "≠"
        assert marks.pop(CUT_OFF) == "!"
        assert set(marks.values()) == {"✓"}
        for run in (*ENDS_ALIKE, FAILED, CANCELLED, LEGACY_RUN, PASS, MICRO):
            stored = stored_headline(root / run)
            counts = stored["counts"]
            cell = cells[run]
            if run == TAMPERED:  # recomputed, not what the tampered file says
                stored["value"] -= 0.25
            value = stored["value"] if stored["value"] is not None else stored["reference_value"]
            assert cell["headline"].split()[0] == f"{value:.4f}", run
            assert (cell["error"], cell["unavailable"], cell["invalidated"]) == (
                str(counts["error"]),
                str(counts["unavailable"]),
                str(counts["invalidated"]),
            ), run
            assert cell["tasks"] == str(counts["total"]), run
        assert cells[FAILED]["headline"].endswith("ref")  # the evaluation failed
        assert cells[FAILED]["status"] == "failed"
        assert cells[LEGACY_RUN]["tasks"] == "4"  # v2 layout: task folders without state folders
        # The run that cannot be recomputed keeps its stored value, marked as stored.
        stored = stored_headline(root / CUT_OFF)["value"]
        assert cells[CUT_OFF]["headline"] == f"{stored:.4f} stored"


@pilot_test
async def test_stored_values_stay_until_the_recomputed_ones_arrive(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()

    def held(runs, overrides, **kwargs):  # type: ignore[no-untyped-def]
        release.wait(30)
        yield from audit_runs(runs, overrides, **kwargs)

    monkeypatch.setattr(runs_module, "audit_runs", held)
    app = InspectorApp([root])
    async with app.run_test(size=(140, 45)) as pilot:
        for _ in range(3):
            await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        while not screen.rows:
            await pilot.pause(0.05)
        cells = row_cells(screen.run_table)
        for run in (PASS, MICRO, FAILED):
            stored = stored_headline(root / run)
            value = stored["value"] if stored["value"] is not None else stored["reference_value"]
            assert cells[run]["headline"] == f"{value:.4f} stored"
            assert cells[run]["check"] == "…" and cells[run]["error"] == "…"
        assert "recomputing 9" in static_text(screen.query_one("#runs-note"))
        release.set()
        screen = await checked_screen(pilot)
        cells = row_cells(screen.run_table)
        assert cells[PASS]["check"] == "✓" and "stored" not in cells[PASS]["headline"]
        assert "9 runs · 7 ✓ · 1 ≠ stored · 1 !" in static_text(screen.query_one("#runs-note"))


@pilot_test
async def test_filter_by_field_and_sort(root: Path) -> None:
    app = InspectorApp([root])
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await checked_screen(pilot)

        async def shown_for(text: str) -> list[str]:
            screen.filter_input.value = text
            await pilot.pause()
            return [run.relative for run in screen.shown]

        assert await shown_for("check:differs") == [TAMPERED]
        assert await shown_for("check:unusable") == [CUT_OFF]
        assert await shown_for("status:failed") == [FAILED]
        assert await shown_for("status:cancelled") == [CANCELLED]
        assert sorted(await shown_for("benchmark:scicode")) == sorted([*ENDS_ALIKE, CUT_OFF])
        assert await shown_for("model:deepseek") == [PASS]
        assert await shown_for("harness:terminus") == [CANCELLED]
        assert await shown_for("date:2026-01-20") == [FAILED]
        assert await shown_for("benchmark:scicode check:ok") == [ENDS_ALIKE[0], ENDS_ALIKE[2]]
        assert await shown_for("20261130_000003") == [ENDS_ALIKE[2]]
        await shown_for("")
        screen.run_table.focus()
        newest_first = [run.relative for run in screen.shown]
        await pilot.press("s")  # run
        assert screen.sort_by == "run"
        assert [run.relative for run in screen.shown] == sorted(newest_first, key=str.casefold)
        for field in ("model", "benchmark", "harness"):
            await pilot.press("s")
            assert screen.sort_by == field
            named = [getattr(run, field) for run in screen.shown]
            present = [name for name in named if name]
            assert present == sorted(present, key=str.casefold), field
            assert named == present + [None] * (len(named) - len(present)), field
        while screen.sort_by != "check":
            await pilot.press("s")
        assert [run.relative for run in screen.shown][:2] == [CUT_OFF, TAMPERED]
        await pilot.press("s")  # value, highest first
        values = [row.value for row in screen.run_table.rows_shown]
        assert values[-1] is None  # cannot be recomputed: last
        assert values[:-1] == sorted(values[:-1], reverse=True)
        await pilot.press("S")
        values = [row.value for row in screen.run_table.rows_shown]
        assert values[:-1] == sorted(values[:-1]) and values[-1] is None
        while screen.sort_by != "status":
            await pilot.press("s")
        statuses = [run.status or "" for run in screen.shown]
        assert statuses[-1] == ""  # the legacy run has no status: last either way
        assert statuses[:-1] == sorted(statuses[:-1], reverse=True)


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (140, 45)])
@pilot_test
async def test_ids_values_and_counts_never_fold(root: Path, size: tuple[int, int]) -> None:
    app = InspectorApp([root])
    async with app.run_test(size=size) as pilot:
        screen = await checked_screen(pilot)
        table = screen.run_table
        keys = table.column_keys
        for key in ("run", "tasks", "error", "unavailable", "invalidated", "headline", "check"):
            assert key in keys
        used = sum(column.get_render_width(table) for column in table.ordered_columns)
        assert used <= table.size.width - 2  # no sideways scrolling
        for run, cells in row_cells(table).items():
            if run in ENDS_ALIKE:
                # The end of the folder name, what tells the runs apart, is whole.
                assert cells["run"].endswith("/" + run.rpartition("/")[2]), cells["run"]
        if size[0] >= 140:
            assert {"status", "model", "benchmark", "plan", "started"} <= set(keys)
        if size[0] <= 80:
            assert "model" not in keys and "harness" not in keys


@pilot_test
async def test_status_line_shows_the_whole_cursor_row(root: Path) -> None:
    app = InspectorApp([root])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await checked_screen(pilot)
        table = screen.run_table
        table.move_cursor(row=[r.summary.relative for r in table.rows_shown].index(TAMPERED))
        await pilot.pause()
        text = " ".join(static_text(screen.query_one("#runs-status"), width=400).split())
        assert text.startswith(f"{TAMPERED} · correct.native@1 · stored 0.7500 · recomputed 0.5000")
        assert "≠ correct.native@1 value: stored 0.75, recomputed 0.5" in text
        # and all of it on screen, not cut after four lines: as tall as its text
        line = screen.query_one("#runs-status")
        lines = static_text(line, width=line.content_region.width).rstrip("\n").split("\n")
        assert len(lines) > 4 and line.content_region.height == len(lines), lines


@pilot_test
async def test_three_runs_of_one_namespace_fit_at_100_columns(tmp_path: Path) -> None:
    """Issue 14: at 100×30, each run's folder name and headline value are on screen."""
    root = make_results_root(tmp_path, ends_alike_only=True)
    app = InspectorApp([root])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await checked_screen(pilot)
        # What a person sees: the screen as text, line by line.
        lines = [strip.text for strip in app.screen._compositor.render_strips()]
        stored = stored_headline(root / ENDS_ALIKE[0])["value"]
        for run in ENDS_ALIKE:
            folder = run.rpartition("/")[2]
            shown = [line for line in lines if folder in line]
            assert len(shown) >= 1, (folder, lines)
            assert f"{stored:.4f}" in shown[0] and "✓" in shown[0]
        del screen


def stats_interval(run: Path, series_id: str) -> tuple[float, float]:
    """The interval `inspector stats` gives the series (issue 15's statistics)."""
    import contextlib
    import io

    from inspector.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["stats", str(run), "--format", "json", "--series", series_id]) == 0
    series = json.loads(out.getvalue())["series"][0]
    return series["ci_low"], series["ci_high"]


def assert_outward(shown: str, low: float, high: float) -> None:
    """``shown`` (``.45–.55``) holds [low, high], each bound rounded outwards to hundredths:
    never a symmetric ``±`` of an interval that is not symmetric."""
    left, right = (float(part) for part in shown.split("–"))
    assert left <= low < left + 0.01 + 1e-12 and right - 0.01 - 1e-12 < high <= right, (
        shown, low, high,
    )  # fmt: skip


@pilot_test
async def test_headline_intervals_are_shown_with_the_values(root: Path) -> None:
    app = InspectorApp([root])
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await checked_screen(pilot)
        cells = row_cells(screen.run_table)
        for run in (PASS, MICRO):
            series_id = stored_headline(root / run)["series_id"]
            low, high = stats_interval(root / run, series_id)
            value = stored_headline(root / run)["value"]
            shown_value, bounds = cells[run]["headline"].split(" ")
            assert shown_value == f"{value:.4f}", run
            assert_outward(bounds, low, high)
            row = next(r for r in screen.rows if r.summary.relative == run)
            assert row.recomputed is not None and row.recomputed.interval == (low, high)
        # No interval for a reference value or a run that cannot be recomputed.
        assert "–" not in cells[FAILED]["headline"] and "–" not in cells[CUT_OFF]["headline"]
        table = screen.run_table
        table.move_cursor(row=[r.summary.relative for r in table.rows_shown].index(MICRO))
        await pilot.pause()
        text = " ".join(static_text(screen.query_one("#runs-status"), width=400).split())
        low, high = stats_interval(root / MICRO, stored_headline(root / MICRO)["series_id"])
        assert f"interval [{low:.4f}, {high:.4f}]" in text


def asked_for_intervals(app: InspectorApp, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each time the runs screen asks for headline intervals apart from the checks: whether
    every run was checked by then."""
    asked_when: list[bool] = []
    real = runs_module.audit_intervals

    def watched(runs, overrides, **kwargs):  # type: ignore[no-untyped-def]
        screen = app.screen
        asked_when.append(isinstance(screen, RunsScreen) and screen.all_checked)
        yield from real(runs, overrides, **kwargs)

    monkeypatch.setattr(runs_module, "audit_intervals", watched)
    return asked_when


@pilot_test
async def test_a_run_read_for_its_check_brings_its_interval(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing cached: every run is read for its check, and its interval comes from that
    read (no second read of the runs for their statistics)."""
    app = InspectorApp([root])
    asked_when = asked_for_intervals(app, monkeypatch)
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await checked_screen(pilot)
        assert asked_when == []
        for run in (PASS, MICRO):
            low, high = stats_interval(root / run, stored_headline(root / run)["series_id"])
            row = next(r for r in screen.rows if r.summary.relative == run)
            assert row.recomputed is not None and row.recomputed.interval == (low, high)


@pilot_test
async def test_the_intervals_wait_for_every_value(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs whose checks the report cache answers without their statistics (each run was
    reported first, as `inspector report` does): the statistics are asked for only once
    every run shows its recomputed value."""
    from inspector.answers.run import load_outputs
    from inspector.loading.processes import in_shared_pool
    from inspector.overrides import Overrides

    settle_time_stamps()  # files written just now are read again next time, never cached
    reports = [(str(root / run), Overrides()) for run in (PASS, MICRO)]
    # Where the app checks them: in its reader processes (which keep the cache folder they
    # started with), else here.
    if in_shared_pool(load_outputs, reports) is None:
        for path, overrides in reports:
            load_outputs(path, overrides)
    real_checks = runs_module.audit_runs

    def one_at_a_time(runs, overrides, **kwargs):  # type: ignore[no-untyped-def]
        for batch in real_checks(runs, overrides, **kwargs):
            yield from ([check] for check in batch)

    monkeypatch.setattr(runs_module, "audit_runs", one_at_a_time)
    app = InspectorApp([root])
    asked_when = asked_for_intervals(app, monkeypatch)
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await checked_screen(pilot)
        assert asked_when == [True]
        for run in (PASS, MICRO):
            low, high = stats_interval(root / run, stored_headline(root / run)["series_id"])
            row = next(r for r in screen.rows if r.summary.relative == run)
            assert row.recomputed is not None and row.recomputed.interval == (low, high)
