"""Task directory names (spec §1.4), purity of the package, and what the reader keeps."""

from __future__ import annotations

import contextlib
import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.engine.model import Attempt, TaskRecord
from inspector.results.layout import task_directory_name
from inspector.results.lazy import read_attempt_payload
from inspector.results.reader import read_run

from .helpers import (
    BASE_RUN,
    RUN_NAMES,
    conformance_run,
    dump,
    first_task,
    load,
    tree_fingerprint,
)

REPO = Path(__file__).resolve().parents[2]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize(
    ("task_id", "readable"),
    [
        ("math/1", "math_1"),
        ("geo 3", "geo_3"),
        ("astropy__astropy-12907", "astropy__astropy-12907"),
        ("repo/issue#12 (ünïcode)", "repo_issue_12_n_code"),
        ("..--x--..", "x"),
        ("///", "task"),
        ("a=b.c", "a=b.c"),
        ("x" * 100, "x" * 80),
    ],
)
def test_task_directory_name(task_id: str, readable: str) -> None:
    assert task_directory_name(task_id) == f"{readable}--{sha(task_id)}"


def test_spec_example_prefix_and_suffix() -> None:
    name = task_directory_name("math/1")
    assert name.startswith("math_1--8e4524c3") and name.endswith("4352")


@pytest.mark.parametrize("bad", ["", " ", " a", "a ", "\ta", None, 7])
def test_task_directory_name_rejects(bad: object) -> None:
    with pytest.raises(ValueError):
        task_directory_name(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", RUN_NAMES)
def test_every_conformance_folder_is_named_by_its_task_id(name: str) -> None:
    for task_json in conformance_run(name).glob("details/**/task.json"):
        assert task_json.parent.name == task_directory_name(load(task_json)["task_id"])


def test_package_imports_neither_textual_nor_rich() -> None:
    code = (
        "import sys, inspector.results, inspector.results.lazy, inspector.results.discover;"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'));"
        "print(','.join(bad))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert proc.stdout.strip() == ""


def test_reading_changes_nothing_under_the_run(copy_run) -> None:
    from inspector.results import discover, lazy, problems, reader, stream

    run_dir = copy_run("e2e_k1_micro")
    # A live-looking running task and a broken file are read too.
    running = run_dir / "details" / "running" / "late--00"
    (running / "attempt-1").mkdir(parents=True)
    dump(running / "task.json", {"schema_version": "agentcompass.task.v3", "task_id": "late", "attempts": {}})
    (first_task(run_dir, "error") / "attempt-1" / "result.json").write_bytes(b"{")
    before = tree_fingerprint(run_dir)

    run = reader.read_run(run_dir)
    for entry in run.entries:
        for index in entry.attempt_dirs:
            for call in (lazy.read_attempt_payload, lazy.list_artifact_files):
                with contextlib.suppress(problems.ResultFileError):
                    call(run, entry, index)
            with contextlib.suppress(problems.ResultFileError, stream.NotStreamable):
                stream.open_streamed(run.path, f"{lazy.attempt_dir(entry, index)}/result.json")
            for record in lazy.list_retry_records(run, entry, index):
                lazy.read_retry_record(run, record.path)
    discover.find_runs(run_dir.parent)

    assert tree_fingerprint(run_dir) == before


def test_trajectory_is_not_kept_in_the_record(copy_run) -> None:
    run_dir = copy_run(BASE_RUN)
    path = first_task(run_dir) / "attempt-1" / "result.json"
    marker = "TRAJECTORY-MARKER-" + "x" * 1000
    payload = load(path)
    payload["trajectory"] = {"schema_version": "ACTF_v1.0", "steps": [{"step_id": 0, "observation": marker}]}
    payload["artifacts"] = {"execution_diagnostics": marker, "gdpval_ac_delivered": True, "other": marker}
    payload["meta"] = {"benchmark": {"eval_raw_data": marker}, "harness": {}}
    payload["final_answer"] = marker
    dump(path, payload)

    run = read_run(run_dir)
    assert run.problems == []
    record = next(task for task in run.tasks if task.source == f"{path.parent.parent.relative_to(run_dir).as_posix()}/task.json")
    assert isinstance(record, TaskRecord) and isinstance(record.attempts[1], Attempt)
    assert marker not in repr(run.tasks) and marker not in repr(run.entries)
    assert dict(record.attempts[1].scoring_artifacts) == {"gdpval_ac_delivered": True}
    # The lazy loader still has everything.
    entry = run.entry_for(record.task_id)
    assert entry is not None
    assert read_attempt_payload(run, entry, 1)["trajectory"]["steps"][0]["observation"] == marker


def test_status_is_kept_stripped_and_category_empty_values_become_none(copy_run) -> None:
    run_dir = copy_run(BASE_RUN)
    folder = first_task(run_dir)
    payload = load(folder / "attempt-1" / "result.json")
    payload["status"] = " skipped "
    dump(folder / "attempt-1" / "result.json", payload)
    index = load(folder / "task.json")
    index["category"] = ""
    index["attempt_plan"]["strategy"] = " AVG "
    dump(folder / "task.json", index)
    run = read_run(run_dir)
    assert run.problems == []
    task = next(task for task in run.tasks if task.task_id == index["task_id"])
    assert (task.attempts[1].status, task.category, task.plan_strategy) == ("skipped", None, "avg")


def test_huge_integer_metric_stays_an_exact_integer(copy_run) -> None:
    run_dir = copy_run(BASE_RUN)
    path = first_task(run_dir) / "attempt-1" / "result.json"
    payload = load(path)
    payload["metrics"]["tokens"] = 10**30 + 1
    dump(path, payload)
    run = read_run(run_dir)
    task = next(task for task in run.tasks if task.source.startswith(path.parent.parent.relative_to(run_dir).as_posix()))
    assert task.attempts[1].metrics["tokens"] == 10**30 + 1
