"""Lazy loaders: payloads, retries and artifacts."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.results.lazy import (
    list_artifact_files,
    list_retry_records,
    read_attempt_payload,
    read_retry_record,
)
from inspector.results.problems import ResultFileError
from inspector.results.reader import read_run
from inspector.views.documents import FileDocument

from .helpers import dump, load

RETRIED = "chat_v1_8--8a15af6cc3b82ed34069a81787d5429a70f4db78db32a14c1486c5db0ea0cd28"


def retried_entry(run):
    return next(entry for entry in run.entries if entry.name == RETRIED)


def test_attempt_payload(copy_run) -> None:
    run_dir = copy_run("e2e_k1_micro")
    run = read_run(run_dir)
    entry = retried_entry(run)
    attempt_dir = run_dir / entry.attempt_dirs[1]
    assert read_attempt_payload(run, entry, 1) == load(attempt_dir / "result.json")


def test_unreadable_payload_raises_result_file_error(copy_run) -> None:
    run_dir = copy_run("e2e_k1_micro")
    run = read_run(run_dir)
    entry = retried_entry(run)
    (run_dir / entry.attempt_dirs[1] / "result.json").write_text("[1, 2", encoding="utf-8")
    with pytest.raises(ResultFileError) as error:
        read_attempt_payload(run, entry, 1)
    assert error.value.problem.path.endswith("attempt-1/result.json")
    with pytest.raises(ResultFileError):
        read_attempt_payload(run, entry, 2)  # no such attempt


def test_retry_records_and_archived_executions(copy_run) -> None:
    run_dir = copy_run("e2e_k1_micro")
    run = read_run(run_dir)
    entry = retried_entry(run)
    retries = run_dir / entry.attempt_dirs[1] / "retries"
    (record_file,) = retries.glob("*.json")
    raw = load(record_file)
    archive = retries / "9b1e0c55aa"
    (archive / "artifacts").mkdir(parents=True)
    dump(archive / "result.json", {"status": "run_error"})

    records = list_retry_records(run, entry)
    assert [record.kind for record in records] == ["record", "archive"]
    record, archived = records
    assert record.path == record_file.relative_to(run_dir).as_posix()
    assert (record.attempt, record.retry, record.max_retries) == (
        raw["attempt"],
        raw["retry"],
        raw["max_retries"],
    )
    assert (record.stage, record.scope, record.matched_pattern) == (
        raw["stage"],
        raw["scope"],
        raw["matched_pattern"],
    )
    assert [(i.severity, i.code) for i in record.issues] == [
        (i["severity"], i["code"]) for i in raw["issues"]
    ]
    assert read_retry_record(run, record.path) == raw
    assert archived.path == archive.relative_to(run_dir).as_posix()
    assert archived.files == ("result.json", "artifacts")
    assert list_retry_records(run, entry, 2) == []


def test_artifact_files_listed_links_not_followed(copy_run, tmp_path: Path) -> None:
    run_dir = copy_run("e2e_k1_micro")
    run = read_run(run_dir)
    entry = retried_entry(run)
    artifacts = run_dir / entry.attempt_dirs[1] / "artifacts"
    (artifacts / "testbed").mkdir(parents=True)
    (artifacts / "testbed" / "patch.diff").write_text("+x\n", encoding="utf-8")
    (artifacts / "a.txt").write_text("hello", encoding="utf-8")
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "key").write_text("k")
    (artifacts / "escape").symlink_to(outside, target_is_directory=True)
    files = list_artifact_files(run, entry, 1)
    base = artifacts.relative_to(run_dir).as_posix()
    assert [(f.path, f.size, f.is_link) for f in files if not f.is_link] == [
        (f"{base}/a.txt", 5, False),
        (f"{base}/testbed/patch.diff", 3, False),
    ]
    assert [f.path for f in files if f.is_link] == [f"{base}/escape"]
    with pytest.raises(ResultFileError) as error:  # the screens read artifact files so
        FileDocument("key", run_dir, f"{base}/escape/key")
    assert "outside the run directory" in error.value.problem.message
