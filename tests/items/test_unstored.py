"""A run whose metrics.json is missing still gets its recomputed headline on the runs screen
and the leaderboard, marked "no stored report" (∅), not "cannot be recomputed" (!) (issue 41);
`check` still says it cannot be checked."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.answers.root import check_root
from inspector.cli.main import main
from inspector.overrides import Overrides
from inspector.results.discover import summarize_run
from inspector.views.run_check import UNSTORED, UNUSABLE
from inspector.views.runs_view import RunRow, describe
from tests.conftest import FIXTURE_RUNS


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE_RUNS / "k3_avg_hierarchy", tmp_path / "root" / "kept")
    shutil.copytree(FIXTURE_RUNS / "k3_avg_hierarchy", tmp_path / "root" / "lost")
    (tmp_path / "root" / "lost" / "metrics.json").unlink()
    return tmp_path / "root"


def recomputed_headline(run: Path) -> float:
    stored = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    return next(s["value"] for s in stored["series"] if s["role"] == "headline")  # type: ignore[no-any-return]


def test_the_leaderboard_shows_the_recomputed_value(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["leaderboard", str(root), "--format", "json"]) == 0
    (cell,) = json.loads(capsys.readouterr().out)
    assert cell["run"] in ("kept", "lost")
    expected = recomputed_headline(root / "kept")
    # Both runs are the same run: the cell's value is the recomputation, whichever it shows.
    assert cell["value"] == pytest.approx(expected)
    assert cell["failing_runs"] == []
    assert main(["leaderboard", str(root)]) == 0
    table = capsys.readouterr().out
    assert f"{expected:.4f} ∅" in table and " !" not in table


def test_the_runs_screen_row_says_no_stored_report(root: Path) -> None:
    checks = {c.run: c for c in check_root(str(root), Overrides())}
    lost = checks["lost"]
    assert (lost.status, lost.state) == (UNUSABLE, UNSTORED)
    assert lost.headline is not None
    assert lost.headline.value == pytest.approx(recomputed_headline(root / "kept"))
    assert checks["kept"].state == "ok"
    row = RunRow(summarize_run(root / "lost", "lost"), lost)
    assert row.check_state == UNSTORED
    line = " · ".join(describe(row))
    assert "no stored report" in line and "cannot recompute" not in line
    assert f"recomputed {lost.headline.value:.4f}" in line


def test_check_still_cannot_check_it(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(root)]) == 2
    assert (
        "lost: unusable: lost/metrics.json: no readable stored metrics.json"
        in capsys.readouterr().out
    )
