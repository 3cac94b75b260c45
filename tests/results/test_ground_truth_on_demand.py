"""A task's ground truth is not held with a read run (issue 53, item 1: it can be any JSON
value, often the largest part of a task, and nothing scores it): the task screen and the
EEE export read it again from the task's ``task.json``, the one place AgentCompass
publishes it (a v3 ``result.json`` with a ``ground_truth`` is refused: "unsupported
fields"; a legacy attempt's is dropped, spec §2), parsed as the reader parsed it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector import loading
from inspector.cli.main import main
from inspector.results.lazy import ground_truth
from tests.conftest import conformance_run
from tests.loading.helpers import copy_run, settle_time_stamps

TRUTHS: list[Any] = [{"answer": ["√2", 1.5, None], "unit": "m"}, "forty-two\nline two", None]


def _planted(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A k=3 run whose first tasks have the ground truths of TRUTHS in task.json."""
    run = copy_run(tmp_path, conformance_run("e2e_k3_avg_category_mean"))
    expected = {}
    for path in sorted(run.glob("details/*/*/task.json")):
        index = json.loads(path.read_text(encoding="utf-8"))
        if len(expected) < len(TRUTHS):
            index["ground_truth"] = TRUTHS[len(expected)]
            path.write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
        expected[index["task_id"]] = index["ground_truth"]
    settle_time_stamps()
    return run, expected


@pytest.mark.parametrize("opening", ["cache off", "first open", "warm reopen"])
def test_a_read_run_holds_no_ground_truth_and_reads_it_again_exactly(
    opening: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, expected = _planted(tmp_path)
    if opening == "cache off":
        monkeypatch.setenv("INSPECTOR_CACHE", "0")
    if opening == "warm reopen":
        assert isinstance(loading.read(run), loading.Loaded)
    result = loading.read(run)
    assert isinstance(result, loading.Loaded)
    assert (result.cache_hits > 0) == (opening == "warm reopen")
    tasks = result.session.run.tasks
    assert {task.task_id for task in tasks} == set(expected)
    planted = [task for task in tasks if expected[task.task_id] in TRUTHS]
    assert len(planted) == len(TRUTHS)
    for task in tasks:
        # Held: nothing of the value (the old reader kept the decoded value here).
        assert task.ground_truth is not expected[task.task_id]
        assert type(task.ground_truth) not in (str, dict, list, type(None))
        # Read again: the value task.json holds, not an attempt's.
        assert ground_truth(result.session.run, task) == expected[task.task_id]


def test_the_eee_export_writes_each_tasks_ground_truth_from_its_task_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, expected = _planted(tmp_path)
    out = tmp_path / "out"
    assert main(["export", str(run), "--format", "eee", "--out", str(out)]) == 0
    samples = next(out.rglob("*_samples.jsonl"))
    lines = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
    assert {line["sample_id"] for line in lines} == set(expected)
    for line in lines:
        truth = expected[line["sample_id"]]
        reference = line["input"]["reference"]
        if truth is None:
            assert reference == []
        elif isinstance(truth, str):
            assert reference == [truth]
        else:
            assert [json.loads(text) for text in reference] == [truth]
