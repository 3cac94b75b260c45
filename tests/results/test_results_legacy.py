"""Task schema v2 attempts, converted as spec §9.2 describes; and unreadable files as root."""

from __future__ import annotations

import builtins
import os
from pathlib import Path

import pytest

from inspector.engine.model import Issue
from inspector.results import layout as results_layout
from inspector.results.reader import read_run

from .helpers import dump, load

LEGACY = "syn_legacy_v2_layout"


def first_v2(run: Path) -> Path:
    return sorted(path for path in (run / "details").iterdir() if path.is_dir())[0]


def edit(path: Path, **changes: object) -> None:
    value = load(path)
    value.update(changes)
    dump(path, value)


def loaded(run_dir: Path, folder: Path):
    run = read_run(run_dir)
    entry = next(entry for entry in run.entries if entry.folder == folder.relative_to(run_dir).as_posix())
    return run, entry


def test_failed_artifact_transfer_becomes_a_fatal_collect_issue(copy_run) -> None:
    run_dir = copy_run(LEGACY)
    folder = first_v2(run_dir)
    manifest = {"complete": False, "entries": [{"source": "/x", "status": "failed"}]}
    edit(folder / "attempt-1" / "result.json", error="copy failed", status="run_error",
         artifacts={"declared_artifacts": manifest})
    run, entry = loaded(run_dir, folder)
    assert run.blocking_problems == []
    assert entry.record is not None
    assert entry.record.attempts[1].issues == (
        Issue("fatal", "collect", "artifact_transfer_failed",
              "Historical artifact transfer failure: copy failed"),
    )


def test_judge_failure_in_meta_benchmark_becomes_a_fatal_evaluate_issue(copy_run) -> None:
    run_dir = copy_run(LEGACY)
    folder = first_v2(run_dir)
    edit(folder / "attempt-1" / "result.json", error="judge crashed", status="eval_error",
         meta={"benchmark": {"scoring": {"error": "timeout", "correct": False}}, "harness": {}})
    run, entry = loaded(run_dir, folder)
    assert run.blocking_problems == []
    assert entry.record is not None
    (issue,) = entry.record.attempts[1].issues
    assert (issue.severity, issue.phase, issue.code) == ("fatal", "evaluate", "judge_failed")
    # AgentCompass's generic words, then the attempt's own: its error and the scoring error
    assert issue.message == "Historical judge failure: judge crashed; timeout"


def test_existing_issues_are_overwritten_when_there_is_no_error(copy_run) -> None:
    run_dir = copy_run(LEGACY)
    folder = first_v2(run_dir)
    warning = {"severity": "warning", "phase": "cleanup", "code": "x", "message": "y"}
    edit(folder / "attempt-1" / "result.json", issues=[warning])
    run, entry = loaded(run_dir, folder)
    assert run.blocking_problems == [] and entry.record is not None
    assert entry.record.attempts[1].issues == ()


@pytest.mark.parametrize(
    "changes",
    [
        {"error": "boom", "status": "run_error"},  # plain text cannot classify
        {"error": "", "status": "run_error"},  # an error status without evidence
        {"extra": {"scoring": {"error": "x", "correct": True}}, "error": "x"},  # converts, then `extra` is rejected
        {"artifacts": None},
    ],
)
def test_unconvertible_v2_attempts_block_the_run(changes: dict, copy_run) -> None:
    run_dir = copy_run(LEGACY)
    folder = first_v2(run_dir)
    edit(folder / "attempt-1" / "result.json", **changes)
    run, entry = loaded(run_dir, folder)
    assert [(p.path, p.blocking) for p in run.problems if p.blocking] == [
        ((folder / "attempt-1" / "result.json").relative_to(run_dir).as_posix(), True)
    ]
    assert entry.record is None and len(run.tasks) == 3


def test_permission_denied_even_as_root(copy_run, monkeypatch: pytest.MonkeyPatch) -> None:
    run_dir = copy_run("e2e_k1_micro")
    target = sorted((run_dir / "details" / "error").iterdir())[0] / "attempt-1" / "result.json"

    def guarded_open(file, *args, **kwargs):
        if str(file) == str(target):
            raise PermissionError(13, "Permission denied", str(file))
        return builtins.open(file, *args, **kwargs)

    real_os_open = os.open

    def guarded_os_open(file, *args, **kwargs):
        if str(file) == str(target):
            raise PermissionError(13, "Permission denied", str(file))
        return real_os_open(file, *args, **kwargs)

    monkeypatch.setattr(results_layout, "open", guarded_open, raising=False)
    monkeypatch.setattr(os, "open", guarded_os_open)
    run = read_run(run_dir)
    assert [(p.path, p.blocking, p.message) for p in run.problems] == [
        (target.relative_to(run_dir).as_posix(), True, "permission denied")
    ]
    assert len(run.tasks) == 9
