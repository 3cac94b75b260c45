"""Issue attribution (severity × phase × code) and retries by stage, scope and pattern."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from inspector.views.attribution import (
    RETRY_NOTE_NO_RECORDS,
    issue_table,
    load_retry_records,
    retry_summary,
)

from .helpers import RUNS, attempt, issue, load, rescore, session, task, task_folders


def test_hand_built_issue_table() -> None:
    rec = rescore([
        task("t1", [attempt(1, {"correct": True}, issue("warning", "cleanup", "release"))]),
        task("t2", [attempt(1, {"correct": False}, issue("error", "run", "model_timeout"))]),
        task("t3", [attempt(1, {}, issue("error", "run", "model_timeout"))]),
        task("t4", [attempt(1, {"correct": True}, issue("fatal", "setup", "setup_failed"),
                            issue("error", "run", "model_timeout"))]),
    ])  # fmt: skip
    rows = {(r.severity, r.phase, r.code): r for r in issue_table(rec)}
    assert list(rows) == [
        ("fatal", "setup", "setup_failed"),
        ("error", "run", "model_timeout"),
        ("warning", "cleanup", "release"),
    ]
    fatal = rows[("fatal", "setup", "setup_failed")]
    assert fatal.attempts == (("t4", 1),)
    assert dict(fatal.pushed) == {"invalidated": ("t4",), "error": ("t4",)}
    timeout = rows[("error", "run", "model_timeout")]
    assert timeout.task_ids == ("t2", "t3", "t4")
    assert dict(timeout.pushed) == {
        "invalidated": ("t4",),  # its FATAL invalidated it anyway
        "error": ("t2", "t3", "t4"),
        "unavailable": ("t3",),  # no value: state error, counted in unavailable
        "evaluated": ("t2",),  # a value: evaluated and error at once
    }
    assert dict(rows[("warning", "cleanup", "release")].pushed) == {}


def _issues_on_disk(run: Path) -> Counter:
    """(severity, phase, code) -> attempts carrying it, read straight from result.json."""
    found: Counter = Counter()
    for folder, index in task_folders(run):
        for name in index["attempts"].values():
            payload = load(folder / name / "result.json")
            keys = {(i["severity"], i["phase"], i["code"]) for i in payload.get("issues") or []}
            found.update(keys)
    return found


def test_conformance_issue_counts_match_the_files() -> None:
    for name in (
        "e2e_k3_avg_category_mean",
        "e2e_k1_fatal_evaluation_failed",
        "syn_k1_binary_aux_micro",
    ):
        run = next(p for p in RUNS if p.name == name)
        rec = session(run).recomputation
        table = {(r.severity, r.phase, r.code): len(r.attempts) for r in issue_table(rec)}
        assert table == dict(_issues_on_disk(run)), name


def test_conformance_k3_avg_issue_rows() -> None:
    run = next(p for p in RUNS if p.name == "e2e_k3_avg_category_mean")
    rows = {(r.severity, r.phase, r.code): r for r in issue_table(session(run).recomputation)}
    failed = rows[("error", "run", "model_failed")]
    assert (len(failed.attempts), set(failed.task_ids)) == (4, {"chat_v1_6", "chat_v1_7"})
    evaluation = rows[("error", "evaluate", "evaluation_failed")]
    assert len(evaluation.attempts) == 5
    assert set(evaluation.pushed) == {"error", "evaluated"}


def test_retries_without_records() -> None:
    tasks = [
        task("t1", [attempt(1, {"correct": True})], k=3, retry_counts={1: 2, 2: 1}),
        task("t2", [attempt(1, {"correct": True})], k=3),
    ]
    summary = retry_summary(tasks)
    assert summary.total == 3
    assert summary.by_attempt == (("t1", 1, 2), ("t1", 2, 1))
    assert summary.retry_only == (("t1", 2),)
    assert summary.rows == () and not summary.records_read
    assert summary.notes == (RETRY_NOTE_NO_RECORDS,)


def test_retries_with_records_and_a_mismatch() -> None:
    tasks = [task("t1", [attempt(1, {"correct": True})], retry_counts={1: 2})]
    records = {"t1": [
        {"stage": "attempt", "scope": "attempt", "matched_pattern": "fatal", "attempt": 1},
        {"stage": "evaluate", "scope": "evaluate", "matched_pattern": "timed out", "attempt": 1},
        {"stage": "attempt", "scope": "attempt", "matched_pattern": "fatal", "attempt": 2},
    ]}  # fmt: skip
    summary = retry_summary(tasks, records)
    rows = [(r.stage, r.scope, r.matched_pattern, r.records, r.attempts) for r in summary.rows]
    assert rows == [
        ("attempt", "attempt", "fatal", 2, (("t1", 1), ("t1", 2))),
        ("evaluate", "evaluate", "timed out", 1, (("t1", 1),)),
    ]
    assert summary.notes == ("t1 attempt 2: retry_count 0 but 1 retry records",)


def test_conformance_retry_records_read_from_disk() -> None:
    run = next(p for p in RUNS if p.name == "e2e_k1_micro")
    rec = session(run).recomputation
    records: dict[str, list] = {}
    for folder, index in task_folders(run):
        for path in sorted(folder.glob("attempt-*/retries/*.json")):
            records.setdefault(index["task_id"], []).append(load(path))
    summary = retry_summary(rec.tasks, records)
    assert [(r.stage, r.scope, r.matched_pattern, r.task_ids) for r in summary.rows] == [
        ("attempt", "attempt", "fatal", ("chat_v1_8",)),
    ]
    assert summary.total == 1 and summary.notes == ()


def test_retry_records_through_the_readers_lazy_loader() -> None:
    for name in ("e2e_k1_micro", "e2e_k1_fatal_evaluation_failed", "e2e_k3_pass_hierarchy"):
        run = next(p for p in RUNS if p.name == name)
        s = session(run)
        by_loader = retry_summary(
            s.recomputation.tasks, load_retry_records(s.run, s.recomputation.tasks)
        )
        on_disk: dict[str, list] = {}
        for folder, index in task_folders(run):
            for path in sorted(folder.glob("attempt-*/retries/*.json")):
                on_disk.setdefault(index["task_id"], []).append(load(path))
        by_hand = retry_summary(s.recomputation.tasks, on_disk)
        assert by_loader.records_read and by_loader.rows == by_hand.rows, name
        assert by_loader.notes == by_hand.notes == (), name
        assert sum(r.records for r in by_loader.rows) == by_loader.total, name
