"""Per-task reductions are kept for the next read, and only ever make it faster (issue 11).

After a read, each task's reductions are stored with the signature of its files; the next
read reduces again only the tasks whose files changed. The scores are the same as reading
everything with no cache at all, and a damaged reductions file is a miss.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.loading import tasks as task_cache
from inspector.loading.reading import begin_read, finish_and_score
from inspector.results.reader import read_run
from inspector.session import score_run
from tests.loading.helpers import (
    copy_run,
    first_result,
    settle_time_stamps,
    stored_data,
    write_data,
)


def scored(run: Path) -> tuple[str, Any, int]:
    """The report, every reduction, and how many tasks took stored reductions."""
    pending = begin_read(run)
    session = finish_and_score(pending)
    assert session.recomputation is not None
    kept = pending.reduction_cache
    hits = len(kept.reused) if kept is not None else 0
    return session.metrics_json(), session.recomputation.reductions, hits


def uncached(run: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Any]:
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    session = score_run(read_run(run))
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    assert session.recomputation is not None
    return session.metrics_json(), session.recomputation.reductions


def test_unchanged_tasks_take_their_reductions_and_changed_ones_are_reduced_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    run = copy_run(tmp_path)
    tasks = len(read_run(run).tasks)
    _, _, hits = scored(run)
    assert hits == 0  # nothing stored yet
    stored = stored_data(task_cache.store_file(run))[1]
    assert all(entry[3] is not None for entry in stored.values())
    report, reductions, hits = scored(run)
    assert hits == tasks
    assert (report, reductions) == uncached(run, monkeypatch)

    # Flip one answer: that task is reduced again, every other one is taken as stored.
    result = first_result(run)
    payload = json.loads(result.read_text())
    payload["metrics"]["correct"] = not payload["metrics"]["correct"]
    result.write_text(json.dumps(payload, indent=2) + "\n")
    settle_time_stamps()
    expected = uncached(run, monkeypatch)
    report, reductions, hits = scored(run)
    assert hits == tasks - 1
    assert (report, reductions) == expected


def _first(data: Any, change, key: str | None = None) -> Any:  # type: ignore[no-untyped-def]
    """The task cache with its first task's stored reductions changed (and their plan
    key, when ``key`` is given)."""
    root, entries = data
    folder = sorted(entries)[0]
    sig, first, entry, (stored_key, encoded) = entries[folder]
    changed = [key or stored_key, change(encoded)]
    return [root, {**entries, folder: [sig, first, entry, changed]}]


DAMAGE = {
    "not a pair": lambda data: [
        data[0],
        {folder: [*entry[:3], [1, 2, 3]] for folder, entry in data[1].items()},
    ],
    # Stored under another plan's key: not used, even though it looks right.
    "another plan": lambda data: _first(
        data, lambda e: [[None, "unavailable", *r[2:]] for r in e], key="0" * 64
    ),
    "a state that is not one": lambda data: _first(
        data, lambda e: [[r[0], "great", *r[2:]] for r in e]
    ),
    "a value of the wrong type": lambda data: _first(data, lambda e: [["0.5", *r[1:]] for r in e]),
    "a short record": lambda data: _first(data, lambda e: [r[:3] for r in e]),
    "a reason of numbers": lambda data: _first(
        data, lambda e: [[*r[:7], [[1, 2, 3, 4]]] for r in e]
    ),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_reductions_file_is_a_miss(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    run = copy_run(tmp_path)
    scored(run)
    path = task_cache.store_file(run)
    write_data(path, DAMAGE[damage](stored_data(path)))
    report, reductions, _ = scored(run)
    assert (report, reductions) == uncached(run, monkeypatch)
