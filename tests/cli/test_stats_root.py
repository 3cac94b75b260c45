"""``inspector stats ROOT --format json``: every run under a root, as ``stats RUN`` gives it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.cli.main import main
from tests.conftest import FIXTURE_RUNS


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_run_under_a_root_with_its_series_and_a_problem_for_a_bad_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "root"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", root / "a" / "k1_micro")
    shutil.copytree(FIXTURE_RUNS / "k3_pass", root / "k3_pass")
    bad = root / "b" / "broken"
    (bad / "details").mkdir(parents=True)
    (bad / "run_info.json").write_text("{", encoding="utf-8")
    code, out, _ = _run(capsys, "stats", str(root), "--format", "json")
    assert code == 2  # one run could not be read
    data = json.loads(out)
    assert [d["run"] for d in data] == ["a/k1_micro", "b/broken", "k3_pass"]
    assert set(data[1]) == {"run", "problem"}
    assert (
        data[1]["problem"].startswith("b/broken/run_info.json") and "\n" not in data[1]["problem"]
    )
    for entry, run in ((data[0], root / "a" / "k1_micro"), (data[2], root / "k3_pass")):
        assert set(entry) == {"run", "series"}
        code, one, _ = _run(capsys, "stats", str(run), "--format", "json")
        assert code == 0
        assert entry["series"] == json.loads(one)["series"]  # the same as stats RUN
        assert entry["series"] and all(s["ci_low"] is not None for s in entry["series"])


def test_a_root_of_good_runs_exits_0_and_prints_each_runs_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(FIXTURE_RUNS / "k1_micro", tmp_path / "one")
    shutil.copytree(FIXTURE_RUNS / "k3_pass", tmp_path / "two")
    code, out, _ = _run(capsys, "stats", str(tmp_path))
    assert code == 0
    assert out.index("one") < out.index("correct.native@1") < out.index("two")
    assert out.count("flaky tasks:") == 2
    code, out, err = _run(capsys, "stats", str(tmp_path / "nothing"), "--format", "json")
    assert code == 2 and str(tmp_path / "nothing") in err
