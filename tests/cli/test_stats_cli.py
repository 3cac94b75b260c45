"""`inspector stats` on every sample run: the engine's values, intervals, flaky tasks, pass@j."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from inspector.cli.main import main
from tests.conftest import FIXTURE_RUNS, conformance_runs

RUNS = sorted(path for path in FIXTURE_RUNS.iterdir() if path.is_dir())
EXTRA = conformance_runs()  # AgentCompass-written runs (fixtures/conformance, ../shared adds)
FIELDS = {"value", "reference_value", "reference", "estimate", "n", "se", "ci_low", "ci_high",
          "confidence", "df", "method"}  # fmt: skip


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _check_scope(scope: dict, stored: dict, confidence: float) -> None:
    assert set(scope) >= FIELDS
    assert scope["value"] == stored["value"]  # bit for bit (JSON floats round-trip)
    assert scope["reference_value"] == stored["reference_value"]
    assert scope["reference"] == (stored["value"] is None and stored["reference_value"] is not None)
    shown = stored["value"] if stored["value"] is not None else stored["reference_value"]
    assert scope["estimate"] == shown
    assert scope["confidence"] == confidence and scope["method"] and "\n" not in scope["method"]
    if scope["se"] is not None:
        assert scope["se"] >= 0 and math.isfinite(scope["se"])
    if scope["ci_low"] is not None:
        # never zero width; a value in [0, 1] keeps its interval there (issue 38)
        assert scope["ci_low"] <= shown <= scope["ci_high"] and scope["ci_low"] < scope["ci_high"]
        if 0 <= shown <= 1 and "Clopper" in scope["method"]:
            assert scope["ci_low"] >= 0 and scope["ci_high"] <= 1
    else:
        assert scope["ci_high"] is None and scope["method"].startswith("no interval")


@pytest.mark.parametrize("run", RUNS + EXTRA, ids=[r.name for r in RUNS + EXTRA])
def test_stats_json_on_every_run(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report, err = _run(capsys, "report", str(run), "--json")
    if code != 0:  # a run AgentCompass refuses: stats refuses it the same way
        assert _run(capsys, "stats", str(run))[0] == 2
        return
    stored = {s["series_id"]: s for s in json.loads(report)["series"]}
    code, out, err = _run(capsys, "stats", str(run), "--format", "json", "--confidence", "0.9")
    assert code == 0, err
    data = json.loads(out)
    assert [s["series_id"] for s in data["series"]] == list(stored)
    for s in data["series"]:
        ref = stored[s["series_id"]]
        _check_scope(s, ref, 0.9)
        assert set(s["categories"]) == set(ref["categories"])
        assert set(s["hierarchy"]) == set(ref["hierarchy"])
        for key, part in s["categories"].items():
            _check_scope(part, ref["categories"][key], 0.9)
        for key, part in s["hierarchy"].items():
            _check_scope(part, ref["hierarchy"][key], 0.9)
    assert isinstance(data["flaky"], list)
    assert (data["pass_at"] is None) == (data["pass_note"] is not None)
    for form in ("table", "markdown"):
        assert _run(capsys, "stats", str(run), "--format", form)[0] == 0


def test_k3_avg_run_has_curves_and_flaky_tasks(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(capsys, "stats", str(FIXTURE_RUNS / "k3_avg_hierarchy"), "--format", "json")
    data = json.loads(out)
    curve = data["pass_at"]["correct"]
    assert [p["j"] for p in curve["points"]] == [1, 2, 3]
    estimates = [p["estimate"] for p in curve["points"]]
    assert estimates == sorted(estimates)  # pass@j grows with j
    hats = [p["estimate"] for p in data["pass_hat"]["correct"]["points"]]
    assert hats == sorted(hats, reverse=True) and hats[0] == estimates[0]
    assert curve["agentcompass"].keys() == {"correct.avg@3", "correct.pass@3"}
    assert data["flaky"] and all(len(f["attempts"]) == 3 for f in data["flaky"])
    assert data["series"][0]["se"] is not None


def test_pass_run_has_no_curves(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(capsys, "stats", str(FIXTURE_RUNS / "k3_pass"), "--format", "json")
    data = json.loads(out)
    assert data["pass_at"] is None and data["pass_hat"] is None and "early" in data["pass_note"]


def test_one_series_and_the_reference_mark(capsys: pytest.CaptureFixture[str]) -> None:
    run = str(FIXTURE_RUNS / "k1_evaluation_failed")
    code, out, _ = _run(capsys, "stats", run, "--series", "correct.native@1")
    assert code == 0
    assert "(reference)" in out.splitlines()[3]  # the series row
    code, out, err = _run(capsys, "stats", run, "--series", "nope")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "nope" in err
    code, _, err = _run(capsys, "stats", run, "--confidence", "1.5")
    assert code == 2 and "confidence" in err
