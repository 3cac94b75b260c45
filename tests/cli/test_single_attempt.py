"""``inspector stats --format json``'s ``single_attempt`` (the k=1 lottery, issue 37)."""

from __future__ import annotations

import json

import pytest

from inspector.cli.main import main
from tests.conftest import FIXTURE_RUNS


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_attempt_one_is_the_genuine_k1_run(capsys: pytest.CaptureFixture[str]) -> None:
    """k3_avg_first_attempt was written by AgentCompass from attempt 1 of k3_avg_hierarchy
    alone (fixtures/README.md): its report is the k=1 value of attempt 1."""
    data = _json(capsys, "stats", str(FIXTURE_RUNS / "k3_avg_hierarchy"), "--format", "json")
    genuine = _json(capsys, "report", str(FIXTURE_RUNS / "k3_avg_first_attempt"), "--json")
    [series] = genuine["series"]
    draws = data["single_attempt"][series["series_id"]]
    assert [d["attempt"] for d in draws] == [1, 2, 3]
    assert draws[0]["value"] == series["value"] and draws[0]["counts"] == series["counts"]
    # every draw counts every task; a task without attempt j is an error at k=1
    assert all(d["counts"]["total"] == 19 for d in draws)
    assert len({d["value"] for d in draws}) > 1  # the lottery: attempts disagree


def test_a_k1_run_has_no_lottery(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, "stats", str(FIXTURE_RUNS / "k1_micro"), "--format", "json")
    assert data["single_attempt"] == {}


def test_references_are_marked(capsys: pytest.CaptureFixture[str], tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A k=1 value that is only a reference (its attempt holds a FATAL task) says so."""
    from tests.app.test_lottery_references import failed_k3_run

    run = failed_k3_run(FIXTURE_RUNS / "k3_pass", tmp_path)
    data = _json(capsys, "stats", str(run), "--format", "json")
    draws = data["single_attempt"]["correct.native@1"]
    assert [d["reference"] for d in draws] == [True, False, False]
    assert draws[0]["counts"]["invalidated"] == 1
    plain = _json(capsys, "stats", str(FIXTURE_RUNS / "k3_pass"), "--format", "json")
    assert all(d["reference"] is False for d in plain["single_attempt"]["correct.native@1"])
