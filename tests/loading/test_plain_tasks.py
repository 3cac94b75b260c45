"""The one-pass reader of plain task folders (inspector/results/quick.py) agrees with the
careful one (``load_published``) wherever it answers, and declines every unusual folder
(then the careful reader says what is wrong)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from inspector.loading import readers
from inspector.loading.records import entry_record
from inspector.results import quick as quick_module
from inspector.results.quick import read_plain_task
from inspector.results.reader import list_run
from inspector.results.run_files import RunFiles
from inspector.results.tasks import load_published
from inspector.results.validate import BUILTIN_STRATEGIES
from tests.conftest import FIXTURE_RUNS, conformance_runs
from tests.loading.helpers import copy_run

RUNS = [p for p in sorted(FIXTURE_RUNS.iterdir()) if (p / "run_info.json").exists()]
RUNS += conformance_runs()


def both(run: Path, folder: str, state: str, first: str) -> tuple[object, object]:
    """The quick reader's answer and the careful reader's, each with the keys of the files
    it read (what the task cache stores)."""
    files = RunFiles(run)
    quick = read_plain_task(files, folder, state, first, BUILTIN_STRATEGIES)  # type: ignore[arg-type]
    quick_seen = None
    if quick is not None:
        quick_seen = readers.known_keys(files.stats, readers.entry_files(quick))
    files = RunFiles(run)
    careful = load_published(files, folder, state, first, BUILTIN_STRATEGIES)  # type: ignore[arg-type]
    careful_seen = readers.known_keys(files.stats, readers.entry_files(careful))
    return (
        None if quick is None else (entry_record(quick), quick_seen),
        (entry_record(careful), careful_seen),
    )


@pytest.mark.parametrize("run", RUNS, ids=[p.name for p in RUNS])
def test_the_quick_reader_agrees_with_the_careful_one(run: Path, tmp_path: Path) -> None:
    # A copy: other tests hard-link the fixtures' files meanwhile (tests/robustness), and a
    # new link moves a file's ctime, one of the keys compared here, between the two reads.
    run = Path(shutil.copytree(run, tmp_path / run.name, symlinks=True))
    listed = list_run(run)
    answered = 0
    for folder, state in listed.candidates:
        first = listed.first_location[folder.rpartition("/")[2]]
        quick, careful = both(run, folder, state, first)
        if quick is not None:
            answered += 1
            assert quick == careful, folder
    if run.name in ("k1_micro", "e2e_k1_micro", "k3_avg_hierarchy"):
        assert answered, "the quick reader declined every folder of a plain run"


def _result(run: Path) -> Path:
    return sorted(run.glob("details/normal/*/attempt-1/result.json"))[0]


def _edit_json(path: Path, change: Callable[[dict], None]) -> None:  # type: ignore[type-arg]
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def _symlink_in_place(path: Path) -> None:
    target = path.with_name(path.name + ".real")
    path.rename(target)
    path.symlink_to(target.name)


def _fifo_in_place(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


ODD: dict[str, Callable[[Path], None]] = {
    "task.json a link": lambda run: _symlink_in_place(_result(run).parent.parent / "task.json"),
    "result.json a link": lambda run: _symlink_in_place(_result(run)),
    "attempt folder a link": lambda run: _symlink_in_place(_result(run).parent),
    "result.json a FIFO": lambda run: _fifo_in_place(_result(run)),
    "result.json missing": lambda run: _result(run).unlink(),
    "NaN metric": lambda run: _result(run).write_text(
        _result(run).read_text().replace('"metrics": {', '"metrics": {"nan": NaN, ', 1)
    ),
    "not UTF-8 in the trajectory": lambda run: _result(run).write_bytes(
        _result(run).read_bytes().replace(b'"trajectory": {', b'"trajectory": {"x": "\xff", ', 1)
    ),
    "no retry_count": lambda run: _edit_json(_result(run), lambda d: d.pop("retry_count")),
    "an extra field": lambda run: _edit_json(_result(run), lambda d: d.update(error="boom")),
    "v2 task schema": lambda run: _edit_json(
        _result(run).parent.parent / "task.json",
        lambda d: d.update(schema_version="agentcompass.task.v2"),
    ),
    "unpublished": lambda run: _edit_json(
        _result(run).parent.parent / "task.json", lambda d: d.pop("ground_truth")
    ),
    "the same task in error/ too": lambda run: shutil.copytree(
        _result(run).parent.parent, run / "details" / "error" / _result(run).parent.parent.name
    ),
    "renamed folder": lambda run: _result(run).parent.parent.rename(
        _result(run).parent.parent.with_name("other--" + "0" * 64)
    ),
}


@pytest.mark.parametrize("odd", list(ODD))
def test_the_quick_reader_declines_what_is_not_plain(odd: str, tmp_path: Path) -> None:
    run = copy_run(tmp_path)
    task = _result(run).parent.parent
    before = {f for f, _ in list_run(run).candidates}
    plain = task.relative_to(run).as_posix()
    assert both(run, plain, "normal", plain)[0] is not None  # plain before the change
    ODD[odd](run)
    listed = list_run(run)
    # The changed folder (under its new name when it was renamed), the others as before.
    changed = [(f, s) for f, s in listed.candidates if f not in before]
    changed = changed or [(f, s) for f, s in listed.candidates if f.endswith(task.name)]
    assert len(changed) == 1
    for folder, state in listed.candidates:
        first = listed.first_location[folder.rpartition("/")[2]]
        quick, careful = both(run, folder, state, first)
        if (folder, state) in changed:
            assert quick is None, odd
        else:
            assert quick == careful


# Changes the quick reader answers, as the careful one does: exact values.
EXACT: dict[str, Callable[[Path], None]] = {
    # orjson would make it a float; the lean parse keeps the integer (as json.loads).
    "huge integer metric": lambda run: _edit_json(
        _result(run), lambda d: d["metrics"].update(huge=2**64)
    ),
    "a non-ASCII trajectory": lambda run: _edit_json(
        _result(run), lambda d: d["trajectory"].update(note="résumé ✓ 中文")
    ),
    "artifacts and a null final answer": lambda run: _edit_json(
        _result(run), lambda d: d.update(artifacts={"log": "x.txt"}, final_answer=None)
    ),
}


@pytest.mark.parametrize("change", list(EXACT))
def test_the_quick_reader_answers_exactly(change: str, tmp_path: Path) -> None:
    run = copy_run(tmp_path)
    EXACT[change](run)
    task = _result(run).parent.parent.relative_to(run).as_posix()
    quick, careful = both(run, task, "normal", task)
    assert quick is not None, change
    assert quick == careful
    if change == "huge integer metric":
        entry = read_plain_task(RunFiles(run), task, "normal", task, BUILTIN_STRATEGIES)
        assert entry.record.attempts[1].metrics["huge"] == 2**64
        assert type(entry.record.attempts[1].metrics["huge"]) is int


def test_an_entry_names_the_same_files_with_attempt_folders_as_numbers_or_as_a_mapping() -> None:
    """What the task cache keys an entry by (its folder, task.json, each attempt's
    result.json in attempt order) does not depend on how its attempt folders are held."""
    from dataclasses import replace

    from inspector.results.layout import AttemptDirs

    listed = list_run(FIXTURE_RUNS / "k3_pass")
    seen = 0
    for folder, state in listed.candidates:
        first = listed.first_location[folder.rpartition("/")[2]]
        entry = load_published(
            RunFiles(FIXTURE_RUNS / "k3_pass"), folder, state, first, BUILTIN_STRATEGIES
        )  # type: ignore[arg-type]
        if type(entry.attempt_dirs) is not AttemptDirs or len(entry.attempt_dirs) < 2:
            continue
        shuffled = AttemptDirs(entry.attempt_dirs.folder, entry.attempt_dirs.numbers[::-1])
        as_mapping = dict(entry.attempt_dirs.items())
        names = readers.entry_files(entry)
        assert names[:2] == [entry.folder, entry.task_file]
        assert names[2:] == [
            f"{entry.folder}/attempt-{n}/result.json" for n in sorted(entry.attempt_dirs.numbers)
        ]
        assert readers.entry_files(replace(entry, attempt_dirs=shuffled)) == names
        assert readers.entry_files(replace(entry, attempt_dirs=as_mapping)) == names
        seen += 1
    assert seen > 0


def _inflate(result: Path, planted: bytes = b'"fine"') -> None:
    """Give ``result`` a 2 MB trajectory (written as AgentCompass writes it) with
    ``planted`` as the value of one of its members."""
    payload = json.loads(result.read_text(encoding="utf-8"))
    steps = [{"step_id": i, "observation": "x" * 2000} for i in range(1000)]
    payload["trajectory"] = {"steps": steps, "planted": "PLANTED"}
    text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    result.write_bytes(text.encode().replace(b'"PLANTED"', planted))
    assert result.stat().st_size > 2_000_000


def test_one_large_attempt_keeps_its_task_on_the_quick_reader(tmp_path: Path) -> None:
    """Mixed sizes (issue 53): a 2 MB attempt among small ones is read by the quick reader
    (its trajectory checked, not built), with the careful reader's answer."""
    run = copy_run(tmp_path, FIXTURE_RUNS / "k3_pass")
    task = sorted(run.glob("details/normal/*/attempt-3"))[0].parent
    _inflate(task / "attempt-2" / "result.json")
    folder = task.relative_to(run).as_posix()
    quick, careful = both(run, folder, "normal", folder)
    assert quick is not None, "the large attempt sent its task to the careful reader"
    assert quick == careful


@pytest.mark.parametrize("planted", [b'"\x01"', b"NaN", b'"\\ud800"'], ids=repr)
def test_a_large_attempt_the_lean_parse_cannot_answer_is_declined(
    planted: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Broken JSON in the trajectory, or what json.loads accepts and msgspec does not:
    the careful reader decides (it parses the file without its trajectory, or whole);
    the quick one never builds the large file's trajectory to find out."""
    run = copy_run(tmp_path, FIXTURE_RUNS / "k3_pass")
    task = sorted(run.glob("details/normal/*/attempt-3"))[0].parent
    _inflate(task / "attempt-2" / "result.json", planted)
    folder = task.relative_to(run).as_posix()
    parsed: list[int] = []
    whole = quick_module._parsed_object

    def spy(data: bytes) -> object:
        parsed.append(len(data))
        return whole(data)

    monkeypatch.setattr(quick_module, "_parsed_object", spy)
    quick, _ = both(run, folder, "normal", folder)
    assert quick is None
    assert parsed and max(parsed) < 1 << 20  # task.json and the small attempts only
