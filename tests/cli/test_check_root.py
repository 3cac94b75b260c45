"""`inspector check ROOT`: every run under a results root, in parallel (issue 16).

The root holds copies of sample runs (fixtures/runs, written by AgentCompass); one gets a
tampered metrics.json, one an unreadable run_info.json.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector import loading
from inspector.answers.root import check_root
from inspector.cli.main import main
from inspector.overrides import Overrides
from tests.conftest import FIXTURE_RUNS, conformance_run
from tests.loading.helpers import (
    first_result,
    flipped_same_size,
    replace_keeping_mtime,
    settle_time_stamps,
)

GOOD = ("k1_micro", "k1_evaluation_failed", "k3_avg_hierarchy", "compare_a")
TAMPERED = "team/k3_pass"
UNREADABLE = "team/compare_b"


def tamper_headline(run: Path) -> float:
    """Add 0.25 to the stored headline value; returns the value AgentCompass stored."""
    metrics = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    headline = next(s for s in metrics["series"] if s["role"] == "headline")
    stored = headline["value"]
    headline["value"] = stored + 0.25
    (run / "metrics.json").write_text(
        json.dumps(metrics, indent=2, sort_keys=True), encoding="utf-8"
    )
    return stored


@pytest.fixture
def root(tmp_path: Path) -> Path:
    results = tmp_path / "results"
    for name in GOOD:
        shutil.copytree(FIXTURE_RUNS / name, results / "team" / name)
    shutil.copytree(FIXTURE_RUNS / "k3_pass", results / TAMPERED)
    tamper_headline(results / TAMPERED)
    shutil.copytree(FIXTURE_RUNS / "compare_b", results / UNREADABLE)
    (results / UNREADABLE / "run_info.json").write_text('{"run_id": "cut off', encoding="utf-8")
    return results


def lines_by_run(out: str) -> dict[str, str]:
    lines = out.splitlines()
    return {line.partition(":")[0]: line for line in lines[:-1]}


def test_names_exactly_the_tampered_and_the_unreadable_run(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", str(root)])
    out = capsys.readouterr().out
    assert code == 2
    by_run = lines_by_run(out)
    assert set(by_run) == {f"team/{name}" for name in GOOD} | {TAMPERED, UNREADABLE}
    for name in GOOD:
        assert by_run[f"team/{name}"].startswith(f"team/{name}: ok (")
    assert by_run[TAMPERED].startswith(f"{TAMPERED}: differs: correct.pass@3 value: stored ")
    assert by_run[UNREADABLE].startswith(
        f"{UNREADABLE}: unusable: {UNREADABLE}/run_info.json: not valid JSON (Unterminated string"
    )
    summary = out.splitlines()[-1]
    assert summary == (
        f"6 runs: 4 ok, 1 differs, 1 unusable; differs: {TAMPERED}; unusable: {UNREADABLE}"
    )


def test_without_the_unreadable_run_it_exits_1(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.rmtree(root / UNREADABLE)
    assert main(["check", str(root)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == f"5 runs: 4 ok, 1 differs, 0 unusable; differs: {TAMPERED}"


def test_all_equal_exits_0(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(root / UNREADABLE)
    shutil.rmtree(root / TAMPERED)
    assert main(["check", str(root)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "4 runs: 4 ok, 0 differs, 0 unusable"


def test_json_lists_every_run(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", str(root), "--format", "json"])
    runs = json.loads(capsys.readouterr().out)
    assert code == 2
    by_run = {item["run"]: item for item in runs}
    assert [item["run"] for item in runs] == sorted(by_run)
    assert set(by_run) == {f"team/{name}" for name in GOOD} | {TAMPERED, UNREADABLE}
    for name in GOOD:
        assert by_run[f"team/{name}"]["status"] == "ok"
        assert by_run[f"team/{name}"]["differences"] == []
        assert by_run[f"team/{name}"]["problem"] is None
    stored = json.loads((FIXTURE_RUNS / "k3_pass" / "metrics.json").read_text(encoding="utf-8"))
    value = next(s for s in stored["series"] if s["role"] == "headline")["value"]
    assert by_run[TAMPERED]["status"] == "differs"
    assert {"where": "correct.pass@3 value", "stored": value + 0.25, "recomputed": value} in (
        by_run[TAMPERED]["differences"]
    )
    assert by_run[UNREADABLE]["status"] == "unusable"
    assert by_run[UNREADABLE]["problem"].startswith(f"{UNREADABLE}/run_info.json: not valid JSON")


def test_a_failed_evaluation_has_its_reference_value_as_headline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = FIXTURE_RUNS / "k1_evaluation_failed"
    shutil.copytree(run, tmp_path / "ns" / "failed")
    shutil.copytree(FIXTURE_RUNS / "k1_micro", tmp_path / "ns" / "micro")
    assert main(["check", str(tmp_path), "--format", "json"]) == 0
    by_run = {item["run"]: item for item in json.loads(capsys.readouterr().out)}
    headline = by_run["ns/failed"]["headline"]
    stored = json.loads((run / "metrics.json").read_text(encoding="utf-8"))["series"][0]
    assert stored["value"] is None
    assert (headline["value"], headline["is_reference"]) == (stored["reference_value"], True)
    assert headline["counts"]["invalidated"] == stored["counts"]["invalidated"] == 1


def test_in_parallel_and_in_process_agree(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECTOR_WORKERS", "2")
    in_parallel = check_root(str(root), Overrides())
    monkeypatch.setenv("INSPECTOR_WORKERS", "1")
    assert in_parallel == check_root(str(root), Overrides())


def test_load_warnings_are_kept_per_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(FIXTURE_RUNS / "load_problems", tmp_path / "ns" / "load_problems")
    shutil.copytree(FIXTURE_RUNS / "k1_micro", tmp_path / "ns" / "k1_micro")
    assert main(["check", str(tmp_path), "--format", "json"]) == 0
    by_run = {item["run"]: item for item in json.loads(capsys.readouterr().out)}
    assert by_run["ns/k1_micro"]["warnings"] == []
    assert any(
        w.startswith("ns/load_problems/details/normal/chat_v3_8--") and "AgentCompass skips" in w
        for w in by_run["ns/load_problems"]["warnings"]
    )


def test_a_folder_without_runs_is_unusable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty" / "inside").mkdir(parents=True)
    assert main(["check", str(tmp_path / "empty")]) == 2
    assert "no runs here" in capsys.readouterr().err


def test_json_is_a_list_of_objects_with_run_status_differences_problem(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shape issue 16 names, first in every object; then tasks, load warnings and the
    recomputed headline (null for an unusable run)."""
    main(["check", str(root), "--format", "json"])
    runs = json.loads(capsys.readouterr().out)
    assert isinstance(runs, list) and len(runs) == 6
    for item in runs:
        assert list(item) == [
            "run", "status", "differences", "problem", "tasks", "warnings", "headline",
            "same_content",
        ]  # fmt: skip
        assert item["same_content"] == {"ok": True, "unusable": None}.get(item["status"], False)
        assert item["status"] in ("ok", "differs", "unusable")
        assert isinstance(item["run"], str) and not item["run"].startswith("/")
        assert all(list(d) == ["where", "stored", "recomputed"] for d in item["differences"])
        assert (item["problem"] is None) == (item["status"] != "unusable")
        assert bool(item["differences"]) == (item["status"] == "differs")
        assert (item["headline"] is None) == (item["status"] == "unusable")


def test_one_run_says_what_its_object_under_a_root_says(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check RUN --format json` and the run's object in `check ROOT --format json` hold,
    but for ``path``, how ``run`` is named and issue 13's ``equal`` for ``ok``, the same
    values."""
    main(["check", str(root), "--format", "json"])
    under_root = {item["run"]: item for item in json.loads(capsys.readouterr().out)}
    for relative in ("team/k1_micro", TAMPERED, UNREADABLE):
        run = str(root / relative)
        main(["check", run, "--format", "json"])
        alone = json.loads(capsys.readouterr().out)
        assert alone.pop("path") == alone["run"] == run
        expected = dict(under_root[relative], run=run)
        if expected["status"] == "ok":  # check RUN's word since issue 13
            expected["status"] = "equal"
        if expected["problem"] is not None:  # named as given, not under the root
            expected["problem"] = expected["problem"].replace(relative, run, 1)
        assert alone == expected
    assert {item["status"] for item in under_root.values()} == {"ok", "differs", "unusable"}


def test_a_headline_interval_is_kept_for_the_run_as_it_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from inspector.answers import root as module
    from inspector.loading import door

    run = tmp_path / "ns" / "k1_micro"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    time.sleep(0.1)  # what was just copied is racy: stamped too close to the read
    series_id = "correct.native@1"
    first = module.interval_call(str(run), Overrides(), series_id)
    assert first is not None and first[1] < first[0] < first[2]
    opened: list[str] = []
    real_open = door.open_run
    monkeypatch.setattr(
        door, "open_run", lambda path, *a, **k: opened.append(path) or real_open(path, *a, **k)
    )
    assert module.interval_call(str(run), Overrides(), series_id) == first
    assert opened == []  # the kept answer: the run's files are unchanged
    result = next(run.glob("details/normal/*/attempt-1/result.json"))
    result.write_text(result.read_text(encoding="utf-8") + " ", encoding="utf-8")
    time.sleep(0.1)
    assert module.interval_call(str(run), Overrides(), series_id) == first
    assert opened == [str(run)]  # changed: read again


def test_a_run_read_for_its_audit_brings_its_interval_from_that_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runs screen's check of a run it had to read carries the headline interval of
    that same read (what `inspector stats` gives), keeps it for the next look with the
    check's outputs in one write of the report cache, and never reads the run a second
    time for it."""
    import contextlib
    import io
    import time

    from inspector import loading
    from inspector.answers import root as module
    from inspector.loading import door, reports, store

    run = tmp_path / "ns" / "k3_pass"
    shutil.copytree(FIXTURE_RUNS / "k3_pass", run)
    time.sleep(0.1)  # what was just copied is racy: stamped too close to the read
    opened: list[str] = []
    real_open = door.open_run
    monkeypatch.setattr(
        door, "open_run", lambda path, *a, **k: opened.append(path) or real_open(path, *a, **k)
    )
    written: list[Path] = []
    real_write = store.write_streamed  # every store file is written through it
    monkeypatch.setattr(
        store,
        "write_streamed",
        lambda path, data: written.append(path) or real_write(path, data),
    )
    check = loading.audit(module.audit_call, [(str(run), "ns/k3_pass", Overrides())])[0]
    assert check.status == "ok" and check.headline is not None
    assert check.headline.series_id == "correct.pass@3" and check.headline.interval is not None
    assert opened == [str(run)]  # one read, for the check and its interval
    assert written == [reports.store_file(run)]  # one write, for both
    kept = module.interval_call(str(run), Overrides(), "correct.pass@3")
    assert kept == (check.headline.value, *check.headline.interval)
    assert opened == [str(run)]  # the kept answer
    monkeypatch.setattr(door, "open_run", real_open)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["stats", str(run), "--format", "json", "--series", "correct.pass@3"]) == 0
    expected = json.loads(out.getvalue())["series"][0]
    assert check.headline.interval == (expected["ci_low"], expected["ci_high"])


def test_an_audit_whose_statistics_fail_keeps_its_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspector.answers import root as module
    from inspector.views import run_stats

    run = tmp_path / "ns" / "k3_pass"
    shutil.copytree(FIXTURE_RUNS / "k3_pass", run)

    def broken(*args: object) -> None:
        raise ValueError("no statistics today")

    monkeypatch.setattr(run_stats, "own_interval", broken)
    check = loading.audit(module.audit_call, [(str(run), "ns/k3_pass", Overrides())])[0]
    assert check.status == "ok" and check.problem is None
    assert check.headline is not None and check.headline.interval is None


def test_the_audit_keeps_a_task_cache_only_for_a_run_large_enough_for_reader_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runs screen's audit of a small run keeps its report (which answers the next
    look without a read) but not its task folders; a run of PARALLEL_MIN folders or more
    keeps both. `report` keeps both for any run."""
    import time

    from inspector.answers.root import audit_call as call
    from inspector.answers.run import load_outputs
    from inspector.loading import audit, readers, reports, tasks
    from inspector.loading import reading as pending

    def audit_call(*args: object) -> object:  # one run's call in the runs screen's audit
        return audit(call, [args])[0]  # type: ignore[no-any-return]

    small, large, reported = (tmp_path / "ns" / name for name in ("small", "large", "reported"))
    for run in (small, large, reported):
        shutil.copytree(FIXTURE_RUNS / "k3_pass", run)
    time.sleep(0.1)  # what was just copied is racy: stamped too close to the read

    def no_encoding(entry: object) -> None:
        raise AssertionError("an entry encoded for a task cache that is not kept")

    with monkeypatch.context() as patched:
        patched.setattr(tasks, "entry_record", no_encoding)
        first = audit_call(str(small), "ns/small", Overrides())
    assert first.status == "ok"
    assert reports.store_file(small).exists()
    assert not tasks.store_file(small).exists()
    assert reports._load(small).tables == {}  # nor a score table

    def no_read(*args: object, **kwargs: object) -> None:
        raise AssertionError("read again")

    with monkeypatch.context() as patched:
        patched.setattr(pending, "begin_read", no_read)
        assert audit_call(str(small), "ns/small", Overrides()) == first
    load_outputs(str(reported), Overrides(), say=lambda line: None)
    assert tasks.store_file(reported).exists()
    monkeypatch.setattr(readers, "PARALLEL_MIN", 14)  # k3_pass has 14 task folders
    assert audit_call(str(large), "ns/large", Overrides()).status == "ok"
    assert tasks.store_file(large).exists() and reports.store_file(large).exists()
    assert len(reports._load(large).tables) == 1


def test_a_stored_metrics_json_equal_to_the_recomputed_text_has_no_difference() -> None:
    """Bytes first (issue 39): the text written as the engine writes it has no difference,
    even with a NaN (unequal to itself when parsed) in both; a repeated key the parsed
    comparison would hide (the last wins) is a difference, named with every value."""
    from inspector.answers.check import stored_differences
    from inspector.loading import Outputs
    from inspector.views.differences import compare_reports

    def differences(stored: str, recomputed: str) -> list[tuple[str, object, object]]:
        outputs = Outputs((), (), recomputed, "", stored, 0)
        return [(d.where, d.stored, d.recomputed) for d in stored_differences("run", outputs)]

    text = (FIXTURE_RUNS / "k1_micro" / "metrics.json").read_text(encoding="utf-8")
    assert differences(text, text) == [] == compare_reports(json.loads(text), json.loads(text))
    nan = text.replace('"value": 0.', '"value": NaN, "was": 0.', 1)
    assert nan != text and differences(nan, nan) == []
    assert compare_reports(json.loads(nan), json.loads(nan))  # what the parsed way says
    headline = json.loads(text)["series"][0]
    value = json.dumps(headline["value"])
    field = f'\n      "value": {value}\n    }}'  # the series' last key
    assert field in text
    repeated = text.replace(field, f'\n      "value": 0.99,{field}', 1)
    assert json.loads(repeated) == json.loads(text)  # parsed, the last wins: equal
    assert differences(repeated, text) == [
        (
            f"{headline['series_id']} value (key repeated)",
            [0.99, headline["value"]],
            headline["value"],
        )
    ]
    spaced = text.replace('"k": ', '"k":  ', 1)
    line = next(n for n, row in enumerate(text.split("\n"), 1) if '"k": ' in row)
    assert differences(spaced, text) == [(f"metrics.json line {line}", '  "k":  1,', '  "k": 1,')]


def _files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_check_root_keeps_nothing_in_the_caches(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --cached, check ROOT reads every file and keeps none of it: an audit of
    hundreds of runs writes no task cache or report cache per run. --cached keeps them."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    assert main(["check", str(root)]) == 2
    first = capsys.readouterr().out
    assert _files_under(cache) == []
    assert main(["check", str(root), "--cached"]) == 2
    assert capsys.readouterr().out == first
    assert any(name.endswith("/report") for name in _files_under(cache))


def test_check_root_sees_a_same_size_rewrite_with_the_old_mtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """After every cache was filled (check ROOT --cached, report), a result.json rewritten
    with the same size and its old mtime (os.replace, then utime) is judged as it is now."""
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    run = tmp_path / "results" / "ns" / "e2e_k1_micro"
    shutil.copytree(conformance_run("e2e_k1_micro"), run)
    settle_time_stamps()
    for command in (["check", str(tmp_path / "results"), "--cached"], ["report", str(run)]):
        main(command)
    assert main(["check", str(tmp_path / "results")]) == 0
    capsys.readouterr()
    result = first_result(run)
    replace_keeping_mtime(result, flipped_same_size(result))
    assert main(["check", str(tmp_path / "results")]) == 1
    assert capsys.readouterr().out.startswith("ns/e2e_k1_micro: differs: ")


def test_a_root_is_checked_by_one_process_more_than_there_are_cores(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run's check waits for its files, then computes: the spare process keeps the cores
    # busy meanwhile. INSPECTOR_WORKERS, when set, is the number of processes.
    from inspector.loading import many  # the function the test replaces

    asked: list[int] = []

    def counted(function, calls, processes, progress=None, preload=()):  # type: ignore[no-untyped-def]
        asked.append(processes)
        return [function(*call) for call in calls]

    monkeypatch.setattr(many, "map_in_processes", counted)
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.delenv("INSPECTOR_WORKERS", raising=False)
    runs = len(check_root(str(root), Overrides()))
    assert runs >= 3 and asked == [3]
    monkeypatch.setenv("INSPECTOR_WORKERS", "2")
    check_root(str(root), Overrides())
    assert asked == [3, 2]


def test_check_says_differs_for_a_repeated_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``"value": 0.99, "value": 0.5469``: parsed, the last wins and equals the
    recomputation; a first-wins reader, or a person, sees 0.99 (issue 39)."""
    run = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    text = (run / "metrics.json").read_text(encoding="utf-8")
    series = json.loads(text)["series"][0]
    field = f'\n      "value": {json.dumps(series["value"])}\n    }}'
    (run / "metrics.json").write_text(text.replace(field, f'\n      "value": 0.99,{field}', 1))
    assert main(["check", str(run)]) == 1
    out = capsys.readouterr().out
    assert f"{series['series_id']} value (key repeated): stored [0.99, {series['value']}]" in out
    assert main(["check", str(run), "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)
    assert found["status"] == "differs" and "key repeated" in json.dumps(found["differences"])
