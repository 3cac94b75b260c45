"""`inspector report` and `check` reproduce AgentCompass's own files on every conformance run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.cli.main import main
from tests.conftest import conformance_runs

RUNS = conformance_runs()


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def copy_without_oracle_case(run: Path, tmp_path: Path) -> Path:
    """A real run has no oracle_case.json: the inspector must not need it."""
    target = tmp_path / run.name
    shutil.copytree(run, target, symlinks=True)
    (target / "oracle_case.json").unlink(missing_ok=True)
    return target


@pytest.mark.parametrize("run", RUNS, ids=[r.name for r in RUNS])
def test_report_json_is_byte_identical(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy_without_oracle_case(run, tmp_path)
    code, out, _ = run_cli(capsys, "report", str(path), "--json")
    assert code == 0
    assert out == (run / "metrics.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("run", RUNS, ids=[r.name for r in RUNS])
def test_report_markdown_is_byte_identical(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy_without_oracle_case(run, tmp_path)
    code, out, _ = run_cli(capsys, "report", str(path), "--markdown")
    assert code == 0
    assert out == (run / "summary.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("run", RUNS, ids=[r.name for r in RUNS])
def test_check_passes(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy_without_oracle_case(run, tmp_path)
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0, out
    assert out.startswith("ok:")


def test_report_never_echoes_the_stored_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With metrics.json altered, report still prints the right numbers and check says where."""
    run = next(r for r in RUNS if r.name == "e2e_k3_avg_category_mean")
    path = copy_without_oracle_case(run, tmp_path)
    stored = json.loads((path / "metrics.json").read_text())
    stored["series"][0]["value"] = 0.123
    stored["series"][1]["counts"]["error"] += 1
    (path / "metrics.json").write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n")

    code, out, _ = run_cli(capsys, "report", str(path), "--json")
    assert code == 0
    assert out == (run / "metrics.json").read_text()

    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 1
    first, second = stored["series"][0]["series_id"], stored["series"][1]["series_id"]
    assert f"{first} value: stored 0.123" in out
    assert f"{second} counts.error" in out


def test_run_info_not_json_exits_2_with_one_line(tmp_path: Path) -> None:
    run = RUNS[0]
    path = copy_without_oracle_case(run, tmp_path)
    (path / "run_info.json").write_text("{not json", encoding="utf-8")
    for command in ("check", "report"):
        proc = subprocess.run(
            [sys.executable, "-m", "inspector", command, str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 2
        assert proc.stdout == ""
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1, proc.stderr
        assert "run_info.json" in lines[0]
        assert "Traceback" not in proc.stderr


def test_missing_directory_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "check", str(tmp_path / "nope"))
    assert code == 2
    assert out == ""
    assert "nope" in err


@pytest.mark.parametrize("damage", ["broken JSON", "not UTF-8"])
def test_run_info_broken_inside_its_plans_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    """AgentCompass reads run_info.json whole, so JSON broken inside its execution plans
    (or bytes that are not UTF-8) makes the run unreadable; the inspector may not score it
    (this 85 KB file was once parsed without its plans section, and is now checked without
    building them)."""
    run = Path(__file__).parents[2] / "fixtures" / "runs" / "k3_avg_hierarchy"
    path = copy_without_oracle_case(run, tmp_path)
    data = (path / "run_info.json").read_bytes()
    plans = data.index(b'"resolved_execution_plans"')
    broken = data.index(b'": ', plans + 40)
    if damage == "broken JSON":
        data = data[:broken] + b'" ' + data[broken + 3 :]
    else:
        value = data.index(b'": "', plans + 40) + 4
        data = data[:value] + b"\xff" + data[value:]
    (path / "run_info.json").write_bytes(data)
    for command in ("check", "report"):
        code, out, err = run_cli(capsys, command, str(path))
        assert code == 2, (command, out)
        assert out == ""
        assert "run_info.json" in err
