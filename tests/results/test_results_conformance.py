"""Every run AgentCompass 1.0.1 wrote loads cleanly, with the task set its metrics.json counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.engine.model import ON_DISK
from inspector.results.layout import task_directory_name
from inspector.results.lazy import ground_truth
from inspector.results.reader import read_run

from .helpers import CONFORMANCE, RUN_NAMES, conformance_run, load


@pytest.mark.parametrize("name", RUN_NAMES)
def test_loads_without_blocking_problems(name: str) -> None:
    run = read_run(conformance_run(name))
    assert run.blocking_problems == []
    assert run.run_info is not None and run.stored_metrics is not None


@pytest.mark.parametrize("name", RUN_NAMES)
def test_task_count_equals_stored_series_totals(name: str) -> None:
    run = read_run(conformance_run(name))
    stored = json.loads((conformance_run(name) / "metrics.json").read_text(encoding="utf-8"))
    totals = {series["counts"]["total"] for series in stored["series"]}
    assert totals == {len(run.tasks)}
    assert len({task.task_id for task in run.tasks}) == len(run.tasks)


@pytest.mark.parametrize("name", RUN_NAMES)
def test_stored_files_kept_verbatim(name: str) -> None:
    run = read_run(conformance_run(name))
    assert run.stored_metrics_text == (conformance_run(name) / "metrics.json").read_bytes().decode()
    assert run.stored_summary == (conformance_run(name) / "summary.md").read_bytes().decode()
    assert run.params == load(conformance_run(name) / "params.json")
    assert run.path == conformance_run(name)


@pytest.mark.parametrize("name", RUN_NAMES)
def test_records_match_an_independent_reading(name: str) -> None:
    """Re-read every task with the standard json module and compare field by field."""
    root = conformance_run(name)
    details = root / "details"
    folders = [
        folder
        for state in ("normal", "error", "fatal")
        for folder in sorted((details / state).glob("*/"))
    ] + sorted(p for p in details.glob("*/") if p.name not in ("normal", "error", "fatal", "running"))
    run = read_run(root)
    assert [task.source for task in run.tasks] == [
        (folder / "task.json").relative_to(root).as_posix() for folder in folders
    ]
    for task, folder in zip(run.tasks, folders, strict=True):
        index = load(folder / "task.json")
        assert folder.name == task_directory_name(index["task_id"])
        assert task.task_id == index["task_id"]
        assert task.category == (index["category"] or None)
        assert task.ground_truth is ON_DISK  # not held: read again where shown
        assert ground_truth(run, task) == index["ground_truth"]
        assert (task.plan_k, task.plan_strategy) == (index["attempt_plan"]["k"], index["attempt_plan"]["strategy"])
        expected_attempts, expected_retries = {}, {}
        for number, token in index["attempts"].items():
            result = load(folder / token / "result.json")
            if result.pop("retry_count"):
                expected_retries[int(number)] = load(folder / token / "result.json")["retry_count"]
            if result:
                expected_attempts[int(number)] = result
        assert dict(task.retry_counts) == expected_retries
        assert sorted(task.attempts) == sorted(expected_attempts)
        for number, attempt in task.attempts.items():
            raw = expected_attempts[number]
            assert attempt.status == raw["status"]
            assert dict(attempt.metrics) == raw["metrics"]
            assert all(type(attempt.metrics[key]) is type(raw["metrics"][key]) for key in raw["metrics"])
            if index["schema_version"] == "agentcompass.task.v3":
                assert [issue.__class__.__name__ for issue in attempt.issues] == ["Issue"] * len(raw["issues"])
                assert [(i.severity, i.phase, i.code, i.message) for i in attempt.issues] == [
                    (i["severity"], i["phase"], i["code"], i["message"]) for i in raw["issues"]
                ]


def test_every_entry_is_listed_with_its_state() -> None:
    run = read_run(CONFORMANCE / "e2e_k1_fatal_evaluation_failed")
    states = sorted(entry.state for entry in run.entries)
    assert states == ["error"] * 3 + ["fatal"] + ["normal"] * 7
    assert all(entry.published and entry.record is not None for entry in run.entries)
    fatal = next(entry for entry in run.entries if entry.state == "fatal")
    assert fatal.attempt_dirs == {1: f"{fatal.folder}/attempt-1"}
    assert fatal.record is not None and fatal.record.attempts[1].has_fatal


def test_legacy_v2_run_loads() -> None:
    run = read_run(CONFORMANCE / "syn_legacy_v2_layout")
    assert run.blocking_problems == []
    assert [entry.state for entry in run.entries] == ["v2"] * 4
    assert [task.task_id for task in run.tasks] == ["legacy-1", "legacy-2", "legacy-3", "legacy-4"]
    assert all(entry.schema_version == "agentcompass.task.v2" for entry in run.entries)
    # The empty `error` of each v2 attempt was popped and the issues set to [] (spec §9.2 step 4).
    assert all(attempt.issues == () for task in run.tasks for attempt in task.attempts.values())
    assert run.tasks[2].retry_counts == {1: 1}
    assert [problem.rule for problem in run.problems] == ["run_info.json of the older v2 layout"]


def test_retry_only_attempt_counts_retries_but_is_not_an_attempt() -> None:
    root = CONFORMANCE / "syn_k3_avg_score_category_mean"
    run = read_run(root)
    retry_only = [
        (folder.name, token)
        for folder in root.glob("details/*/*/")
        for number, token in load(folder / "task.json")["attempts"].items()
        if set(load(folder / token / "result.json")) == {"retry_count"}
    ]
    assert retry_only, "this conformance case has a retry-only attempt folder"
    for folder_name, token in retry_only:
        task = next(task for task in run.tasks if task.source.split("/")[2] == folder_name)
        number = int(token.removeprefix("attempt-"))
        assert number not in task.attempts
        assert task.retry_counts.get(number, 0) == load(
            next(root.glob(f"details/*/{folder_name}")) / token / "result.json"
        )["retry_count"]


def test_exotic_task_id_and_empty_category() -> None:
    run = read_run(CONFORMANCE / "syn_k1_binary_aux_micro")
    task = next(task for task in run.tasks if task.task_id == "repo/issue#12 (ünïcode)")
    assert task.category is None
    assert Path(task.source).parent.name == task_directory_name("repo/issue#12 (ünïcode)")
