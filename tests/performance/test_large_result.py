"""A large result.json is scored without parsing its trajectory, with the same record."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest

from inspector.results import runinfo
from inspector.results.reader import read_run
from inspector.session import score_run
from tests.conftest import FIXTURE_RUNS


def _inflate(run: Path) -> Path:
    """Give one attempt a 3 MB trajectory (written as AgentCompass writes result.json)."""
    result = sorted(run.glob("details/normal/*/attempt-1/result.json"))[0]
    payload = json.loads(result.read_text(encoding="utf-8"))
    steps = [{"step_id": i, "observation": "x" * 3000} for i in range(1000)]
    payload["trajectory"] = {"schema_version": "ACTF_v1.0", "steps": steps}
    result.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert result.stat().st_size > runinfo.MIN_SIZE
    return result


def test_large_result_scores_the_same_without_its_trajectory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    result = _inflate(run)
    parsed: list[int] = []
    real_loads = orjson.loads

    def spy(data: bytes | str) -> object:
        parsed.append(len(data))
        return real_loads(data)

    monkeypatch.setattr(runinfo.orjson, "loads", spy)
    fast = score_run(read_run(run))
    assert parsed, "the large result.json did not take the trajectory-free path"
    assert max(parsed) < result.stat().st_size // 10  # the trajectory bytes were cut out

    monkeypatch.setattr(runinfo, "MIN_SIZE", 10**12)  # parse everything whole
    monkeypatch.setattr("inspector.results.tasks.MIN_SIZE", 10**12)
    whole = score_run(read_run(run))
    assert fast.recomputation is not None and whole.recomputation is not None
    assert fast.metrics_json() == whole.metrics_json()
    assert fast.run.tasks == whole.run.tasks


def test_a_non_object_trajectory_is_still_validated(tmp_path: Path) -> None:
    """Only an object-valued trajectory is skipped; a list still reaches validation."""
    run = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    result = sorted(run.glob("details/normal/*/attempt-1/result.json"))[0]
    payload = json.loads(result.read_text(encoding="utf-8"))
    payload["trajectory"] = ["x" * 2_000_000]
    result.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    loaded = read_run(run)
    assert any(p.path.endswith("result.json") and p.blocking for p in loaded.problems)
