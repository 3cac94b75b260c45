"""find_runs: the runs under a results root, newest first, without reading task files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.results.discover import find_runs
from inspector.results.problems import RunReadError

from .helpers import CONFORMANCE, dump, load, task_dirs


def set_run_info(run: Path, **changes: object) -> None:
    info = load(run / "run_info.json")
    info.update(changes)
    dump(run / "run_info.json", info)


def test_all_conformance_runs_are_found_with_their_stored_headline() -> None:
    runs = find_runs(CONFORMANCE)
    assert sorted(run.relative for run in runs) == sorted(p.name for p in CONFORMANCE.iterdir() if p.is_dir())
    for run in runs:
        stored = json.loads((CONFORMANCE / run.relative / "metrics.json").read_text(encoding="utf-8"))
        headline = next(series for series in stored["series"] if series["role"] == "headline")
        assert run.headline_series_id == headline["series_id"]
        expected = headline["value"] if headline["value"] is not None else headline["reference_value"]
        assert run.headline_value == expected
        assert run.headline_is_reference == (headline["value"] is None)
        assert run.k == stored["k"] and run.strategy == stored["strategy"]
        assert run.problems == ()


def test_counts_namespace_and_identity(copy_run) -> None:
    run_dir = copy_run("e2e_k1_fatal_evaluation_failed", where="results/team/a/stub-model_bench_h")
    (summary,) = find_runs(run_dir.parents[3])
    assert summary.relative == "team/a/stub-model_bench_h/e2e_k1_fatal_evaluation_failed"
    assert summary.namespace == "stub-model_bench_h"
    info = load(run_dir / "run_info.json")
    assert summary.run_id == info["run_id"]
    assert (summary.model, summary.benchmark, summary.harness) == (
        info["request"]["model"]["id"],
        info["request"]["benchmark"]["id"],
        info["request"]["harness"]["id"],
    )
    assert summary.status == info["status"] == "failed"
    assert summary.started_at == info["started_at"]
    assert summary.task_counts == {
        state: len(task_dirs(run_dir, state)) for state in ("normal", "error", "fatal")
    } | {"running": 0}
    assert summary.published_count == 11


def test_newest_first_then_run_id(copy_run) -> None:
    old = copy_run("e2e_k1_micro", where="root/ns")
    new = copy_run("e2e_k3_avg_category_mean", where="root/ns")
    undated_b = copy_run("syn_k1_hierarchy", where="root/ns")
    undated_a = copy_run("syn_k3_pass_early_stop", where="root/other")
    set_run_info(old, started_at="2025-01-01T10:00:00+08:00")
    set_run_info(new, started_at="2025-01-01T03:00:00Z")  # one hour later than `old`
    set_run_info(undated_b, started_at="", run_id="b")
    info = load(undated_a / "run_info.json")
    info.pop("started_at")
    info["run_id"] = "a"
    dump(undated_a / "run_info.json", info)
    order = [summary.path for summary in find_runs(old.parents[1])]
    assert order == [new, old, undated_b, undated_a]


def test_never_descends_into_a_run_and_skips_hidden_folders(copy_run) -> None:
    run_dir = copy_run("e2e_k1_micro", where="root/ns")
    nested = run_dir / "details" / "normal" / "inner"
    (nested / "details").mkdir(parents=True)
    hidden = run_dir.parents[1] / ".trash" / "x"
    (hidden / "details").mkdir(parents=True)
    assert [summary.path for summary in find_runs(run_dir.parents[1])] == [run_dir]


def test_details_folder_alone_makes_a_run(tmp_path: Path) -> None:
    (tmp_path / "ns" / "r1" / "details" / "running" / "t--0").mkdir(parents=True)
    (summary,) = find_runs(tmp_path)
    assert (summary.run_id, summary.status, summary.task_counts["running"]) == ("r1", None, 1)
    assert summary.headline_value is None


def test_task_files_are_never_read(copy_run) -> None:
    run_dir = copy_run("e2e_k1_micro", where="root/ns")
    for task_json in run_dir.glob("details/*/*/task.json"):
        task_json.write_bytes(b"\xff not json")
    for result in run_dir.glob("details/*/*/attempt-*/result.json"):
        result.chmod(0)
    (summary,) = find_runs(run_dir.parent)
    assert summary.problems == ()
    assert summary.published_count == 10


def test_unreadable_run_files_are_problems_not_errors(copy_run) -> None:
    run_dir = copy_run("e2e_k1_micro", where="root/ns")
    (run_dir / "metrics.json").write_text("{", encoding="utf-8")
    (summary,) = find_runs(run_dir.parent)
    assert [problem.path for problem in summary.problems] == ["metrics.json"]
    assert summary.headline_value is None and summary.run_id == "run1"


def test_a_run_given_directly_is_its_own_result(copy_run) -> None:
    run_dir = copy_run("e2e_k1_micro")
    (summary,) = find_runs(run_dir)
    assert summary.relative == "." and summary.path == run_dir


def test_missing_root_raises(tmp_path: Path) -> None:
    with pytest.raises(RunReadError):
        find_runs(tmp_path / "absent")
