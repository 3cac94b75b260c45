"""Reopening a run after a few of its files changed: the report cache's check of every
file is what the task cache goes by (issue 11) — the folders it found unchanged are not
stat'ed a second time, and the changed one is read again, whatever its old key was.

This is the read the command line falls back to when the run's score table cannot
answer (tests/loading/test_score_table.py): the table is kept out of it here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inspector.loading import index as snapshot
from inspector.loading import reopen
from inspector.loading import tasks as task_cache
from tests.loading.helpers import (
    copy_run,
    flipped_same_size,
    replace_keeping_mtime,
    run_cli,
    settle_time_stamps,
)


@pytest.mark.parametrize("position", [0, -1], ids=["first-folder", "last-folder"])
@pytest.mark.parametrize("halves", [False, True], ids=["one-process", "forked-halves"])
def test_only_the_changed_folder_is_checked_again_and_it_is_read(
    position: int,
    halves: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if halves:  # the report cache's check split with a forked child (a large run)
        monkeypatch.setattr(snapshot, "FORK_MIN", 2)
    monkeypatch.setattr(reopen, "answer", lambda *args: None)
    run = copy_run(tmp_path)
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    run_cli(["report", str(run), "--json"], capsys)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    run_cli(["report", str(run), "--json"], capsys)  # fills both caches
    settle_time_stamps()
    result = sorted(run.glob("details/normal/*/attempt-1/result.json"))[position]
    replace_keeping_mtime(result, flipped_same_size(result))
    settle_time_stamps()
    asked: list[Any] = []
    unchanged = task_cache.unchanged

    def counted(root: str, signatures: list[Any]) -> list[bool]:
        asked.extend(signatures)
        return unchanged(root, signatures)

    monkeypatch.setattr(task_cache, "unchanged", counted)
    accepted: list[str] = []
    accept = task_cache.TaskCache.accept

    def taken(self: task_cache.TaskCache, folder: str, *stored: Any) -> Any:
        entry = accept(self, folder, *stored)
        if entry is not None:
            accepted.append(folder)
        return entry

    monkeypatch.setattr(task_cache.TaskCache, "accept", taken)
    code, cached, _ = run_cli(["report", str(run), "--json"], capsys)
    folder = result.parent.parent.relative_to(run).as_posix()
    assert [item[0] for item in asked] == [folder]  # only the changed folder, once more
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    assert run_cli(["report", str(run), "--json"], capsys) == (code, cached, "")
    others = {p.parent.relative_to(run).as_posix() for p in run.glob("details/*/*/task.json")}
    others.discard(folder)
    assert len(others) > 3 and set(accepted) == others  # from the cache, checked once
