"""Two quiet cases made visible (issue 11): a run without ``details/`` and a task folder
the user cannot enter."""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import pytest

from inspector.results.reader import read_run
from inspector.results.run_files import RunFiles
from inspector.results.tasks import missing_index_problem
from tests.conftest import FIXTURE_RUNS
from tests.loading.helpers import copy_run, run_cli


def test_a_run_without_details_gets_the_empty_report_and_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(tmp_path, FIXTURE_RUNS / "k1_micro")
    shutil.rmtree(run / "details")
    (run / "metrics.json").unlink()
    code, out, err = run_cli(["report", str(run)], capsys)
    assert code == 0
    report = json.loads(out)
    assert all(series["counts"]["total"] == 0 for series in report["series"])
    assert f"inspector: warning: {run / 'details'}: missing: the run has no details/ folder" in err


def test_details_present_but_empty_is_no_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(tmp_path, FIXTURE_RUNS / "k1_micro")
    shutil.rmtree(run / "details")
    (run / "details").mkdir()
    assert not [p for p in read_run(run).problems if p.path == "details"]


def test_a_task_folder_that_cannot_be_entered_is_permission_denied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Root enters every folder, so the refusal is injected where the reader looks
    (``os.lstat`` of the task's ``task.json``, as ``chmod 000`` makes it fail)."""
    run = copy_run(tmp_path, FIXTURE_RUNS / "k1_micro")
    folder = sorted((run / "details" / "normal").iterdir())[0]
    rel = folder.relative_to(run).as_posix()
    real_lstat = os.lstat

    def refusing(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if os.fspath(path).startswith(str(folder) + "/"):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", refusing)
    problem = missing_index_problem(RunFiles(run), rel, f"{rel}/task.json")
    assert problem.path == rel
    assert problem.message == "permission denied: the task folder cannot be entered"
    assert problem.blocking
    monkeypatch.setattr(os, "lstat", real_lstat)
    problem = missing_index_problem(RunFiles(run), rel, f"{rel}/task.json")
    assert "no task.json file" in problem.message and not problem.blocking
