"""Reopening a run after a few task folders changed, from its score table (issue 11): only
the changed folders are read again, the rest come from the per-task outcomes kept beside
the report, and the answer is exactly the one reading everything without a cache gives —
for every fixture, for rewrites ordinary tools make, for changes that move which folder
is scored for a task id, and again on the next reopen (the stored snapshot is right). A
table of another shape is a miss; a change it cannot answer exactly is read as before."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from inspector.loading import reading, reopen, reports
from inspector.loading.records import Table, decoder
from tests.conftest import conformance_run, conformance_runs
from tests.loading.helpers import (
    copy_preserving,
    copy_run,
    first_result,
    flipped_same_size,
    replace_keeping_mtime,
    report_file,
    run_cli,
    settle_time_stamps,
    stored_data,
    write_data,
)

FIXTURE_RUNS = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
COMMANDS = (["--json"], ["--markdown"])


class Answers:
    """How the command line answered from now on: ``warm`` the score table's answers,
    ``read`` the runs read and scored whole."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.warm: list[int] = []
        self.read = 0
        warm, read = reopen.answer, reading.PendingRead.finish

        def counted_warm(*args: Any, **kwargs: Any) -> Any:
            found = warm(*args, **kwargs)
            if found is not None:
                self.warm.append(found[1])  # task folders read again
            return found

        def counted_read(*args: Any, **kwargs: Any) -> Any:
            self.read += 1
            return read(*args, **kwargs)

        monkeypatch.setattr(reopen, "answer", counted_warm)
        monkeypatch.setattr(reading.PendingRead, "finish", counted_read)


def outputs(run: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[int, str, str]]:
    return [run_cli(["report", str(run), *flags], capsys) for flags in COMMANDS]


def uncached(
    run: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> list[tuple[int, str, str]]:
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    try:
        return outputs(run, capsys)
    finally:
        monkeypatch.setenv("INSPECTOR_CACHE", "1")


def filled(tmp_path: Path, capsys: pytest.CaptureFixture[str], source: Path | None = None) -> Path:
    run = copy_run(tmp_path, source)
    outputs(run, capsys)  # read whole: the report, its snapshot and its table are kept
    settle_time_stamps()
    return run


def k3_run() -> Path:
    """A k=3 run AgentCompass wrote (every task has more than one attempt)."""
    return conformance_run("e2e_k3_avg_category_mean")


def results(run: Path) -> list[Path]:
    """The result.json files of the published task folders (not those under running/)."""
    found = run.glob("details/*/*/attempt-*/result.json")
    return sorted(p for p in found if p.relative_to(run).parts[1] != "running")


def set_metric(path: Path) -> None:
    """The first boolean metric of a result.json flipped (AgentCompass's kind of rewrite)."""
    payload = json.loads(path.read_bytes())
    name = next(n for n, v in payload["metrics"].items() if isinstance(v, bool))
    payload["metrics"][name] = not payload["metrics"][name]
    path.write_text(json.dumps(payload), encoding="utf-8")


def task_json(run: Path, index: int) -> Path:
    found = run.glob("details/*/*/task.json")
    return sorted(p for p in found if p.relative_to(run).parts[1] != "running")[index]


def rewrite_task(path: Path, **changes: Any) -> None:
    payload = json.loads(path.read_bytes())
    payload.update(changes)
    path.write_text(json.dumps(payload), encoding="utf-8")


def assert_read_whole(
    run: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next command reads the run whole (the table does not answer), and rightly."""
    expected = uncached(run, capsys, monkeypatch)
    answers = Answers(monkeypatch)
    assert outputs(run, capsys) == expected
    assert answers.warm == [] and answers.read == 1


@pytest.fixture(autouse=True)
def _cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE", "1")


def _runs_with_results() -> list[Path]:
    runs = [*conformance_runs(), *sorted(p for p in FIXTURE_RUNS.iterdir() if p.is_dir())]
    return [run for run in runs if results(run)]


@pytest.mark.parametrize("source", _runs_with_results(), ids=lambda p: p.name)
def test_every_fixture_reopened_after_a_changed_result_gives_the_uncached_report(
    source: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = filled(tmp_path, capsys, source)
    changed = results(run)[-1]
    data = json.loads(changed.read_bytes())
    if (
        isinstance(data, dict)
        and isinstance(data.get("metrics"), dict)
        and any(isinstance(v, bool) for v in data["metrics"].values())
    ):
        set_metric(changed)
    else:
        changed.write_bytes(changed.read_bytes() + b" ")
    settle_time_stamps()
    expected = uncached(run, capsys, monkeypatch)
    answers = Answers(monkeypatch)
    got = outputs(run, capsys)
    assert got == expected
    # Answered once (by the table, or read whole where it cannot answer), then from the cache.
    assert len(answers.warm) + answers.read == 1
    settle_time_stamps()
    again = Answers(monkeypatch)
    assert outputs(run, capsys) == got and again.warm == [] and again.read == 0


@pytest.mark.parametrize("rewrite", ["os.replace, old mtime", "cp -p"])
def test_a_same_size_rewrite_with_the_old_mtime_is_read_again(
    rewrite: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = filled(tmp_path, capsys)
    before = outputs(run, capsys)
    result = first_result(run)
    if rewrite == "cp -p":
        copy_preserving(result, flipped_same_size(result), tmp_path)
    else:
        replace_keeping_mtime(result, flipped_same_size(result))
    settle_time_stamps()
    expected = uncached(run, capsys, monkeypatch)
    answers = Answers(monkeypatch)
    got = outputs(run, capsys)
    assert got == expected and got != before
    assert answers.warm == [1] and answers.read == 0  # one folder read again, by the table


def test_changes_one_after_another_stay_right(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each answer keeps a new snapshot and table: the next change is measured against
    them, and an unchanged reopen after it is the cache's whole answer."""
    run = filled(tmp_path, capsys, k3_run())
    answers = Answers(monkeypatch)
    firsts = sorted(run.glob("details/normal/*/attempt-1/result.json"))
    for path in [*firsts[:3], firsts[0]]:  # three folders, then the first again
        set_metric(path)
        settle_time_stamps()
        assert outputs(run, capsys) == uncached(run, capsys, monkeypatch)
        settle_time_stamps()
    assert answers.warm == [1, 1, 1, 1] and answers.read == 8  # the uncached reads
    answers.warm.clear()
    outputs(run, capsys)
    assert answers.warm == [] and answers.read == 8


def test_an_attempt_dropped_and_added_again_is_read_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task's attempt 3 taken out of its task.json's attempts and its folder removed,
    then put back: the folder is read again each time, and the snapshot kept has its files
    as they are now (the unchanged reopen after each is the cache's answer)."""
    run = filled(tmp_path, capsys, k3_run())
    index = task_json(run, -1)
    folder = index.parent
    payload = json.loads(index.read_bytes())
    saved = tmp_path / "attempt-3"
    shutil.copytree(folder / "attempt-3", saved)
    answers = Answers(monkeypatch)
    fewer = {**payload, "attempts": {k: v for k, v in payload["attempts"].items() if k != "3"}}
    for attempts in (fewer, payload):
        if attempts is fewer:
            shutil.rmtree(folder / "attempt-3")
        else:
            shutil.copytree(saved, folder / "attempt-3")
        index.write_text(json.dumps(attempts), encoding="utf-8")
        settle_time_stamps()
        expected = uncached(run, capsys, monkeypatch)
        reads = answers.read
        assert outputs(run, capsys) == expected
        settle_time_stamps()
        assert outputs(run, capsys) == expected
        assert answers.warm[-1:] == [1] and answers.read == reads
    assert answers.warm == [1, 1]


def test_a_task_unpublished_published_again_and_recategorised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A changed task.json that no longer publishes its task (a warning, the task left
    out), the same published again, then a changed category: each as read whole."""
    run = filled(tmp_path, capsys, k3_run())
    path = task_json(run, -1)
    original = path.read_bytes()
    payload = json.loads(original)
    unpublished = {
        k: v for k, v in payload.items() if k not in ("category", "ground_truth", "attempt_plan")
    }
    # An unpublished folder's attempts are not read, so it is not kept: each command
    # reads it again (as the task cache does not keep it either).
    for data, warned, warm in [
        (json.dumps(unpublished).encode(), True, [1, 1]),
        (original, False, [1]),
        (json.dumps({**payload, "category": "another"}).encode(), False, [1]),
    ]:
        path.write_bytes(data)
        settle_time_stamps()
        expected = uncached(run, capsys, monkeypatch)
        assert ("not published" in expected[0][2]) == warned
        answers = Answers(monkeypatch)
        assert outputs(run, capsys) == expected
        assert (answers.warm, answers.read) == (warm, 0)
        settle_time_stamps()


def test_a_changed_folder_agentcompass_would_refuse_is_read_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run = filled(tmp_path, capsys, k3_run())
    result = results(run)[1]
    result.write_text("{not json", encoding="utf-8")
    settle_time_stamps()
    expected = uncached(run, capsys, monkeypatch)
    answers = Answers(monkeypatch)
    got = outputs(run, capsys)
    assert got == expected and got[0][0] == 2
    assert str(result.relative_to(run)) in got[0][2]  # the message names the file
    # The first command reads it whole; the next is answered with the refusal it kept.
    assert answers.warm == [] and answers.read == 1


def test_the_listings_warnings_are_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run = copy_run(tmp_path, k3_run())
    (run / "details" / "old.json").write_text("{}", encoding="utf-8")  # a v1 flat file
    settle_time_stamps()
    outputs(run, capsys)
    settle_time_stamps()
    set_metric(results(run)[0])
    settle_time_stamps()
    expected = uncached(run, capsys, monkeypatch)
    assert "older flat detail file" in expected[0][2]
    answers = Answers(monkeypatch)
    assert outputs(run, capsys) == expected
    assert answers.warm == [1]


def test_a_changed_run_level_file_is_read_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run = filled(tmp_path, capsys)
    set_metric(first_result(run))
    params = run / "params.json"
    params.write_bytes(params.read_bytes() if params.exists() else b"{}")
    settle_time_stamps()
    assert_read_whole(run, capsys, monkeypatch)


def test_check_cached_says_how_many_folders_came_from_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = filled(tmp_path, capsys, k3_run())
    folders = len(list(run.glob("details/*/*/task.json")))
    set_metric(results(run)[0])
    settle_time_stamps()
    _, out, _ = run_cli(["check", str(run), "--cached"], capsys)
    assert f"--cached: from the cache: {folders - 1} of {folders} task folders" in out


def _rewrite_table(run: Path, edit: Any) -> None:
    """The run's report cache file with its score table passed through ``edit``."""
    path = report_file(run)
    data = stored_data(path)
    tables = data[4]
    key = next(iter(tables))
    tables[key] = edit(tables[key])
    stat = path.stat()
    write_data(path, data)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _column_edit(series: int, part: int, value: Any) -> Any:
    def edit(table: list[Any]) -> list[Any]:
        table[6][series][part][0] = value
        return table

    return edit


@pytest.mark.parametrize(
    "edit",
    [
        lambda table: ["not", "a", "table"],
        lambda table: [table[0], [*table[1], "extra"], *table[2:]],
        lambda table: [[1, 2], *table[1:]],  # run-level part of another shape
        lambda table: [*table[:2], [1, *table[2][1:]], *table[3:]],  # a number as id
        lambda table: [*table[:3], [None, *table[3][1:]], *table[4:]],  # 'scored' not a bool
        _column_edit(0, 0, "0.5"),  # a value as text
        _column_edit(0, 1, "evaluated-ish"),  # a state that is none
        _column_edit(0, 2, 1),  # has_error as a number
        lambda table: [*table[:5], [["p", "m", "r", "yes"]] * len(table[5]), *table[6:]],
    ],
    ids=[
        "other-shape",
        "extra-series",
        "run-level",
        "id-number",
        "scored-none",
        "value-text",
        "bad-state",
        "error-number",
        "bad-problem",
    ],
)
def test_a_table_of_another_shape_is_a_miss(
    edit: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = filled(tmp_path, capsys, k3_run())
    _rewrite_table(run, edit)
    set_metric(results(run)[-1])
    settle_time_stamps()
    assert_read_whole(run, capsys, monkeypatch)


def test_a_folder_rewritten_as_it_is_read_again_is_not_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder read again whose file was stamped within a time stamp tick of the read
    (racy) gives the right answer, but no snapshot is kept: the next reopen reads it
    again and sees a rewrite made in the same tick."""
    run = filled(tmp_path, capsys, k3_run())
    result = results(run)[0]
    set_metric(result)  # no settling: stamped just now
    answers = Answers(monkeypatch)
    assert outputs(run, capsys)[0][1] == uncached(run, capsys, monkeypatch)[0][1]
    assert answers.warm == [1, 1]  # nothing kept: both commands read it again
    answers.warm.clear()
    stat = result.stat()
    replace_keeping_mtime(result, flipped_same_size(result))
    os.utime(result, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    settle_time_stamps()
    expected = uncached(run, capsys, monkeypatch)
    assert outputs(run, capsys) == expected
    assert answers.warm == [1]  # read again: the racy read was not kept


def test_the_table_is_not_kept_for_a_derived_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run = filled(tmp_path, capsys, k3_run())
    command = ["report", str(run), "--json", "--k", "1"]
    run_cli(command, capsys)
    settle_time_stamps()
    set_metric(results(run)[0])
    settle_time_stamps()
    answers = Answers(monkeypatch)
    got = run_cli(command, capsys)
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    assert got == run_cli(command, capsys)
    assert answers.warm == []


def test_the_table_holds_no_entry_objects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What is kept is plain data, one row per folder (checked by its shape on load)."""
    run = filled(tmp_path, capsys, k3_run())
    loaded = reports._load(run)
    assert loaded is not None
    (key,) = loaded.tables
    folders = len(list(run.glob("details/*/*/task.json")))
    table = decoder(Table).decode(loaded.tables[key])
    assert reopen.table_in(loaded.tables, key, folders) == table
    assert reopen.table_in(loaded.tables, key, folders + 1) is None


def _kept(run: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The outputs and further answers, and the score tables, in the run's report file."""
    data = stored_data(report_file(run))
    return {**data[2], **data[3]}, data[4]


def test_a_store_without_a_table_keeps_the_other_keys_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer stored later for the same files (the runs screen's interval) leaves the
    report's table as it was, and a reopen after a change still answers from it."""
    run = filled(tmp_path, capsys, k3_run())
    outputs_before, tables_before = _kept(run)
    assert len(tables_before) == 1
    loaded = reports._load(run)
    assert loaded is not None
    reports.store_snapshot(run, loaded.index, "another answer", (0.5, 0.25, 0.75))
    outputs_after, tables_after = _kept(run)
    assert tables_after == tables_before
    assert outputs_after == {**outputs_before, "another answer": [0.5, 0.25, 0.75]}
    set_metric(results(run)[0])
    settle_time_stamps()
    expected = uncached(run, capsys, monkeypatch)
    answers = Answers(monkeypatch)
    assert outputs(run, capsys) == expected
    assert answers.warm[:1] == [1] and answers.read == 0


def test_a_key_stored_again_without_a_table_loses_its_old_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = filled(tmp_path, capsys, k3_run())
    _, tables_before = _kept(run)
    (key,) = tables_before
    loaded = reports._load(run)
    assert loaded is not None
    reports.store_snapshot(run, loaded.index, "another answer", (0.5, 0.25, 0.75))
    reports.store_snapshot(run, loaded.index, key, loaded.outputs[key])
    outputs_after, tables_after = _kept(run)
    assert tables_after == {}
    assert set(outputs_after) == {key, "another answer"}
