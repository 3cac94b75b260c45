"""``gate --against``: the runs compared with are results too, and no change to them turns a
failing comparison into a pass. A run there that cannot be read makes the gate unusable
(exit 2), as a gated run that cannot be read does; so does a second run that could as well
be the counterpart (which one was meant cannot be told)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from inspector.cli.main import main
from tests.conftest import FIXTURE_RUNS


@pytest.fixture
def sides(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A baseline root (one run, compare_a), a gated root (one run, compare_b, another
    model at another path) and a policy under which compare_b fails against compare_a."""
    base, new = tmp_path / "base", tmp_path / "new"
    shutil.copytree(FIXTURE_RUNS / "compare_a", base / "x1")
    shutil.copytree(FIXTURE_RUNS / "compare_b", new / "y")
    policy = tmp_path / "policy.toml"
    policy.write_text('max_regression = 0.0\ninconclusive = "fail"\n', encoding="utf-8")
    return base, new, policy


def _gate(
    new: Path, against: Path, policy: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    code = main(["gate", str(new), "--against", str(against), "--policy", str(policy)])
    out, err = capsys.readouterr()
    return code, out + err


def test_the_comparison_fails_as_it_stands(
    sides: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, new, policy = sides
    code, said = _gate(new, base, policy, capsys)
    assert code == 1 and "FAIL y: correct.native@1: max_regression" in said


def test_a_second_run_beside_the_baseline_is_no_pass(
    sides: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """With two runs under --against, neither of the gated run's model, there is no run to
    compare with: the rule cannot judge, INCONCLUSIVE (it was skipped: exit 0)."""
    base, new, policy = sides
    shutil.copytree(base / "x1", base / "x2")
    code, said = _gate(new, base, policy, capsys)
    assert code == 1, said
    assert "FAIL y: max_regression: inconclusive: no run to compare with" in said
    policy.write_text("max_regression = 0.0\n", encoding="utf-8")  # inconclusive = "warn"
    code, said = _gate(new, base, policy, capsys)
    assert code == 0 and "WARN y: max_regression: inconclusive: no run to compare with" in said


def test_two_runs_that_could_each_be_the_baseline_make_the_gate_unusable(
    sides: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, new, policy = sides
    for name in ("x1", "x2"):  # both of the gated run's benchmark and model
        shutil.rmtree(base / name, ignore_errors=True)
        shutil.copytree(FIXTURE_RUNS / "compare_b", base / name)
    code, said = _gate(new, base, policy, capsys)
    assert code == 2, said
    line = next(line for line in said.splitlines() if line.startswith("unusable: y"))
    assert "x1, x2" in line


@pytest.mark.parametrize("whole", [False, True], ids=["root", "run"])
def test_a_baseline_that_cannot_be_read_makes_the_gate_unusable_not_a_pass(
    whole: bool, sides: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, new, policy = sides
    result = sorted((base / "x1" / "details").glob("*/*/attempt-1/result.json"))[0]
    result.unlink()
    os.mkfifo(result)
    code, said = _gate(new, base / "x1" if whole else base, policy, capsys)
    assert code == 2, said
    assert any(str(result.name) in line and "unusable" in line for line in said.splitlines()), said


def test_runs_that_cannot_be_read_again_for_the_comparison_are_no_pass(
    sides: tuple[Path, Path, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The paired analysis reads both runs again; when that fails (a file changed or went
    in between), the run is unusable, not a skipped rule."""
    from inspector.answers import gate

    base, new, policy = sides

    def gone(path: str, against: str, overrides: object, ids: list[str]) -> dict[str, str]:
        return {s: f"{gate.UNREAD}{against}/run_info.json: missing" for s in ids}

    monkeypatch.setattr(gate, "paired_facts", gone)
    code, said = _gate(new, base, policy, capsys)
    assert code == 2, said
    assert any(
        line.startswith("unusable: y") and "run_info.json" in line for line in said.splitlines()
    )
