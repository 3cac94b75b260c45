"""The leaderboard: models × benchmarks of the recomputed runs (issue 16)."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from inspector.app.screens.compare import CompareScreen
from inspector.app.screens.leaderboard import LeaderboardScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.cli.main import main
from inspector.views.leaderboard import build, export
from inspector.views.runs_view import RunRow
from tests.conftest import FIXTURE_RUNS
from tests.results_root import (
    ENDS_ALIKE,
    SCICODE_MODEL,
    TAMPERED,
    make_results_root,
    tamper_headline,
)
from widgets.key_footer import KeyFooter

from .helpers import pilot_test, settle, static_text
from .test_runs_recomputed import checked_screen


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_results_root(tmp_path)


def leaderboard_json(root: Path, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    assert main(["leaderboard", str(root), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_one_cell_per_model_and_benchmark_with_the_newest_finished_run(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cells = {(c["model"], c["benchmark"]): c for c in leaderboard_json(root, capsys)}
    # Every (model, benchmark) of the root once; the scicode copies share one cell.
    assert len(cells) == 7
    scicode = cells[(SCICODE_MODEL, "scicode")]
    assert scicode["runs"] == 3  # three copies of one run, one with a tampered metrics.json
    assert scicode["failing_runs"] == [TAMPERED]
    cut_off = cells[("gpt-5-2025-08-07", "scicode")]  # params.json names the model
    assert cut_off["check"] == "unusable" and cut_off["failing_runs"] == ["scicode/compare_b"]
    assert cut_off["value"] is None
    stored = json.loads((FIXTURE_RUNS / "compare_a" / "metrics.json").read_text("utf-8"))
    headline = next(s for s in stored["series"] if s["role"] == "headline")
    assert scicode["value"] == headline["value"]
    assert scicode["counts"] == {
        name: headline["counts"][name] for name in ("error", "unavailable", "invalidated")
    }
    failed = next(c for c in cells.values() if c["benchmark"] == "screenspot")
    assert failed["is_reference"] is True and failed["status"] == "failed"


def test_newest_finished_run_is_chosen_over_a_newer_failed_one(tmp_path: Path) -> None:
    from inspector.answers.root import check_root
    from inspector.overrides import Overrides
    from inspector.results.discover import find_runs

    for name, status, started in (
        ("old_ok", "completed", "2026-01-01T00:00:00+00:00"),
        ("new_failed", "failed", "2026-02-01T00:00:00+00:00"),
    ):
        run = tmp_path / "ns" / name
        shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
        info = json.loads((run / "run_info.json").read_text("utf-8"))
        info["status"], info["started_at"] = status, started
        (run / "run_info.json").write_text(json.dumps(info), encoding="utf-8")
    tamper_headline(tmp_path / "ns" / "new_failed")
    checks = {c.run: c for c in check_root(str(tmp_path), Overrides())}
    rows = [RunRow(r, checks[r.relative]) for r in find_runs(tmp_path)]
    assert [r.summary.relative for r in rows] == ["ns/new_failed", "ns/old_ok"]
    cell = next(iter(build(rows).cells.values()))
    assert cell.run.summary.relative == "ns/old_ok"
    assert [r.summary.relative for r in cell.failing] == ["ns/new_failed"]
    assert cell.showing(cell.chosen + 1).run.summary.relative == "ns/new_failed"


def test_exports_hold_every_cell(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = leaderboard_json(root, capsys)
    assert main(["leaderboard", str(root), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["model"], r["benchmark"], r["run"]) for r in rows] == [
        (r["model"], r["benchmark"], r["run"]) for r in records
    ]
    assert main(["leaderboard", str(root)]) == 0  # Markdown by default
    lines = capsys.readouterr().out.splitlines()
    models = sorted({r["model"] for r in records}, key=str.casefold)
    assert len(lines) == 2 + len(models)
    assert [line.split(" | ")[0].lstrip("| ") for line in lines[2:]] == models
    scicode_line = next(line for line in lines if line.startswith(f"| {SCICODE_MODEL} |"))
    assert "0.5000 ≠ e2 u2 i0" in scicode_line  # a run behind the cell differs


def test_the_command_lists_the_root_through_the_cached_listing(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the runs screen: a second leaderboard of an unchanged root reads no run's
    run-level files again (the loading layer's runs list), and an edited run is read."""
    from inspector.loading import many as summary_cache
    from inspector.results import discover
    from tests.loading.helpers import count_summaries, settle_time_stamps

    settle_time_stamps()
    read = count_summaries(monkeypatch, discover, summary_cache)
    first = leaderboard_json(root, capsys)
    assert len(read) == 9
    read.clear()
    assert leaderboard_json(root, capsys) == first
    assert read == []
    info = root / ENDS_ALIKE[0] / "run_info.json"
    info.write_text(info.read_text("utf-8").replace("gpt-5-mini", "gpt-6-mini"), "utf-8")
    settle_time_stamps()
    again = leaderboard_json(root, capsys)
    assert read == [ENDS_ALIKE[0]]
    assert any(c["model"] == "gpt-6-mini-2025-08-07" for c in again)


async def open_leaderboard(pilot) -> LeaderboardScreen:  # type: ignore[no-untyped-def]
    await checked_screen(pilot)
    await pilot.press("g")
    await settle(pilot)
    board = pilot.app.screen
    assert isinstance(board, LeaderboardScreen)
    return board


def move_to(board: LeaderboardScreen, model: str, benchmark: str) -> None:
    row = board.board.models.index(model)
    column = board.board.benchmarks.index(benchmark) + 1
    board.table.move_cursor(row=row, column=column)


@pilot_test
async def test_leaderboard_opens_cells_cycles_runs_and_compares(root: Path) -> None:
    app = InspectorApp([root])
    async with app.run_test(size=(140, 45)) as pilot:
        board = await open_leaderboard(pilot)
        move_to(board, SCICODE_MODEL, "scicode")
        await pilot.pause()
        # the table's own enter does not hide the screen's: the footer says what enter does
        assert "open_run" in [key.action for key in board.query_one(KeyFooter).shown_keys]
        cell = board.current
        assert cell is not None and cell.run.summary.relative in ENDS_ALIKE
        status = static_text(board.query_one("#leaderboard-status"), width=400)
        assert "run 1 of 3 (1 failing the check: " + TAMPERED + ")" in " ".join(status.split())
        first = cell.run.summary.relative
        await pilot.press("n")
        assert board.current is not None and board.current.run.summary.relative != first
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)
        assert app.screen.path == board.current.run.summary.path
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is board
        await pilot.press("m")
        move_to(board, "deepseek-r1-0528", "hle")
        await pilot.pause()
        await pilot.press("m", "c")
        for _ in range(100):
            await settle(pilot)
            if isinstance(app.screen, CompareScreen):
                break
            await pilot.pause(0.1)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        # Issue 37: cells whose task sets differ are warned about before the numbers, and
        # every task is on the side its id belongs to (not "only in A" for B's tasks).
        c = screen.comparison
        ids_a, ids_b = ({t.task_id for t in rec.tasks} for rec in (c.a, c.b))
        assert ids_a != ids_b
        header = " ".join(static_text(screen.header_text, width=400).split())
        assert any(w.startswith("different task sets: ") for w in c.warnings)
        assert all(w in header for w in c.warnings)
        await pilot.press("ctrl+f", "ctrl+f", "ctrl+f")  # all tasks
        await settle(pilot)
        assert screen.task_filter == "all"
        sides = {ch.task_id: ch.kind for ch in screen.shown}
        assert set(sides) == ids_a | ids_b
        assert {t for t, k in sides.items() if k == "only in A"} == ids_a - ids_b
        assert {t for t, k in sides.items() if k == "only in B"} == ids_b - ids_a


@pilot_test
async def test_leaderboard_export_writes_the_table(root: Path, tmp_path: Path) -> None:
    app = InspectorApp([root])
    async with app.run_test(size=(140, 45)) as pilot:
        board = await open_leaderboard(pilot)
        target = tmp_path / "out" / "board.json"
        target.parent.mkdir()
        board.export_to(target)
        written = json.loads(target.read_text("utf-8"))
        assert len(written) == len(board.board.cells)
        assert written == json.loads(export(board.board, "json"))
        inside = root / "board.md"
        board.export_to(inside)  # never under the results root
        assert not inside.exists()
        link = tmp_path / "out" / "link.md"
        link.symlink_to(inside)
        board.export_to(link)  # nor through a link beside it (issue 48)
        assert not inside.exists()


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (140, 45)], ids=lambda s: f"{s[0]}x{s[1]}")
@pilot_test
async def test_every_benchmark_column_is_on_screen(root: Path, size: tuple[int, int]) -> None:
    """Issue 14: at 80 columns too, all six benchmark columns are on screen (no scrolling
    sideways); model names and headers cut in the middle stay apart; the cursor's cell is
    whole in the line below."""
    app = InspectorApp([root])
    async with app.run_test(size=size) as pilot:
        board = await open_leaderboard(pilot)
        table = board.table
        assert len(board.board.benchmarks) == 6
        assert table.virtual_size.width <= table.scrollable_content_region.width, size
        names = [str(table.get_row_at(row)[0]) for row in range(table.row_count)]
        assert len(set(names)) == len(board.board.models), names  # gpt-5-… and gpt-5-mini-…
        headers = [str(column.label) for column in table.ordered_columns]
        assert len(set(headers)) == len(headers), headers
        move_to(board, "qwen2.5-vl-72b-instruct", "screenspot")  # a reference value
        await pilot.pause()
        shown = str(table.get_cell_at(table.cursor_coordinate))
        assert shown.startswith("0.6364") and shown.endswith("✓"), shown
        assert ("ref" in shown) == (size[0] >= 140) and ("ʳ" in shown) != ("ref" in shown)
        line = board.query_one("#leaderboard-status")
        status = " ".join(static_text(line, width=400).split())
        assert "qwen2.5-vl-72b-instruct × screenspot" in status, status
        # the whole of it on screen: the line is as tall as its text at its width
        lines = static_text(line, width=line.content_region.width).rstrip("\n").split("\n")
        assert line.content_region.height == len(lines), lines
        if size[0] == 140:  # room: model names whole but the longest, headers up to 16 cells
            assert "gpt-5-mini-2025-08-07" in names and "terminal_bench_2" in headers
