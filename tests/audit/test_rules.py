"""Benchmark rules named where their values are shown, and the report's extra (issue 37 item 7)."""

from __future__ import annotations

from inspector.engine.model import Attempt, Issue
from inspector.views.rules import benchmark_rules, series_rules, timeout_fallback

from .helpers import FIXTURE_RUNS, RUNS, session

TIMEOUT = Issue("error", "evaluate", "evaluate_failed", "PhaseTimeoutError: evaluate timed out")


def _run(name: str):  # type: ignore[no-untyped-def]
    return session(next(p for p in RUNS if p.name == name)).recomputation


def test_timeout_fallback_needs_the_evaluate_error_and_the_declared_values() -> None:
    fell_back = Attempt(1, "eval_error", {"correct": False, "reward": 0.0}, (TIMEOUT,))
    assert "deepswe's evaluation_timeout_metrics" in (timeout_fallback("deepswe", fell_back) or "")
    assert "correct = false, reward = 0.0" in (timeout_fallback("deepswe", fell_back) or "")
    # a verifier's own 0 (no evaluate ERROR), a value other than the fallback, a bool for a
    # float, or a benchmark that declares no fallback: not the rule
    assert timeout_fallback("deepswe", Attempt(1, "completed", fell_back.metrics)) is None
    other = Attempt(1, "eval_error", {"correct": False, "reward": 0.5}, (TIMEOUT,))
    assert timeout_fallback("deepswe", other) is None
    typed = Attempt(1, "eval_error", {"correct": False, "reward": 0}, (TIMEOUT,))
    assert timeout_fallback("deepswe", typed) is None
    crashed = Issue("error", "evaluate", "evaluate_failed", "RuntimeError: grader crashed")
    assert (
        timeout_fallback("deepswe", Attempt(1, "eval_error", fell_back.metrics, (crashed,))) is None
    )
    assert timeout_fallback("taubench", fell_back) is None


def test_deepswe_task_values_name_the_timeout_fallback() -> None:
    rec = _run("syn_deepswe_eval_timeout_k1")
    # owner__repo-103 and -201 timed out in evaluation; -203's run failed (no fallback)
    for task_id in ("owner__repo-103", "owner__repo-201"):
        rules = series_rules(rec, task_id)
        assert set(rules) == {"correct.native@1", "reward.native@1"}, task_id
        assert rules["correct.native@1"].startswith("correct = false in attempt 1 is deepswe's")
    assert series_rules(rec, "owner__repo-203") == {}
    assert series_rules(rec, "owner__repo-101") == {}


def test_deepswe_plan_rows_name_the_rule_and_the_report_extra() -> None:
    rows = {r.key: r for r in benchmark_rules(_run("syn_deepswe_eval_timeout_k1"))}
    # two attempts (owner__repo-103, -201) hold the fallback's values
    assert rows["eval timeout"].value == "correct = false, reward = 0.0 in 2 attempts"
    assert "evaluation_timeout_metrics" in rows["eval timeout"].source
    # report.extra as metrics.json holds it
    assert rows["dataset_revision"].value == "0b9fabbb63b9104d678fe965e1632f2dd9eaa2ea"
    assert rows["benchmark_version"].value == "v1.1"


def test_scicode_ratio_of_sums_is_named() -> None:
    rec = _run("syn_scicode_ratio_k1_category_mean")
    rows = {r.key: r for r in benchmark_rules(rec)}
    formula = rows["subproblem_correctness.native@1"]
    assert formula.value.startswith("Σ subproblem_correct ÷ Σ subproblem_total")
    assert formula.source == "scicode's corpus formula"
    assert "eval timeout" not in rows  # scicode declares no fallback
    # terminal_bench_2 declares {correct: false}; k3_avg_hierarchy's one evaluate watchdog
    # attempt (qemu-startup, "PhaseTimeoutError: evaluate phase exceeded 900.0s") holds it
    hierarchy = session(FIXTURE_RUNS / "k3_avg_hierarchy").recomputation
    assert hierarchy.plan.benchmark_id == "terminal_bench_2"
    (row,) = benchmark_rules(hierarchy)
    assert (row.key, row.value) == ("eval timeout", "correct = false in 1 attempt")
    assert list(series_rules(hierarchy, "qemu-startup")) == ["correct.avg@3", "correct.pass@3"]
    rules = series_rules(rec, "4")
    assert list(rules) == ["subproblem_correctness.native@1"]
    assert "ratio of sums" in rules["subproblem_correctness.native@1"]
