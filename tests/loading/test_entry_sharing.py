"""What many tasks hold alike is held once (issue 11: the main process's peak memory).

A large run's tasks repeat a handful of values: the attempt statuses, the strategy, the
categories, the coverages of their reductions, the series ids. Each is kept as one object
whichever way the tasks were read (in this process, by reader processes, from the task
cache), and an entry's attempt folders are made from its folder when asked for instead of
being kept as strings. The values stay what they were: equal entries, equal reports
(``test_cache_and_workers`` compares them on every fixture).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.engine.reduction import reduce_tasks
from inspector.engine.strategies import resolve_attempt_strategy
from inspector.loading import Loaded, read
from inspector.loading import readers as parallel
from inspector.results.layout import AttemptDirs
from inspector.results.reader import Run, read_run
from inspector.session import score_run
from tests.conftest import conformance_run

RUN = "e2e_k3_avg_category_mean"


def _through_the_door(path: Path) -> Run:
    loaded = read(path)
    assert isinstance(loaded, Loaded)
    return loaded.session.run


def _read(way: str, monkeypatch: pytest.MonkeyPatch) -> Run:
    path = conformance_run(RUN)
    if way == "plain":
        return read_run(path)
    if way == "workers":
        monkeypatch.setenv("INSPECTOR_CACHE", "0")
        monkeypatch.setattr(parallel, "PARALLEL_MIN", 2)
        monkeypatch.setattr(parallel, "CHUNK", 2)
        monkeypatch.setenv("INSPECTOR_WORKERS", "2")
        return _through_the_door(path)
    _through_the_door(path)  # fills the task cache
    run = _through_the_door(path)
    assert run.cache_hits == len(run.entries)
    return run


WAYS = ["plain", "workers", "cache"]


@pytest.mark.parametrize("way", WAYS)
def test_attempt_folders_are_made_from_the_task_folder(
    way: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _read(way, monkeypatch)
    published = [entry for entry in run.entries if entry.published]
    assert len(published) >= 4
    for entry in published:
        assert type(entry.attempt_dirs) is AttemptDirs
        assert entry.attempt_dirs.folder is entry.folder
        expected = {n: f"{entry.folder}/attempt-{n}" for n in entry.record.attempts}
        assert dict(entry.attempt_dirs) == expected
        assert (Path(conformance_run(RUN)) / entry.attempt_dirs[1]).is_dir()


@pytest.mark.parametrize("way", WAYS)
def test_repeated_values_are_one_object(way: str, monkeypatch: pytest.MonkeyPatch) -> None:
    run = _read(way, monkeypatch)
    tasks = run.tasks
    assert len(tasks) >= 4
    statuses: dict[str, set[int]] = {}
    for task in tasks:
        for attempt in task.attempts.values():
            statuses.setdefault(attempt.status, set()).add(id(attempt.status))
    assert statuses and all(len(ids) == 1 for ids in statuses.values()), statuses
    strategies = {(task.plan_strategy, id(task.plan_strategy)) for task in tasks}
    assert len(strategies) == len({task.plan_strategy for task in tasks}) == 1
    categories = {c for task in tasks if isinstance(c := task.category, str)}
    assert len(categories) >= 2
    assert len({id(task.category) for task in tasks if task.category in categories}) == len(
        categories
    )


def test_equal_coverages_and_series_ids_are_one_object() -> None:
    run = read_run(conformance_run(RUN))
    session = score_run(run)
    assert session.recomputation is not None
    plan = session.recomputation.plan
    series = resolve_attempt_strategy(plan.strategy).resolve(plan.contract, plan.k).series
    by_series = reduce_tasks(run.tasks, series, plan.contract, plan.k)
    for reductions in by_series.values():
        assert len({id(r.series_id) for r in reductions}) == 1
        coverages = {r.coverage: set() for r in reductions}
        for r in reductions:
            coverages[r.coverage].add(id(r.coverage))
        assert len(coverages) < len(reductions)  # some repeat: the case is tested
        assert all(len(ids) == 1 for ids in coverages.values())
