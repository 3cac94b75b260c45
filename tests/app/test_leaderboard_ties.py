"""Ties on the leaderboard (issue 51 item 3): Holm over each benchmark column's pairwise paired
comparisons, groups of models not separated, simultaneous rank intervals; in the JSON, CSV
and Markdown of ``inspector leaderboard``. The family-wise error and power are measured by
benchmarks/bench_ties.py."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.views.ties import column_ties, holm
from tests.conftest import script

from .helpers import pilot_test


def test_holm_adjusts_step_down() -> None:
    # by hand: sorted 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → max(0.06, 0.04)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])  # 0.5·2 capped at 1


def test_separated_pairs_give_rank_intervals_and_groups() -> None:
    values = {"a": 0.9, "b": 0.8, "c": 0.3}
    # Holm: 0.001·3 = 0.003, 0.02·2 = 0.04 ≤ 0.05, 0.5: a–c and b–c separated, a–b not
    ties = column_ties("bench", values, {("a", "b"): 0.5, ("a", "c"): 0.001, ("b", "c"): 0.02})
    ranks = {m: (s.rank_low, s.rank_high, s.groups) for m, s in ties.standings.items()}
    assert ranks == {"a": (1, 2, "a"), "b": (1, 2, "a"), "c": (3, 3, "b")}
    assert ties.standings["a"].rank_text == "#1–2" and ties.standings["c"].rank_text == "#3"
    assert ties.standings["a"].tied_with == ("b",)
    # 0.03·2 = 0.06 > 0.05 after 0.001·3: b–c is no longer separated
    looser = column_ties("bench", values, {("a", "b"): 0.5, ("a", "c"): 0.001, ("b", "c"): 0.03})
    ranks = {m: (s.rank_low, s.rank_high, s.groups) for m, s in looser.standings.items()}
    assert ranks == {"a": (1, 2, "a"), "b": (1, 3, "ab"), "c": (2, 3, "b")}


def test_a_pair_without_an_interval_is_never_separated() -> None:
    ties = column_ties("bench", {"a": 1.0, "b": 0.0}, {("a", "b"): None})
    assert not ties.pairs[0].separated
    assert ties.standings["a"].rank_text == "#1–2" and ties.standings["b"].groups == "a"


def _tied_root(out: Path) -> Path:
    script("fixtures/make_tied_root.py").make(out)
    return out


def test_the_leaderboard_shows_ties_in_json_csv_and_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """model-a (55 of 60) and model-b (54, one task apart) are not separated; c (30) and
    d (10) are separated from everyone (20 tasks or more apart, nested solved sets)."""
    root = _tied_root(tmp_path / "tied")
    assert main(["leaderboard", str(root), "--format", "json"]) == 0
    records = {r["model"]: r for r in json.loads(capsys.readouterr().out)}
    got = {m: (r["rank_low"], r["rank_high"], r["rank"], r["group"]) for m, r in records.items()}
    assert got == {
        "model-a": (1, 2, "#1–2", "a"),
        "model-b": (1, 2, "#1–2", "a"),
        "model-c": (3, 3, "#3", "b"),
        "model-d": (4, 4, "#4", "c"),
    }
    assert records["model-a"]["tied_with"] == ["model-b"]
    pairs = {p["other"]: p for p in records["model-a"]["pairs"]}
    assert not pairs["model-b"]["separated"] and pairs["model-c"]["separated"]
    assert pairs["model-b"]["delta"] == pytest.approx(1 / 60)
    assert pairs["model-c"]["p_holm"] >= pairs["model-c"]["p_value"]
    assert "Holm" in records["model-a"]["ties_method"]
    assert records["model-a"]["value"] == pytest.approx(55 / 60)  # the old keys stay
    assert main(["leaderboard", str(root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].startswith("| model-a | 0.9167 ") and lines[2].endswith(" #1–2 (a) |")
    assert lines[4].endswith(" #3 (b) |")
    assert main(["leaderboard", str(root), "--format", "csv"]) == 0
    rows = {r["model"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert (rows["model-b"]["rank_low"], rows["model-b"]["rank_high"]) == ("1", "2")
    assert rows["model-d"]["group"] == "c"


def test_a_column_with_one_model_has_no_ranks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tied_root(tmp_path / "tied")
    for model in ("model-b", "model-c", "model-d"):
        for path in sorted((root / model).rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        (root / model).rmdir()
    assert main(["leaderboard", str(root), "--format", "json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["rank"] is None and record["pairs"] is None


@pilot_test
async def test_the_leaderboard_screen_has_a_rank_column(tmp_path: Path) -> None:
    """Once every run is recomputed, the last column gives each model's rank interval and
    group letters, as the command does."""
    from inspector.app.app import InspectorApp

    from .helpers import settle
    from .test_leaderboard import open_leaderboard

    root = _tied_root(tmp_path / "tied")
    app = InspectorApp([root])
    async with app.run_test(size=(140, 45)) as pilot:
        board = await open_leaderboard(pilot)
        for _ in range(100):
            await app.workers.wait_for_complete()
            await settle(pilot)
            if board.board.ties:
                break
            await pilot.pause(0.1)
        table = board.table
        assert str(table.columns[table.ordered_columns[-1].key].label) == "Rank"
        ranks = {
            model: str(table.get_row_at(row)[-1]) for row, model in enumerate(board.board.models)
        }
        assert ranks == {
            "model-a": "#1–2 (a)",
            "model-b": "#1–2 (a)",
            "model-c": "#3 (b)",
            "model-d": "#4 (c)",
        }


@pilot_test
async def test_the_rank_column_is_as_wide_as_its_ranks_when_drawn(tmp_path: Path) -> None:
    """The Rank column is drawn whole at once: its width does not wait for the table's next
    idle (an auto width did, so a screenshot taken just after the ties arrived showed
    "#1–2" and "#3 (" cut to the header's four cells, as the removed snapshots did under
    load)."""
    from inspector.app.app import InspectorApp
    from inspector.app.screens.leaderboard import RANKS, TiesFound

    from .helpers import settle
    from .test_leaderboard import open_leaderboard

    root = _tied_root(tmp_path / "tied")
    app = InspectorApp([root])
    async with app.run_test(size=(140, 45)) as pilot:
        board = await open_leaderboard(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        ties = dict(board.board.ties)
        assert ties, "the ties worker has finished and its TiesFound was handled"
        board.board = board.board.with_ties({})
        board._draw()
        # the app's own message, handled synchronously: no idle between it and the check
        board._ties_found(TiesFound(board._shown(), ties))
        table = board.table
        widths = {str(c.label): c.get_render_width(table) - 2 * table.cell_padding
                  for c in table.ordered_columns}  # fmt: skip
        assert widths[RANKS] == len("#1–2 (a)")
