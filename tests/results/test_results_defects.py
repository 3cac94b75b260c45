"""One broken thing in a real run gives exactly one LoadProblem naming that file, and the
other tasks still load (design rule 6)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from inspector.results import problems
from inspector.results.reader import read_run

from .helpers import BASE_RUN, BASE_TASKS, DEFECTS, dump, first_task, load

RULES = {value for name, value in vars(problems).items() if name.startswith("RULE_")}


@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_one_defect_one_problem(name: str, copy_run) -> None:
    defect, blocking, remaining = DEFECTS[name]
    run_dir = copy_run(BASE_RUN)
    all_ids = {task.task_id for task in read_run(run_dir).tasks}
    assert len(all_ids) == BASE_TASKS

    expected_path = defect(run_dir)
    run = read_run(run_dir)

    assert [(p.path, p.blocking) for p in run.problems] == [(expected_path, blocking)], [
        p.line() for p in run.problems
    ]
    problem = run.problems[0]
    assert problem.message and "\n" not in problem.message
    assert problem.rule in RULES and "§" not in problem.rule  # words for users, no spec section
    assert problem.line().startswith(f"{expected_path}: ")
    assert len(run.tasks) == remaining
    assert {task.task_id for task in run.tasks} <= all_ids
    assert run.blocking_problems == ([problem] if blocking else [])


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("truncated_result_json", "ends early"),
        ("zero_byte_result_json", "empty file"),
        ("non_utf8_result_json", "not valid UTF-8"),
        ("metric_value_null", "null"),
        ("metric_value_nan", "finite"),
        ("issues_null", "list"),
        ("error_key_in_v3_attempt", "error"),
        ("task_in_two_state_folders", "more than one result directory"),
        ("folder_name_mismatch", "does not match"),
        ("attempt_symlinked_outside", "outside the run directory"),
        ("legacy_attempt_unclassifiable", "re-execution is required"),
        ("result_json_missing", "missing"),
        ("run_info_not_json", "not valid JSON"),
        ("only_retry_only_attempts", "no attempt"),
    ],
)
def test_messages_say_what_is_wrong(name: str, words: str, copy_run) -> None:
    run_dir = copy_run(BASE_RUN)
    DEFECTS[name][0](run_dir)
    (problem,) = read_run(run_dir).problems
    assert words in problem.message


def test_a_defective_task_is_still_an_entry(copy_run) -> None:
    run_dir = copy_run(BASE_RUN)
    path = DEFECTS["status_unknown"][0](run_dir)
    run = read_run(run_dir)
    entry = next(entry for entry in run.entries if entry.task_file == path.replace("attempt-1/result.json", "task.json"))
    assert entry.record is None and entry.published and entry.blocking
    assert entry.task_id == load(run_dir / entry.task_file)["task_id"]
    assert entry.attempt_dirs == {1: f"{entry.folder}/attempt-1"}
    assert len(run.entries) == BASE_TASKS


def test_running_task_is_an_entry_but_not_a_task(copy_run) -> None:
    run_dir = copy_run(BASE_RUN)
    folder = run_dir / "details" / "running" / "late_1--ab"
    (folder / "attempt-1").mkdir(parents=True)
    dump(folder / "task.json", {"schema_version": "agentcompass.task.v3", "task_id": "late/1",
                                "attempts": {"1": "attempt-1"}})
    dump(folder / "attempt-1" / "result.json", {"retry_count": 0, "status": "completed"})
    run = read_run(run_dir)
    assert run.problems == []
    assert len(run.tasks) == BASE_TASKS
    (entry,) = [entry for entry in run.entries if entry.state == "running"]
    assert (entry.task_id, entry.published, entry.record) == ("late/1", False, None)
    assert entry.folder == "details/running/late_1--ab"
    assert entry.attempt_dirs == {1: "details/running/late_1--ab/attempt-1"}


def test_published_looking_running_task_is_never_scored(copy_run) -> None:
    """Reused tasks moved back to running/ keep their shared keys; they are still not results."""
    run_dir = copy_run(BASE_RUN)
    folder = first_task(run_dir)
    (run_dir / "details" / "running").mkdir()
    folder.rename(run_dir / "details" / "running" / folder.name)
    run = read_run(run_dir)
    assert run.problems == []
    assert len(run.tasks) == BASE_TASKS - 1
    assert [entry.state for entry in run.entries].count("running") == 1


def test_first_task_id_wins_in_load_order(copy_run) -> None:
    """normal, error, fatal, then v2: the order RunStore loads (spec §10 item 43)."""
    run = read_run(copy_run(BASE_RUN))
    states = [next(e.state for e in run.entries if e.record is task) for task in run.tasks]
    assert states == sorted(states, key=["normal", "error", "fatal", "v2"].index)


def test_state_folder_symlink_is_refused(copy_run, tmp_path: Path) -> None:
    run_dir = copy_run(BASE_RUN)
    error = run_dir / "details" / "error"
    outside = tmp_path / "elsewhere"
    error.rename(outside)
    error.symlink_to(outside, target_is_directory=True)
    run = read_run(run_dir)
    assert [(p.path, p.blocking) for p in run.problems] == [("details/error", True)]
    assert len(run.tasks) == 7


def test_older_flat_detail_files_are_reported_not_read(copy_run) -> None:
    run_dir = copy_run(BASE_RUN)
    dump(run_dir / "details" / "_error_x--00.json", {"task_id": "x", "correct": False})
    run = read_run(run_dir)
    assert [(p.path, p.blocking) for p in run.problems] == [("details", False)]
    assert len(run.tasks) == BASE_TASKS


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_permission_denied_is_a_problem(copy_run) -> None:
    run_dir = copy_run(BASE_RUN)
    path = first_task(run_dir) / "attempt-1" / "result.json"
    path.chmod(0)
    try:
        (problem,) = read_run(run_dir).problems
    finally:
        path.chmod(0o644)
    assert problem.path == path.relative_to(run_dir).as_posix()
    assert "permission denied" in problem.message


def test_not_a_run_at_all(tmp_path: Path) -> None:
    from inspector.results.problems import RunReadError

    with pytest.raises(RunReadError) as missing:
        read_run(tmp_path / "nope")
    assert "nope" in str(missing.value) and "\n" not in str(missing.value)
    (tmp_path / "file").write_text("x")
    with pytest.raises(RunReadError):
        read_run(tmp_path / "file")


def test_empty_directory_needs_run_info(tmp_path: Path) -> None:
    run = read_run(tmp_path)
    assert [(p.path, p.blocking) for p in run.problems] == [
        ("run_info.json", True),
        ("details", False),  # no details/ folder either: said, as for a run (issue 11)
    ]
    assert run.tasks == [] and run.entries == []


def _edit(path: Path, change) -> None:
    value = load(path)
    change(value)
    dump(path, value)


TOLERATED = {
    # AgentCompass reads only the index keys it needs: other task.json keys are ignored.
    "task_json_extra_key": lambda run: _edit(first_task(run) / "task.json", lambda v: v.update(note="hi")),
    # Empty optional namespaces are accepted (detail._is_empty_optional).
    "meta_namespaces_empty_values": lambda run: _edit(
        first_task(run) / "attempt-1" / "result.json", lambda v: v.update(meta={"benchmark": [], "harness": ""})
    ),
    # A folder the index does not name is not an attempt.
    "stray_attempt_folder": lambda run: shutil.copytree(
        first_task(run) / "attempt-1", first_task(run) / "attempt-2"
    ),
}


@pytest.mark.parametrize("name", sorted(TOLERATED))
def test_tolerated_variations_load_without_problems(name: str, copy_run) -> None:
    run_dir = copy_run(BASE_RUN)
    TOLERATED[name](run_dir)
    run = read_run(run_dir)
    assert run.problems == [] and len(run.tasks) == BASE_TASKS


def test_running_copy_whose_index_names_a_missing_result_skips_the_published_copy(copy_run) -> None:
    """has_task_result checks this folder's results against the index RunLayout finds first."""
    run_dir = copy_run(BASE_RUN)
    folder = first_task(run_dir)
    running = run_dir / "details" / "running" / folder.name
    shutil.copytree(folder, running)
    _edit(running / "task.json", lambda v: v["attempts"].update({"2": "attempt-2"}))
    run = read_run(run_dir)
    expected = (folder / "attempt-2" / "result.json").relative_to(run_dir).as_posix()
    assert [(p.path, p.blocking) for p in run.problems] == [(expected, False)]
    assert len(run.tasks) == BASE_TASKS - 1


@pytest.mark.parametrize("value", [[], {}, ["agentcompass.task.v3"], 3, None])
def test_unhashable_or_odd_schema_versions_are_problems(value: object, copy_run) -> None:
    run_dir = copy_run(BASE_RUN)
    path = first_task(run_dir) / "task.json"
    _edit(path, lambda v: v.update(schema_version=value))
    run = read_run(run_dir)
    assert [(p.path, p.blocking) for p in run.problems] == [(path.relative_to(run_dir).as_posix(), True)]
