"""A reopen after a few changed folders writes only those folders (issue 11).

The task cache's base file is written whole once; later reads that change a few folders
write them (and removed folders, as None) to a delta file beside it, so a large run's
cache is not rewritten for every changed folder. The delta is folded back into the base
when it grows. Whatever the two files hold, the answer is the one read without a cache.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.loading import Loaded, read
from inspector.loading import tasks as task_cache
from inspector.results.reader import read_run
from inspector.session import score_run
from tests.loading.helpers import copy_run, settle_time_stamps, stored_entries


def scored(run: Path) -> tuple[str, int]:
    """The report and how many task folders came from the task cache."""
    loaded = read(run)
    assert isinstance(loaded, Loaded)
    return loaded.session.metrics_json(), loaded.cache_hits


def uncached(run: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    report = score_run(read_run(run)).metrics_json()
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    return report


def flip(result: Path) -> None:
    payload = json.loads(result.read_text())
    name = next(n for n, v in payload["metrics"].items() if isinstance(v, bool))
    payload["metrics"][name] = not payload["metrics"][name]
    result.write_text(json.dumps(payload, indent=2))
    settle_time_stamps()


def results(run: Path) -> list[Path]:
    return sorted(run.glob("details/normal/*/attempt-1/result.json"))


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    run = copy_run(tmp_path)
    scored(run)  # the base file, written whole
    return run


def test_a_changed_folder_goes_to_the_delta_file_only(
    run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = task_cache.store_file(run)
    delta = base.with_name("tasks.delta")
    tasks = len(read_run(run).tasks)
    before = base.read_bytes(), base.stat().st_ino
    assert not delta.exists()
    flip(results(run)[0])
    assert scored(run) == (uncached(run, monkeypatch), tasks - 1)
    assert (base.read_bytes(), base.stat().st_ino) == before  # not written again
    assert delta.exists()
    # The next read takes every folder from the base and the delta together.
    assert scored(run) == (uncached(run, monkeypatch), tasks)
    flip(results(run)[1])
    assert scored(run) == (uncached(run, monkeypatch), tasks - 1)
    assert (base.read_bytes(), base.stat().st_ino) == before
    assert scored(run) == (uncached(run, monkeypatch), tasks)


def test_a_removed_folder_is_forgotten(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = results(run)[0].parent.parent
    saved = run.parent / "saved"
    shutil.move(folder, saved)
    tasks = len(read_run(run).tasks)
    assert scored(run) == (uncached(run, monkeypatch), tasks)
    assert stored_entries(run)[folder.relative_to(run).as_posix()] == task_cache.NIL
    shutil.move(saved, folder)  # back, as it was: its files' keys changed (ctime)
    settle_time_stamps()
    assert scored(run)[0] == uncached(run, monkeypatch)


def test_a_grown_delta_is_folded_into_the_base(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(task_cache, "DELTA_MIN", 1)
    monkeypatch.setattr(task_cache, "DELTA_SHARE", 10**6)
    base = task_cache.store_file(run)
    delta = base.with_name("tasks.delta")
    tasks = len(read_run(run).tasks)
    flip(results(run)[0])
    scored(run)
    assert delta.exists()  # one folder: within DELTA_MIN
    before = base.stat().st_ino
    flip(results(run)[1])
    assert scored(run) == (uncached(run, monkeypatch), tasks - 1)
    assert not delta.exists()
    assert base.stat().st_ino != before  # written whole
    assert scored(run) == (uncached(run, monkeypatch), tasks)


def test_a_stale_delta_over_a_new_base_is_only_misses(
    run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A delta left over a base written later (the base written, then a crash before the
    delta was removed): its entries are checked against the files like any other."""
    base = task_cache.store_file(run)
    delta = base.with_name("tasks.delta")
    flip(results(run)[0])
    scored(run)
    stale = delta.read_bytes()
    flip(results(run)[0])
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    read(run, fresh=True)  # reads everything, writes the base whole
    assert not delta.exists()
    delta.write_bytes(stale)
    assert scored(run)[0] == uncached(run, monkeypatch)
