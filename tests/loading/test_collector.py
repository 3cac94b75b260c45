"""The cyclic garbage collector is kept off a run while it is read and scored, by the
command line as by the app: its full collections otherwise walk the growing
heap again and again (the task cache of a 50,000-task run took three times as long to
load with the collector on)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from inspector.loading import read
from inspector.loading import reading as pending_module
from tests.loading.helpers import copy_run


@pytest.mark.parametrize("cached", [False, True], ids=["first-read", "from-the-cache"])
def test_no_collection_while_a_run_is_read_on_the_command_line(
    cached: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    run = copy_run(tmp_path)
    if cached:
        read(run)  # the task store is what the next read loads
    reading = [False]
    during: list[int] = []

    def watched(function):  # type: ignore[no-untyped-def]
        def call(*args, **kwargs):  # type: ignore[no-untyped-def]
            reading[0] = True
            try:
                return function(*args, **kwargs)
            finally:
                reading[0] = False

        return call

    def watch(phase: str, info: dict) -> None:  # type: ignore[type-arg]
        if phase == "start" and reading[0]:
            during.append(info["generation"])

    # Loading the task cache and the run-level files, then the folders and the scoring.
    monkeypatch.setattr(pending_module, "begin_read", watched(pending_module.begin_read))
    finish = watched(pending_module.PendingRead.finish)
    monkeypatch.setattr(pending_module.PendingRead, "finish", finish)
    gc.callbacks.append(watch)
    try:
        threshold = gc.get_threshold()
        gc.set_threshold(1)  # any allocation may start a collection while it is allowed
        try:
            loaded = read(run)
        finally:
            gc.set_threshold(*threshold)
    finally:
        gc.callbacks.remove(watch)
    assert loaded.session.recomputation is not None  # type: ignore[union-attr]
    assert during == []
