"""The count ledger: exactly the tasks behind every count, each with a reason.

Ground truth for the conformance runs is AgentCompass's own ``metrics.json`` (read here as
plain JSON), not the engine's report; the small engine-level cases are counted by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.views.audit import (
    COUNTS,
    AuditError,
    Scope,
    task_filter,
    tasks_behind,
)

from .helpers import RUNS, attempt, issue, load, rescore, run_cli, scopes, session, task


def _stored_counts(run: Path) -> dict[tuple[str, Scope], dict[str, int]]:
    stored = load(run / "metrics.json")
    out = {}
    for series in stored["series"]:
        sid = series["series_id"]
        out[(sid, Scope())] = series["counts"]
        for key, part in series["categories"].items():
            out[(sid, Scope(category=key))] = part["counts"]
        for path, part in (series.get("hierarchy") or {}).items():
            out[(sid, Scope(node=path))] = part["counts"]
    return out


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_ledger_lists_exactly_the_stored_counts(run: Path) -> None:
    rec = session(run).recomputation
    assert rec is not None
    stored = _stored_counts(run)
    seen = set()
    every = (
        tasks_behind(rec, series.series_id, count, scope)
        for series in rec.report.series
        for scope in scopes(series)
        for count in COUNTS
    )
    for entry in every:
        expected = stored[(entry.series_id, entry.scope)][entry.count]
        assert len(entry.tasks) == expected, (entry.series_id, entry.scope, entry.count)
        assert entry.agrees
        seen.add((entry.series_id, entry.scope))
        for listed in entry.tasks:
            if listed.state != "evaluated" or listed.has_error:
                assert listed.reasons, (entry.series_id, entry.count, listed.task_id)
    # every series, category and hierarchy node of AgentCompass's report was covered
    assert seen == set(stored)


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_cli_tasks_lists_as_many_lines_as_each_count(run: Path) -> None:
    stored = load(run / "metrics.json")
    for series in stored["series"]:
        for count in COUNTS:
            code, out, err = run_cli(
                "tasks", str(run), "--series", series["series_id"], "--count", count,
                "--format", "jsonl",
            )  # fmt: skip
            assert code == 0, err
            lines = [json.loads(line) for line in out.splitlines()]
            assert len(lines) == series["counts"][count], (series["series_id"], count)
            for row in lines:
                assert row["series_id"] == series["series_id"]
                if row["state"] != "evaluated":
                    assert row["reasons"], row["task_id"]


def _five_tasks():
    return [
        task("t1", [attempt(1, {"correct": True}, issue("warning", "cleanup"))], "A"),
        task("t2", [attempt(1, {"correct": False}, issue("error", "evaluate"))], "A"),
        task("t3", [attempt(1, {}, issue("error", "run"))], "B"),
        task("t4", [attempt(1, {})], "B"),
        task("t5", [attempt(1, {"correct": True}, issue("fatal", "run"))], "C"),
    ]


def test_hand_counted_ledger_and_overlaps() -> None:
    rec = rescore(_five_tasks())
    ids = {c: tasks_behind(rec, None, c).task_ids for c in COUNTS}
    assert ids == {
        "total": ("t1", "t2", "t3", "t4", "t5"),
        "evaluated": ("t1", "t2"),
        "error": ("t2", "t3", "t5"),  # overlaps evaluated (t2) and includes invalidated (t5)
        "unavailable": ("t3", "t4"),  # state error (t3) plus state unavailable (t4)
        "invalidated": ("t5",),
    }
    unavailable = tasks_behind(rec, None, "unavailable")
    assert "1 in state error plus 1 in state unavailable" in unavailable.note
    error = tasks_behind(rec, None, "error")
    assert "1 evaluated, 1 in state error, 0 unavailable, 1 invalidated" in error.note
    codes = {t.task_id: [r.code for r in t.reasons] for t in tasks_behind(rec, None, "total").tasks}
    assert codes == {
        "t1": [],
        "t2": ["error_issue"],
        "t3": ["error_issue", "metric_not_observed"],
        "t4": ["metric_not_observed"],
        "t5": ["fatal_issue"],
    }


def test_state_filter_is_not_the_count() -> None:
    rec = rescore(_five_tasks())
    only_state = task_filter(rec, None, state="unavailable")
    assert [t.task_id for t in only_state] == ["t4"]
    assert [t.task_id for t in task_filter(rec, None, state="has_error")] == ["t2", "t3", "t5"]
    both = task_filter(rec, None, count="unavailable", state="error")
    assert [t.task_id for t in both] == ["t3"]


def test_category_and_node_scopes() -> None:
    tree = {"overall": {"aggregation": "unweighted", "children": {
        "g": {"aggregation": "unweighted", "children": {"A": {}, "B": {}}}}}}  # fmt: skip
    rec = rescore(_five_tasks(), hierarchy=tree)
    assert tasks_behind(rec, None, "unavailable", Scope(category="B")).task_ids == ("t3", "t4")
    node = tasks_behind(rec, None, "total", Scope(node="overall/g"))
    assert node.task_ids == ("t1", "t2", "t3", "t4")  # C is outside the tree
    assert node.reported == 4 and node.agrees
    series = rec.report.summary_series
    assert [s.label for s in scopes(series)][:4] == [
        "series", "category A", "category B", "category C",
    ]  # fmt: skip
    with pytest.raises(AuditError):
        tasks_behind(rec, None, "total", Scope(category="Z"))
    with pytest.raises(AuditError):
        tasks_behind(rec, None, "nonsense")


def test_conformance_error_tasks_that_were_evaluated() -> None:
    """e2e_k3_avg_category_mean: ERROR attempts that still carry values (README)."""
    run = next(p for p in RUNS if p.name == "e2e_k3_avg_category_mean")
    rec = session(run).recomputation
    entry = tasks_behind(rec, "correct.avg@3", "error")
    assert set(entry.task_ids) == {"chat_v1_6", "chat_v1_7", "code_v1_5"}
    assert all(t.state == "evaluated" for t in entry.tasks)
    assert all(r.code == "error_issue" for t in entry.tasks for r in t.reasons)


def test_conformance_pass_early_stop_reasons() -> None:
    run = next(p for p in RUNS if p.name == "syn_k3_pass_early_stop")
    rec = session(run).recomputation
    tasks = {t.task_id: t for t in tasks_behind(rec, None, "error").tasks}
    codes = {tid: {r.code for r in t.reasons} for tid, t in tasks.items()}
    # retry-only attempt, never credited as an early stop
    assert {"missing_attempts", "retry_only_attempts", "early_stop_not_credited"} <= codes["p-10"]
    unavailable = tasks_behind(rec, None, "unavailable")
    assert all(t.state == "error" for t in unavailable.tasks)


def test_cli_tasks_table_and_errors(tmp_path: Path) -> None:
    run = next(p for p in RUNS if p.name == "e2e_k1_fatal_evaluation_failed")
    code, out, _ = run_cli("tasks", str(run), "--count", "invalidated")
    assert code == 0
    assert out.splitlines()[0] == "correct.native@1 · count invalidated = 1"
    assert "chat_v2fatal_10" in out and "fatal" in out
    code, out, _ = run_cli("tasks", str(run), "--series", "all", "--format", "csv")
    assert code == 0
    assert out.splitlines()[0].startswith("series_id,task_id,category,state,has_error,value")
    assert len(out.splitlines()) == 1 + 11
    code, _, err = run_cli("tasks", str(run), "--series", "nope.native@1")
    assert code == 2 and "no series 'nope.native@1'" in err
    code, _, err = run_cli("tasks", str(tmp_path / "missing"))
    assert code == 2


def test_cli_tasks_what_if_plan() -> None:
    run = next(p for p in RUNS if p.name == "e2e_k3_avg_category_mean")
    code, out, _ = run_cli("tasks", str(run), "--k", "1", "--count", "total", "--format", "jsonl")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert {r["series_id"] for r in rows} == {"correct.native@1"}
    assert len(rows) == 10
