"""A warm ``report`` answers from the run's report record once its index is checked against
the files: the task store is not decoded, and the check makes no list of every file's path
(at a million tasks, five million strings); a file changed since is still found."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from inspector.loading import index as snapshot
from inspector.loading import reports, store
from tests.loading.helpers import (
    copy_run,
    first_result,
    flipped_same_size,
    replace_keeping_mtime,
    run_cli,
    settle_time_stamps,
)


@pytest.mark.parametrize("halves", [False, True], ids=["one-process", "forked-halves"])
def test_a_warm_report_decodes_only_the_report_record(
    halves: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if halves:
        monkeypatch.setattr(snapshot, "FORK_MIN", 2)
    run = copy_run(tmp_path)
    argv = ["report", str(run), "--json"]
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    expected = run_cli(argv, capsys)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    assert run_cli(argv, capsys) == expected  # the first open writes the store
    settle_time_stamps()

    decoded: list[str] = []
    load, paths = store.checked_record, snapshot.rels

    def counted(path: Path) -> Any:
        decoded.append(path.name)
        return load(path)

    def no_paths(*args: Any) -> Any:
        raise AssertionError("the check made the list of every file's path")

    monkeypatch.setattr(store, "checked_record", counted)
    monkeypatch.setattr(snapshot, "rels", no_paths)
    monkeypatch.setattr(reports, "_last", (None, None))  # as a new process: nothing held
    assert run_cli(argv, capsys) == expected
    assert decoded == ["report"]  # the report store only, never the task store

    # The same-size rewrite with its time put back is found (its position: the paths are
    # made now, for the folders to read again).
    monkeypatch.setattr(store, "checked_record", load)
    monkeypatch.setattr(snapshot, "rels", paths)
    result = first_result(run)
    replace_keeping_mtime(result, flipped_same_size(result))
    settle_time_stamps()
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    changed = run_cli(argv, capsys)
    assert changed != expected
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    monkeypatch.setattr(reports, "_last", (None, None))
    loaded = reports._load(run)
    assert loaded is not None
    found = snapshot.check(run, loaded.index)
    assert found is not None
    every = snapshot.rels(found.snapshot, found.listing) or []
    assert [every[at] for at in found.changed] == [result.relative_to(run).as_posix()]
    assert run_cli(argv, capsys) == changed
