"""Every failure names a file, in every format (issue 39): a 401-digit integer metric is
refused as AgentCompass refuses it ("metric 'reward' must be a finite JSON number", its
aggregation's MetricObservationError, seen with the oracle), naming the attempt's
result.json; ``check --format json`` always prints its object; ``diff`` names the run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.loading import door
from tests.conftest import FIXTURE_RUNS

TASK = "taubench_airline_7f283c06"


@pytest.fixture
def huge(tmp_path: Path) -> tuple[Path, str]:
    """k1_micro with a 401-digit integer reward; the result.json that holds it."""
    run = tmp_path / "huge"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    result = next((run / "details" / "normal").glob(f"{TASK}--*")) / "attempt-1" / "result.json"
    text = result.read_text(encoding="utf-8")
    assert '"reward": 0.5' in text
    result.write_text(text.replace('"reward": 0.5', '"reward": 1' + "0" * 400, 1), encoding="utf-8")
    return run, str(result.relative_to(run))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_huge_integer_metric_names_its_file_everywhere(
    huge: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    run, rel = huge
    said = "metric 'reward' must be a finite JSON number"
    for argv in (
        ["report", str(run)],
        ["report", str(run), "--markdown"],
        ["check", str(run)],
        ["diff", str(run), str(FIXTURE_RUNS / "k1_micro")],
        ["diff", str(FIXTURE_RUNS / "k1_micro"), str(run)],
        ["tasks", str(run), "--series", "all"],
    ):
        code, _, err = _run(capsys, *argv)
        assert code == 2 and err.count("\n") == 1, (argv, err)
        assert rel in err and said in err and "OverflowError" not in err, (argv, err)
    code, out, _ = _run(capsys, "check", str(run), "--format", "json")
    found = json.loads(out)
    assert code == 2 and found["status"] == "unusable" and rel in found["problem"]
    code, out, _ = _run(capsys, "check", str(run.parent), "--format", "json")
    assert code == 2 and rel in json.dumps(json.loads(out))


def test_an_unforeseen_failure_names_the_run_and_check_json_prints_its_object(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(path: str, *args: object, **kwargs: object) -> object:
        raise TypeError("something unforeseen")

    monkeypatch.delenv("INSPECTOR_DEBUG", raising=False)
    monkeypatch.setattr(door, "open_run", broken)  # behind answer() and read()
    a, b = str(FIXTURE_RUNS / "k1_micro"), str(FIXTURE_RUNS / "k3_pass")
    code, out, err = _run(capsys, "check", a, "--format", "json")
    assert code == 2 and err.count("\n") == 1
    found = json.loads(out)
    assert found["status"] == "unusable"
    assert found["problem"] == f"{a}: TypeError: something unforeseen"
    code, _, err = _run(capsys, "diff", a, b)
    assert code == 2 and err == f"inspector: {a}: TypeError: something unforeseen\n"
    assert ": : " not in err
