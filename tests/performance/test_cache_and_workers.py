"""The cache and the worker processes change how fast a run is read, never what is read.

Reports are compared byte for byte with and without the cache and with one or several
reader processes; a changed, added, moved or removed file invalidates exactly the folders
it belongs to.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from inspector.loading import Loaded, read, start_app, stop_app
from inspector.loading import readers as parallel
from inspector.loading import tasks as task_cache
from inspector.loading.records import entry_record
from inspector.results.reader import Run, read_run
from inspector.session import Session, score_run
from tests.conftest import FIXTURE_RUNS, conformance_run, conformance_runs
from tests.loading.helpers import settle_time_stamps, stored_entries

RUNS = [
    p for p in sorted(FIXTURE_RUNS.iterdir()) if (p / "run_info.json").exists()
] + conformance_runs()


def loaded(path: Path, shared: bool = False) -> Session:
    """The run as the one door reads and scores it: task cache, reader processes (forked
    by a single-threaded caller, or, ``shared``, the app's shared ones)."""
    if shared:
        start_app()
    try:
        got = read(path)
    finally:
        if shared:
            stop_app()
    assert isinstance(got, Loaded)
    return got.session


def entries_view(read: Run | Session) -> list[tuple]:  # type: ignore[type-arg]
    run = read.run if isinstance(read, Session) else read
    return [entry_record(e) for e in run.entries] + [
        tuple((p.path, p.message, p.blocking) for p in run.problems)
    ]


def report(read: Run | Session) -> str:
    session = read if isinstance(read, Session) else score_run(read)
    return session.metrics_json() if session.recomputation else f"refused: {session.refusal}"


@pytest.fixture
def small_parallel_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make even a small run go through the worker processes."""
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 2)
    monkeypatch.setattr(parallel, "CHUNK", 2)
    monkeypatch.setattr(task_cache, "CHECK_PARALLEL_MIN", 2)
    monkeypatch.setattr(task_cache, "CHECK_CHUNK", 2)
    monkeypatch.setenv("INSPECTOR_WORKERS", "2")


@pytest.mark.parametrize("threaded", [False, True], ids=["cli-fork", "app-forkserver"])
@pytest.mark.parametrize("run", RUNS, ids=[p.name for p in RUNS])
def test_same_result_with_cache_and_workers(
    run: Path, threaded: bool, monkeypatch: pytest.MonkeyPatch, small_parallel_threshold: None
) -> None:
    # A single-threaded caller forks readers; a threaded one (the app) uses its shared
    # pool from a fork server. Both must read what the plain reader (read_run) reads.
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    baseline_entries, baseline_report = entries_view(read_run(run)), report(read_run(run))
    monkeypatch.setenv("INSPECTOR_WORKERS", "1")
    monkeypatch.setattr(parallel, "PARALLEL_MIN", 10**9)
    assert entries_view(loaded(run, threaded)) == baseline_entries

    monkeypatch.setattr(parallel, "PARALLEL_MIN", 2)
    monkeypatch.setenv("INSPECTOR_WORKERS", "2")
    pooled: list[int] = []
    original = parallel.EntryLoad._start_pool

    def spy(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        original(self, *args, **kwargs)
        if self.futures:
            pooled.append(len(self.futures))

    monkeypatch.setattr(parallel.EntryLoad, "_start_pool", spy)
    assert entries_view(loaded(run, threaded)) == baseline_entries
    assert report(loaded(run, threaded)) == baseline_report
    if sum(1 for p in run.glob("details/*/*/task.json")) >= 4:
        assert pooled, "the worker processes were not used"

    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    assert entries_view(loaded(run, threaded)) == baseline_entries  # fills the cache
    stored = stored_entries(run)
    assert stored, "the cache was not written"
    served = loaded(run, threaded)
    assert served.run.cache_hits == len(stored)
    assert entries_view(served) == baseline_entries  # served from the cache
    assert report(loaded(run, threaded)) == baseline_report


def test_cache_lives_outside_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    run = RUNS[0]
    loaded(run)
    cache_file = task_cache.store_file(run)
    assert cache_file.exists()
    assert not cache_file.resolve().is_relative_to(run.resolve())
    assert str(cache_file).startswith(os.environ["XDG_CACHE_HOME"])


def _copy(run: Path, tmp_path: Path) -> Path:
    target = tmp_path / run.name
    shutil.copytree(run, target, symlinks=True)
    settle_time_stamps()
    return target


@pytest.mark.parametrize("threaded", [False, True], ids=["here", "checked-by-workers"])
def test_cache_is_invalidated_by_changes(
    threaded: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live run: rewritten results, a new published task and a removed one are seen
    (also when the app's reader processes check the cached folders)."""
    if threaded:
        monkeypatch.setattr(parallel, "PARALLEL_MIN", 2)
        monkeypatch.setattr(parallel, "CHUNK", 2)
        monkeypatch.setattr(task_cache, "CHECK_PARALLEL_MIN", 2)
        monkeypatch.setattr(task_cache, "CHECK_CHUNK", 2)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    source = conformance_run("e2e_k1_micro")
    run = _copy(source, tmp_path)
    first = loaded(run, threaded)
    assert first.recomputation is not None
    base_total = first.recomputation.report.series[0].counts.total

    # Rewrite one result.json: flip a correct answer (size may stay the same; mtime moves).
    result = next(run.glob("details/normal/*/attempt-1/result.json"))
    payload = json.loads(result.read_text())
    payload["metrics"]["correct"] = not payload["metrics"]["correct"]
    result.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    os.utime(result, ns=(result.stat().st_atime_ns, result.stat().st_mtime_ns + 10**9))
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    expected = report(read_run(run))
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    assert report(loaded(run, threaded)) == expected

    # Remove a task folder: the count drops by one, with and without the cache.
    victim = next(run.glob("details/error/*"))
    shutil.rmtree(victim)
    session = loaded(run, threaded)
    assert session.recomputation is not None
    assert session.recomputation.report.series[0].counts.total == base_total - 1
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    assert report(read_run(run)) == session.metrics_json()


def test_broken_cache_file_is_a_miss(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    run = RUNS[0]
    expected = report(loaded(run))
    path = task_cache.store_file(run)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a store file")
    assert report(loaded(run)) == expected


def test_read_started_early_and_finished_in_a_thread(
    monkeypatch: pytest.MonkeyPatch, small_parallel_threshold: None
) -> None:
    """The app starts the reader processes before its threads and collects in a worker
    thread later (without reading there itself): the same entries."""
    import threading

    from inspector.loading import prepare_app

    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    run = max(RUNS, key=lambda p: sum(1 for _ in p.glob("details/*/*/task.json")))
    expected = entries_view(read_run(run))
    early = prepare_app([run])
    assert early is not None and early.pending is not None, "the read was not started early"
    assert early.pending.load.futures, "no worker processes were started"
    box: list = []
    thread = threading.Thread(target=lambda: box.append(read(run, early=early)))
    thread.start()
    thread.join()
    finished = box[0]
    assert isinstance(finished, Loaded)
    assert entries_view(finished.session) == expected
    assert not any(early.pending.load.futures), "the early read's chunks were not taken"


@pytest.mark.parametrize("run", RUNS, ids=[p.name for p in RUNS])
def test_reductions_made_while_reading_are_the_same(
    run: Path, monkeypatch: pytest.MonkeyPatch, small_parallel_threshold: None
) -> None:
    """The app reduces tasks as their chunks arrive (ReductionStream): the recomputation
    is the same as scoring after reading, and the stream is really used when it can be."""
    from inspector.engine import recomputation as recomputation_module

    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    expected = score_run(read_run(run))
    used: list[bool] = []
    original = recomputation_module.reduce_tasks

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        used.append(False)
        return original(*args, **kwargs)

    monkeypatch.setattr(recomputation_module, "reduce_tasks", spy)
    session = loaded(run)
    assert session.refusal == expected.refusal
    if expected.recomputation is None:
        assert session.recomputation is None
        return
    assert session.recomputation is not None
    assert session.metrics_json() == expected.metrics_json()
    assert session.recomputation.reductions == expected.recomputation.reductions
    assert session.differences == expected.differences
    if expected.recomputation.plan.sources.get("contract", "").startswith("built-in"):
        assert not used, "the reductions were made again after reading"


def test_the_command_line_reduces_while_reading(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`inspector report` feeds each task to the engine as it is read; the bytes are still
    AgentCompass's."""
    from inspector.cli import main as cli
    from inspector.engine import recomputation as recomputation_module

    run = FIXTURE_RUNS / "k3_avg_hierarchy"
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    calls: list[int] = []
    original = recomputation_module.reduce_tasks

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(recomputation_module, "reduce_tasks", spy)
    assert cli.main(["report", str(run), "--json"]) == 0
    assert capsys.readouterr().out == (run / "metrics.json").read_text(encoding="utf-8")
    assert not calls, "the tasks were reduced again after reading"


def test_cached_folders_checked_half_in_a_forked_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line checks half of the cached folders' files in a forked child: a
    rewrite in either half is seen, and the rest still comes from the cache."""
    monkeypatch.setattr(task_cache, "FORK_CHECK_MIN", 1)
    forked: list[int] = []
    original = task_cache.halves_in_fork

    def spy(*args):  # type: ignore[no-untyped-def]
        both = original(*args)
        forked.append(both is not None)
        return both

    monkeypatch.setattr(task_cache, "halves_in_fork", spy)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    run = _copy(conformance_run("e2e_k1_micro"), tmp_path)
    loaded(run)
    results = sorted(run.glob("details/*/*/attempt-1/result.json"))
    assert len(results) >= 4
    for result in (results[0], results[-1]):  # one in each half of the check
        payload = json.loads(result.read_text())
        payload["metrics"] = {name: not value for name, value in payload["metrics"].items()}
        result.write_text(json.dumps(payload, indent=2) + "\n")
    settle_time_stamps()
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    expected = report(read_run(run))
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    again = loaded(run)
    assert forked and all(forked), "the check was not split with a forked child"
    assert report(again) == expected
    assert again.run.cache_hits == len(again.run.entries) - 2
