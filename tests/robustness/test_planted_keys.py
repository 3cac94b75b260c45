"""A key planted at the top of a stored metrics.json is a difference in content, named.

A metrics.json with ``"headline": 0.99`` added is not AgentCompass's: ``check`` must name the
key and its value, never say "same content, different bytes" (a reader would take the
difference for spacing and publish the file a dashboard reads the fake number from).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.views.differences import SAME_CONTENT, compare_reports
from tests.conftest import FIXTURE_RUNS


def test_a_planted_top_level_key_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    stored = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    stored["headline"] = 0.99
    (run / "metrics.json").write_text(json.dumps(stored, indent=2) + "\n", encoding="utf-8")
    assert main(["check", str(run)]) == 1
    out = capsys.readouterr().out
    assert "report headline: stored 0.99, recomputed 'absent'" in out
    assert SAME_CONTENT not in out


def test_every_top_level_key_is_compared() -> None:
    recomputed = {"k": 1, "series": []}
    assert [d.where for d in compare_reports({**recomputed, "score": 1.0}, recomputed)] == [
        "report score"
    ]
    assert [d.where for d in compare_reports({"k": 1}, {**recomputed, "new": {"a": 1}})] == [
        "report new"
    ]
