"""Lazy loaders: payloads, checkpoints, retries, artifacts, text pages, progress and logs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from inspector.results.lazy import (
    list_artifact_files,
    list_legacy_retry_details,
    list_retry_records,
    read_analysis_summary,
    read_attempt_payload,
    read_checkpoint,
    read_progress,
    read_progress_events,
    read_retry_record,
    read_run_log_tail,
    read_text_page,
)
from inspector.results.problems import ResultFileError
from inspector.results.reader import read_run

from .helpers import dump, load

RETRIED = "chat_v1_8--8a15af6cc3b82ed34069a81787d5429a70f4db78db32a14c1486c5db0ea0cd28"


def retried_entry(run):
    return next(entry for entry in run.entries if entry.name == RETRIED)


def test_attempt_payload_and_checkpoint(copy_run) -> None:
    run_dir = copy_run("e2e_k1_micro")
    run = read_run(run_dir)
    entry = retried_entry(run)
    attempt_dir = run_dir / entry.attempt_dirs[1]
    assert read_attempt_payload(run, entry, 1) == load(attempt_dir / "result.json")
    assert read_checkpoint(run, entry, 1) == load(attempt_dir / "checkpoint.json")
    (attempt_dir / "checkpoint.json").unlink()
    assert read_checkpoint(run, entry, 1) is None
    dump(attempt_dir / "checkpoint.json", {"schema_version": "something.else"})
    with pytest.raises(ResultFileError) as error:
        read_checkpoint(run, entry, 1)
    assert error.value.problem.path == f"{entry.attempt_dirs[1]}/checkpoint.json"


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
    assert (record.attempt, record.retry, record.max_retries) == (raw["attempt"], raw["retry"], raw["max_retries"])
    assert (record.stage, record.scope, record.matched_pattern) == (raw["stage"], raw["scope"], raw["matched_pattern"])
    assert [(i.severity, i.code) for i in record.issues] == [(i["severity"], i["code"]) for i in raw["issues"]]
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
    with pytest.raises(ResultFileError) as error:
        read_text_page(run, f"{base}/escape/key")
    assert "outside the run directory" in error.value.problem.message


def test_text_pages_cut_at_character_boundaries(copy_run) -> None:
    run_dir = copy_run("e2e_k1_micro")
    run = read_run(run_dir)
    text = "ab" + "é" * 10 + "汉字" * 5 + "end"
    (run_dir / "run.log").write_text(text, encoding="utf-8")
    pieces, offset = [], 0
    while True:
        page = read_text_page(run, "run.log", offset, size=5)
        assert "\ufffd" not in page.text
        pieces.append(page.text)
        offset = page.next_offset
        if page.at_end:
            break
    assert "".join(pieces) == text
    assert page.total_bytes == len(text.encode())


def test_run_log_tail_progress_and_analysis(copy_run) -> None:
    run_dir = copy_run("e2e_k1_micro")
    run = read_run(run_dir)
    assert read_run_log_tail(run) == [] and read_progress(run) is None and read_progress_events(run) == []
    summary = read_analysis_summary(run)
    assert (summary.data, summary.markdown) == (None, None)

    lines = [f"12:00:{n:02d} INFO runner line {n}" for n in range(50)]
    (run_dir / "run.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert read_run_log_tail(run, max_lines=3) == lines[-3:]
    dump(run_dir / "progress.json", {"status": "running", "total_tasks": 10})
    (run_dir / "progress.jsonl").write_text('{"event": "a"}\nnot json\n{"event": "b"}\n', encoding="utf-8")
    assert read_progress(run) == {"status": "running", "total_tasks": 10}
    assert [event["event"] for event in read_progress_events(run)] == ["a", "b"]
    dump(run_dir / "analysis_summary.json", {"overall": []})
    (run_dir / "analysis_summary.md").write_text("# Analysis\n", encoding="utf-8")
    summary = read_analysis_summary(run)
    assert (summary.data, summary.markdown) == ({"overall": []}, "# Analysis\n")


def test_legacy_retry_details_listed(copy_run) -> None:
    run_dir = copy_run("e2e_k1_micro")
    (run_dir / "retry_details").mkdir()
    dump(run_dir / "retry_details" / "x.json", {})
    run = read_run(run_dir)
    assert list_legacy_retry_details(run) == ["retry_details/x.json"]
    shutil.rmtree(run_dir / "retry_details")
    assert list_legacy_retry_details(run) == []
