"""The report cache: an unchanged run is answered from the cache, a changed one never is.

``inspector report`` / ``check`` must print the same bytes (stdout and stderr) and exit
with the same code whether the answer comes from the cache or from reading the run; any
change to a file the report depends on, or to the inspector's code, is a miss.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import msgspec
import pytest

from inspector import loading
from inspector.cli import main as cli
from inspector.cli.common import overrides_from
from inspector.loading import index as snapshot
from inspector.loading import reading, reopen, reports, store
from tests.conftest import FIXTURE_RUNS, conformance_run, conformance_runs

RUNS = [
    p for p in sorted(FIXTURE_RUNS.iterdir()) if (p / "run_info.json").exists()
] + conformance_runs()
COMMANDS = [
    ["report", "--json"],
    ["report", "--markdown"],
    ["check", "--cached"],
    ["report", "--k", "1"],
]
CACHED_NOTE = "--cached: from the cache: "


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


class Counter:
    """Counts how often a run is really read and scored (behind the one door), or its
    changed task folders read again for its score table's answer."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        original, warm = reading.PendingRead.finish, reopen.answer

        def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
            self.calls += 1
            return original(*args, **kwargs)

        def counting_warm(*args, **kwargs):  # type: ignore[no-untyped-def]
            answer = warm(*args, **kwargs)
            self.calls += answer is not None
            return answer

        monkeypatch.setattr(reading.PendingRead, "finish", counting)
        monkeypatch.setattr(reopen, "answer", counting_warm)


def settle_time_stamps() -> None:
    """Wait until files written just now are no longer racy (their time stamps safely
    older than the next read): only then may a read of them be cached."""
    time.sleep(store.FINE_GRANULARITY_NS / 1e9 + 0.01)


def _copy(run: Path, tmp_path: Path) -> Path:
    target = tmp_path / run.name
    shutil.copytree(run, target, symlinks=True)
    settle_time_stamps()
    return target


@pytest.mark.parametrize("run", RUNS, ids=[p.name for p in RUNS])
def test_cached_answers_are_identical(
    run: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    expected = {
        tuple(c): without_cached_note(run_cli([c[0], str(run), *c[1:]], capsys)) for c in COMMANDS
    }
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    counter = Counter(monkeypatch)
    for command in COMMANDS:
        argv = [command[0], str(run), *command[1:]]
        first = run_cli(argv, capsys)  # fills the cache
        assert without_cached_note(first) == expected[tuple(command)]
        before = counter.calls
        second = run_cli(argv, capsys)  # from the cache
        assert without_cached_note(second) == expected[tuple(command)]
        if expected[tuple(command)][0] != 2:  # a refused run is not cached
            assert counter.calls == before, f"{command}: the unchanged run was read again"
            if command[0] == "check":
                assert second[1].startswith(CACHED_NOTE + "the whole answer")


def without_cached_note(result: tuple[int, str, str]) -> tuple[int, str, str]:
    """``check --cached`` says what came from the cache on its first line."""
    code, out, err = result
    lines = out.splitlines(keepends=True)
    if lines and lines[0].startswith(CACHED_NOTE):
        out = "".join(lines[1:])
    return code, out, err


@pytest.mark.parametrize("run", RUNS[:3], ids=[p.name for p in RUNS[:3]])
def test_check_reads_what_it_judges(
    run: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --cached, check never lets the cache stand in for reading the run."""
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    first = run_cli(["check", str(run)], capsys)
    counter = Counter(monkeypatch)
    spy = []
    from inspector.loading import readers as parallel

    original = parallel.EntryLoad.__init__

    def recording(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        original(self, *args, **kwargs)
        spy.append(self.cache.hits if self.cache is not None else 0)

    monkeypatch.setattr(parallel.EntryLoad, "__init__", recording)
    assert run_cli(["check", str(run)], capsys) == first
    assert counter.calls == 1 and spy == [0], "check answered from the cache"
    assert "cache" not in first[1]


def test_warnings_are_repeated_from_the_cache(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = FIXTURE_RUNS / "load_problems"
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    first = run_cli(["report", str(run)], capsys)
    assert "warning" in first[2]
    counter = Counter(monkeypatch)
    assert run_cli(["report", str(run)], capsys) == first
    assert counter.calls == 0


def _source() -> Path:
    return conformance_run("e2e_k1_micro")


def _bump(path: Path) -> None:
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns - 10**9))  # not in the future: racy


def _flip_first_result(run: Path) -> None:
    result = sorted(run.glob("details/normal/*/attempt-1/result.json"))[0]
    payload = json.loads(result.read_text(encoding="utf-8"))
    metric = next(iter(payload["metrics"]))
    payload["metrics"][metric] = not payload["metrics"][metric]
    result.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    _bump(result)


def _remove_a_task(run: Path) -> None:
    shutil.rmtree(sorted(run.glob("details/*/*/task.json"))[-1].parent)


def _touch_metrics(run: Path) -> None:
    path = run / "metrics.json"
    path.write_text(
        path.read_text(encoding="utf-8").replace('"k": 1', '"k": 2', 1), encoding="utf-8"
    )
    _bump(path)


def _add_running_task(run: Path) -> None:
    folder = run / "details" / "running" / ("late--" + "1" * 64)
    folder.mkdir(parents=True)
    (folder / "task.json").write_text("{not json", encoding="utf-8")


def _same_size_rewrite(run: Path) -> None:
    # Same bytes, new modification time: a rewrite AgentCompass could make is never trusted.
    result = sorted(run.glob("details/*/*/attempt-1/result.json"))[0]
    result.write_bytes(result.read_bytes())
    _bump(result)


@pytest.mark.parametrize(
    "change",
    [_flip_first_result, _remove_a_task, _touch_metrics, _add_running_task, _same_size_rewrite],
)
def test_any_change_is_a_miss(
    change, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(_source(), tmp_path)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    commands = (["report", str(run)], ["report", str(run), "--markdown"])
    for command in commands:
        run_cli(command, capsys)
    settle_time_stamps()
    change(run)
    settle_time_stamps()
    counter = Counter(monkeypatch)
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    expected = [run_cli(c, capsys) for c in commands]
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    calls = counter.calls
    got = [run_cli(c, capsys) for c in commands]
    assert got == expected
    # Both formats share one entry: the first reads the changed run, the second reuses it.
    assert counter.calls - calls == 1, "a changed run was answered from the cache"


def test_other_code_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(_source(), tmp_path)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    first = run_cli(["report", str(run)], capsys)
    monkeypatch.setattr(store, "code_signature", lambda: "another version")
    counter = Counter(monkeypatch)
    assert run_cli(["report", str(run)], capsys) == first
    assert counter.calls == 1


def test_plan_files_are_never_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A --hierarchy file lives outside the run: its changes would not be seen."""
    run = _copy(FIXTURE_RUNS / "k3_avg_hierarchy", tmp_path)
    hierarchy = tmp_path / "hierarchy.json"
    hierarchy.write_text(json.dumps({"overall": {}}), encoding="utf-8")
    assert (
        reports.key_for(
            overrides_from(
                cli.build_parser().parse_args(["report", str(run), "--hierarchy", str(hierarchy)])
            ),
            "outputs",
        )
        is None
    )
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    counter = Counter(monkeypatch)
    argv = ["report", str(run), "--hierarchy", str(hierarchy)]
    first = run_cli(argv, capsys)
    assert run_cli(argv, capsys) == first
    assert counter.calls == 2


def _unchanged(run: Path, index: object, shared: bool) -> bool:
    """The run lists the same task folders and every file of ``index`` has its key
    (``shared``: checked in one of the app's reader processes, as its preview is)."""
    if shared:
        from inspector.loading.processes import in_shared_pool

        # A loaded index's keys are a view of the store file's bytes: sent as bytes.
        index = msgspec.structs.replace(index, stats=bytes(index.stats))  # type: ignore[type-var]
        answers = in_shared_pool(_check_forking, [(run, index)])
        assert answers is not None
        found = answers[0]
    else:
        found = snapshot.check(run, index)  # type: ignore[arg-type]
    return found is not None and not found.changed


def _check_forking(run: Path, index: object) -> object:
    """``snapshot.check`` in a reader process, forking from two files on."""
    before, snapshot.FORK_MIN = snapshot.FORK_MIN, 2
    forks = []
    real = snapshot.halves_in_fork
    snapshot.halves_in_fork = lambda *args: forks.append(1) or real(*args)
    try:
        found = snapshot.check(run, index)  # type: ignore[arg-type]
        assert forks, "not split with a forked child"
        return found
    finally:
        snapshot.FORK_MIN, snapshot.halves_in_fork = before, real


@pytest.mark.parametrize("threaded", [False, True], ids=["forked-child", "reader-processes"])
def test_snapshot_checked_in_two_processes_agrees(
    threaded: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Above FORK_MIN files half are checked in a forked child, of the command line or of
    the app's reader process checking its preview: a change in either half is seen."""
    monkeypatch.setattr(snapshot, "FORK_MIN", 2)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    for position in (0, -1):
        run = _copy(_source(), tmp_path / str(position))
        run_cli(["report", str(run)], capsys)
        loaded = reports._load(run)
        assert loaded is not None and _unchanged(run, loaded.index, threaded)
        from inspector.results.listing import list_task_folders

        rels = snapshot.rels(loaded.index, list_task_folders(run.resolve()))
        assert rels is not None
        rel = [r for r in rels if r.endswith("result.json")][position]
        _bump(run / rel)
        assert not _unchanged(run, loaded.index, threaded), f"{rel}: change not seen"


def test_report_cache_lives_outside_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(_source(), tmp_path)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    before = sorted(p.relative_to(run) for p in run.rglob("*"))
    run_cli(["report", str(run)], capsys)
    path = reports.store_file(run)
    assert path.exists()
    assert str(path).startswith(os.environ["XDG_CACHE_HOME"])
    assert sorted(p.relative_to(run) for p in run.rglob("*")) == before


def test_cached_warnings_name_the_path_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(FIXTURE_RUNS / "load_problems", tmp_path)
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    monkeypatch.chdir(tmp_path)
    expected = run_cli(["report", run.name], capsys)
    assert f"warning: {run.name}/" in expected[2]
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    run_cli(["report", str(run)], capsys)  # cached under the absolute spelling
    counter = Counter(monkeypatch)
    assert run_cli(["report", run.name], capsys) == expected
    assert counter.calls == 0


def test_lookup_in_a_reader_process_uses_the_callers_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The app's reader processes start early; a lookup there must use the cache settings
    the app has now, not those they were started with."""
    from inspector.loading.processes import shared_pool

    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    shared_pool().submit(store.code_signature).result()  # started with the cache off
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "elsewhere"))
    run = _copy(_source(), tmp_path)
    run_cli(["report", str(run)], capsys)
    key = reports.key_for(None, "outputs")
    assert reports.lookup(run, key) is not None
    assert reports.lookup(run, key, shared=True) == reports.lookup(run, key)


@pytest.mark.parametrize("run", RUNS, ids=[run.name for run in RUNS])
def test_summary_made_from_the_kept_metrics_json_is_the_sessions(
    run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outputs keep no summary.md (rendering it loads tabulate): the one made when
    asked, from metrics.json's report, is byte for byte the session's."""
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    loaded = loading.answer(run, fresh=True)
    assert isinstance(loaded, loading.Loaded) and loaded.outputs is not None
    assert loaded.outputs.summary_markdown is None
    assert loaded.outputs.markdown() == loaded.session.summary_markdown()
