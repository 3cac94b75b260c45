"""The gate's regression message says where the delta came from (the decomposition's sentence)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.answers.gate import paired_facts
from inspector.cli.main import main
from inspector.overrides import Overrides
from inspector.views.decomposition import signed
from inspector.views.gate import FAIL, Regression
from tests.conftest import FIXTURE_RUNS
from tests.gate.test_rules import facts, outcome


def test_the_failure_line_carries_the_sentence() -> None:
    said = (
        "−0.25: −0.2 from 4 tasks no longer evaluated, −0.05 from 1 flip down (Shapley over groups)"
    )
    regression = Regression(-0.25, -0.4, -0.21, 40, "correct.avg@3", explained=said)
    got = outcome("max_regression = 0.2", facts(), facts(), paired={"correct.avg@3": regression})
    assert got.status == FAIL
    (line,) = got.failures
    assert line.startswith("team/run: correct.avg@3: max_regression: change -0.25 ")
    assert f"; where from: {said}" in line


def test_the_gate_explains_the_delta_with_the_parts_diff_gives(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``gate B --against A`` names each non-zero part of ``diff A B --format json``'s
    decomposition, largest first, with its number of tasks."""
    a, b = FIXTURE_RUNS / "compare_a", FIXTURE_RUNS / "compare_b"
    assert main(["diff", str(a), str(b), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr()[0])
    series = {s["b"]["series_id"]: s for s in data["series"] if s["a"] and s["b"]}
    found = paired_facts(str(b), str(a), Overrides(), list(series))
    checked = 0
    for series_id, entry in series.items():
        got, d = found[series_id], entry["decomposition"]
        if not isinstance(got, Regression) or d is None:
            continue
        assert got.explained is not None and got.explained.startswith(f"{signed(d['delta'])}: ")
        parts = sorted((p for p in d["parts"] if p["value"]), key=lambda p: -abs(p["value"]))
        at = [got.explained.index(f"{signed(p['value'])} from {p['tasks']} ") for p in parts]
        assert at == sorted(at), got.explained
        checked += 1
    assert checked >= 2


def test_gate_json_detail_says_where_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "p.toml"
    policy.write_text("max_regression = 0.0\n", encoding="utf-8")
    a, b = FIXTURE_RUNS / "compare_a", FIXTURE_RUNS / "compare_b"
    main(["gate", str(b), "--policy", str(policy), "--against", str(a), "--format", "json"])
    (rule,) = json.loads(capsys.readouterr()[0])["runs"][0]["rules"]
    assert "; where from: " in rule["detail"] and "(Shapley over groups)" in rule["detail"]
