"""Plan resolution (spec Appendix A; §10 items 43, 48): what a run does not record."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.engine.errors import ObservationError, PlanError
from inspector.engine.recomputation import recompute
from inspector.engine.report import dumps_metrics_json
from inspector.resolve import Overrides, benchmark_params, contract_from_stored, resolve_plan

from .conftest import BINARY_ONLY, report_of, task

T, F = True, False


def _run_info(benchmark: str = "demo", params: Any = None, attempts: Any = None) -> dict:
    bench: dict[str, Any] = {"id": benchmark}
    if params is not None:
        bench["params"] = params
    request: dict[str, Any] = {"benchmark": bench, "model": {"id": "m-1"}}
    if attempts is not None:
        request["execution"] = {"attempts": attempts}
    return {"schema_version": "agentcompass.run_info.v3", "run_id": "r", "request": request}


def test_item_43_benchmark_params_prefer_the_request() -> None:
    params_json = {"benchmark": {"id": "demo", "params": {"aggregation_mode": "micro_weighted"}}}
    info = _run_info(params={"aggregation_mode": "category_mean"})
    assert benchmark_params(info, params_json) == {"aggregation_mode": "category_mean"}
    # params.json only when the request has no params dict
    assert benchmark_params(_run_info(), params_json) == {"aggregation_mode": "micro_weighted"}
    assert benchmark_params(_run_info(params={}), params_json) == {}


def test_plan_defaults_and_strategy_lowercasing() -> None:
    plan = resolve_plan(_run_info(), None, None, [])
    assert (plan.k, plan.strategy, plan.aggregation, plan.hierarchy) == (
        1,
        "avg",
        "micro_weighted",
        None,
    )
    plan = resolve_plan(_run_info(attempts={"k": 3, "strategy": "PASS"}), None, None, [])
    assert (plan.k, plan.strategy) == (3, "pass")
    assert plan.model_id == "m-1" and plan.benchmark_id == "demo"


def test_builtin_contract_by_benchmark_id() -> None:
    plan = resolve_plan(_run_info("scicode"), None, None, [])
    assert list(plan.contract.metrics) == [
        "correct",
        "subproblem_correctness",
        "subproblem_correct",
        "subproblem_total",
    ]


def test_screenspot_has_a_builtin_hierarchy_and_a_configured_one_wins() -> None:
    plan = resolve_plan(_run_info("screenspot"), None, None, [])
    assert plan.hierarchy is not None and set(plan.hierarchy) == {"overall"}
    tree = {"overall": {}}
    configured = resolve_plan(_run_info("screenspot", {"category_hierarchy": tree}), None, None, [])
    assert configured.hierarchy == tree


def test_appendix_a_contract_from_stored_metrics_and_attempts() -> None:
    # k=3 pass: metrics.json shows only the primary; the rest comes from the attempts.
    stored = {
        "k": 3,
        "strategy": "pass",
        "series": [
            {
                "series_id": "correct.pass@3",
                "metric_id": "correct",
                "kind": "binary_success",
                "role": "headline",
                "aggregation": "micro_weighted",
                "display": {"label": "Resolved", "precision": 2, "unit": None, "description": None},
            },
            {
                "series_id": "avg_citations.pass@3",
                "metric_id": "avg_citations",
                "kind": "scalar",
                "role": "auxiliary",
                "aggregation": "ratio_of_sums",
                "display": {"label": "Average Citations"},
            },
        ],
    }
    tasks = [
        task("a", {"correct": F, "reward": 1}, {"correct": T, "ok": T}, k=3, strategy="pass"),
    ]
    contract = contract_from_stored(stored, tasks)
    assert list(contract.metrics) == ["correct", "reward", "ok"]
    assert contract.primary_id == "correct"
    assert contract.label("correct") == "Resolved"
    assert contract.metrics["correct"].display.precision == 2
    assert contract.metrics["reward"].kind == "scalar"
    assert contract.metrics["ok"].kind == "binary_success"


def test_recompute_with_a_resolved_plan_matches_hand_values() -> None:
    tasks = [task("a", {"correct": T}, category="x"), task("b", {"correct": F}, category="y")]
    info = _run_info(params={"aggregation_mode": "category_mean"})
    plan = resolve_plan(info, None, None, tasks)
    report = recompute(tasks, plan).report
    assert report.aggregation == "category_mean"
    assert report.series[0].value == 0.5


def test_overrides_replace_the_stored_plan() -> None:
    tasks = [task("a", {"correct": T}, {"correct": F}, strategy="avg")]
    plan = resolve_plan(
        _run_info(attempts={"k": 1, "strategy": "avg"}), None, None, tasks, Overrides(k=2)
    )
    assert plan.k == 2 and plan.sources["k"] == "--k"
    assert recompute(tasks, plan).report.series[0].value == 0.5


def test_item_48_an_attempt_metric_missing_from_the_contract_fails() -> None:
    tasks = [task("a", {"correct": T, "surprise": 0.5})]
    with pytest.raises(ObservationError, match="surprise"):
        report_of(tasks, contract=BINARY_ONLY)


def test_item_48_inferred_contract_scores_like_the_declared_one() -> None:
    tasks = [task("a", {"correct": T}), task("b", {"correct": F})]
    inferred = resolve_plan(_run_info(), None, None, tasks)
    assert inferred.contract.primary_id == "correct"
    assert dumps_metrics_json(recompute(tasks, inferred).report) == dumps_metrics_json(
        report_of(tasks, contract=BINARY_ONLY)
    )


def _stored(k: int, strategy: str) -> dict[str, Any]:
    reducer = "native" if k == 1 else "pass"
    return {
        "k": k,
        "strategy": strategy,
        "series": [
            {
                "series_id": f"correct.{reducer}@{k}",
                "metric_id": "correct",
                "kind": "binary_success",
                "role": "headline",
                "aggregation": "micro_weighted",
                "display": {"label": "Correct"},
            }
        ],
    }


def test_appendix_a_attempt_metrics_join_the_contract_only_for_pass_at_k_reports() -> None:
    # Found by the oracle differential: at k=1 (and under avg) metrics.json lists every
    # declared metric, so an attempt metric it does not list is undeclared and AgentCompass
    # refuses the run (UnknownMetricError); only a pass@k>1 report hides the auxiliaries.
    k1 = [task("a", {"correct": T, "surprise": 0.5})]
    assert list(contract_from_stored(_stored(1, "avg"), k1).metrics) == ["correct"]
    plan = resolve_plan(_run_info(), None, _stored(1, "avg"), k1)
    with pytest.raises(ObservationError, match="surprise"):
        recompute(k1, plan)
    k3 = [task("a", {"correct": F, "surprise": 0.5}, {"correct": T}, k=3, strategy="pass")]
    assert list(contract_from_stored(_stored(3, "pass"), k3).metrics) == ["correct", "surprise"]


def test_stored_aggregation_mode_is_taken_literally() -> None:
    # AgentCompass's AggregationMode(value) neither strips nor lowercases: it refuses the run.
    for mode in ("Category_Mean", " category_mean"):
        with pytest.raises(PlanError):
            resolve_plan(_run_info(params={"aggregation_mode": mode}), None, None, [])
    # a user's --aggregation may be spelled loosely
    plan = resolve_plan(_run_info(), None, None, [], Overrides(aggregation=" Category_Mean"))
    assert plan.aggregation == "category_mean"
