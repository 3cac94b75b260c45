"""Corpus formulas layered after reduction: ratio, sum, benchmark series (spec §7.3; §10 items 25–29)."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.engine.benchmarks import builtin_contract
from inspector.engine.corpus import AggregationContext
from inspector.engine.errors import ReportValidationError
from inspector.engine.report import validate_report

from .conftest import BINARY_ONLY, BINARY_REWARD, ERROR, FATAL, attempt, report_of, run, task

T, F = True, False
SCICODE = builtin_contract("scicode")
GDPVAL = builtin_contract("gdpval_ac")
DEEPRESEARCH = builtin_contract("deepresearch_bench")
RATIO = "subproblem_correctness.native@1"


def _sci(correct: int, total: int, **extra: Any) -> dict[str, Any]:
    return {
        "correct": correct == total,
        "subproblem_correct": correct,
        "subproblem_total": total,
        **extra,
    }


def _scicode(tasks: list, **plan: Any):
    return report_of(tasks, contract=SCICODE, benchmark_id="scicode", **plan)


SCICODE_TASKS = [
    task("1", _sci(2, 2), category="A"),
    task("2", _sci(1, 3), category="A"),
    task("3", _sci(0, 0), category="B"),
]


def test_item_25_ratio_of_sums_micro() -> None:
    ratio = _scicode(SCICODE_TASKS).series_by_id(RATIO)
    assert ratio.value == 0.6  # (2 + 1 + 0) / (2 + 3 + 0)
    assert (ratio.categories["A"].value, ratio.categories["A"].aggregation_weight) == (0.6, 5.0)
    # a category with evaluated tasks and Σden = 0 is 0.0, not null
    assert (ratio.categories["B"].value, ratio.categories["B"].aggregation_weight) == (0.0, 0.0)
    assert ratio.kind == "scalar" and ratio.aggregation == "ratio_of_sums"
    assert ratio.role == "auxiliary"  # the existing subproblem_correctness series is auxiliary
    assert ratio.display is not None and ratio.display.label == "Subproblem Resolve Rate"
    assert dict(ratio.extra) == {
        "numerator_metric": "subproblem_correct",
        "denominator_metric": "subproblem_total",
        "numerator_total": 3.0,
        "denominator_total": 5.0,
    }


def test_item_25_ratio_of_sums_category_mean() -> None:
    ratio = _scicode(SCICODE_TASKS, aggregation="category_mean").series_by_id(RATIO)
    assert ratio.value == 0.3  # mean of the category ratios 0.6 and 0.0


def test_item_25_run_ratio_is_zero_when_the_denominator_is_zero() -> None:
    assert _scicode(SCICODE_TASKS[2:]).series_by_id(RATIO).value == 0.0


def test_item_25_run_ratio_is_null_only_without_evaluated_tasks() -> None:
    tasks = [task("1", {"correct": T, "subproblem_correct": 1}, category="A")]
    ratio = _scicode(tasks).series_by_id(RATIO)
    assert ratio.value is None
    assert ratio.categories["A"].value is None
    assert ratio.counts.unavailable == 1


def test_item_25_ratio_task_states() -> None:
    tasks = [
        task("ok", _sci(1, 2), category="A"),
        # numerator evaluated, denominator error → error
        task(
            "err", attempt(1, {"correct": F, "subproblem_correct": 1}, issues=[ERROR]), category="A"
        ),
        # numerator evaluated, denominator unavailable → unavailable
        task("unav", {"correct": F, "subproblem_correct": 0}, category="A"),
        task("fatal", attempt(1, _sci(1, 1), issues=[FATAL]), category="A"),
    ]
    report = _scicode(tasks)
    ratio = report.series_by_id(RATIO)
    assert ratio.counts.to_json() == {
        "total": 4,
        "evaluated": 1,
        "error": 2,  # err and fatal
        "unavailable": 2,
        "invalidated": 1,
    }
    assert report.evaluation_failed
    assert (ratio.value, ratio.reference_value) == (None, 0.5)


def test_item_25_respect_false_keeps_hierarchy_but_ignores_it() -> None:
    tasks = [
        task("1", {"citations_supported": 1, "citations_checked": 1}, category="A"),
        task("2", {"citations_supported": 1, "citations_checked": 3}, category="B"),
    ]
    tree = {"overall": {"aggregation": "unweighted", "children": {"A": {}, "B": {}}}}
    report = report_of(
        tasks, contract=DEEPRESEARCH, hierarchy=tree, benchmark_id="deepresearch_bench"
    )
    accuracy = report.series_by_id("citation_accuracy.native@1")
    assert accuracy.aggregation == "ratio_of_sums"
    assert accuracy.value == 0.5  # (1 + 1) / (1 + 3)
    assert accuracy.hierarchy["overall"].value == (1.0 / 2 + (1 / 3) / 2)
    assert report.aggregation == "category_hierarchy"
    # derived ids that are not in the contract are appended as auxiliary series
    ids = [s.series_id for s in report.series]
    assert ids[-2:] == ["avg_citations.native@1", "avg_effective_citations.native@1"]


def test_item_25_deepresearch_without_fact_has_no_ratio_series() -> None:
    tasks = [task("1", {"score": 0.5, "citations_supported": 1, "citations_checked": 2})]
    report = report_of(
        tasks,
        contract=DEEPRESEARCH,
        benchmark_id="deepresearch_bench",
        benchmark_params={"metrics": ["race"]},
    )
    assert all(s.aggregation == "micro_weighted" for s in report.series)


def test_item_26_ratio_reducers_follow_the_numerator_series() -> None:
    tasks = [task("1", _sci(1, 2), _sci(2, 2), _sci(0, 2), k=3, strategy="pass")]
    report = report_of(tasks, 3, "pass", SCICODE, benchmark_id="scicode")
    assert [s.series_id for s in report.series] == ["correct.pass@3"]


def test_item_26_scicode_ratio_under_avg_k3() -> None:
    tasks = [task("1", _sci(1, 2), _sci(2, 2), _sci(0, 2), category="A")]
    report = report_of(tasks, 3, "avg", SCICODE, benchmark_id="scicode")
    ratio = report.series_by_id("subproblem_correctness.avg@3")
    # numerator avg@3 = 1.0, denominator avg@3 = 2.0
    assert ratio.value == 0.5
    assert "subproblem_correctness.pass@3" not in {s.series_id for s in report.series}


def _context(tasks: list, **plan: Any) -> AggregationContext:
    result = run(tasks, **plan)
    return AggregationContext(result.tasks, result.report, result.reductions, result.root)


def test_item_26_binary_numerator_under_avg_k_gt_1_fails() -> None:
    ctx = _context(
        [task("1", {"correct": T, "reward": 1.0}, {"correct": F, "reward": 2.0})],
        k=2,
        contract=BINARY_REWARD,
    )
    with pytest.raises(KeyError):
        ctx.replace_with_ratio_of_sums(
            output_metric="ratio",
            numerator_metric="correct",
            denominator_metric="reward",
            label="R",
        )


GDPVAL_TASKS = [
    task("a1", {"score": 0.5, "total_score": 2, "max_possible_score": 4}, category="A"),
    task("a2", {"score": 0.5, "total_score": 3, "max_possible_score": 6}, category="A"),
    task("b1", {"score": 1.0, "total_score": 4, "max_possible_score": 4}, category="B"),
]
GDPVAL_TREE = {"overall": {"aggregation": "weighted_by_count", "children": {"A": {}, "B": {}}}}


def test_item_27_replace_with_sum() -> None:
    report = report_of(
        GDPVAL_TASKS, contract=GDPVAL, benchmark_id="gdpval_ac", hierarchy=GDPVAL_TREE
    )
    total = report.series_by_id("total_score.native@1")
    assert total.aggregation == "sum"
    assert total.value == 9.0
    assert (total.categories["A"].value, total.categories["A"].aggregation_weight) == (5.0, 2.0)
    assert (total.categories["B"].value, total.categories["B"].aggregation_weight) == (4.0, 1.0)
    # "sum" at every internal node, whatever its declared aggregation
    assert total.hierarchy["overall"].value == 9.0
    assert (total.kind, total.role) == ("scalar", "auxiliary")
    assert total.extra["summed_tasks"] == 3
    assert total.display is not None and total.display.label == "Total Score"
    assert report.series_by_id("max_possible_score.native@1").value == 14.0


def test_item_27_sum_copies_category_counts_from_the_template() -> None:
    tasks = [
        *GDPVAL_TASKS,
        task("a3", attempt(1, {"score": 0.0}, issues=[ERROR]), category="A"),
    ]
    report = report_of(tasks, contract=GDPVAL, benchmark_id="gdpval_ac")
    total = report.series_by_id("total_score.native@1")
    # the template is the standard total_score series: a3 is unavailable and error there
    assert total.categories["A"].counts.to_json() == {
        "total": 3,
        "evaluated": 2,
        "error": 1,
        "unavailable": 1,
        "invalidated": 0,
    }


def test_item_27_binary_sum_above_one_fails_validation() -> None:
    ctx = _context([task("1", {"correct": T}), task("2", {"correct": T})], contract=BINARY_ONLY)
    ctx.replace_with_sum(metric_id="correct", label="Solved")
    report = ctx.build()
    assert report.series[0].kind == "binary_success"
    assert report.series[0].role == "headline"
    assert report.series[0].value == 2.0
    with pytest.raises(ReportValidationError):
        validate_report(report)


def test_item_28_append_benchmark_series_stores_the_given_value() -> None:
    ctx = _context(
        [
            task("a", {"score": 0.0}, category="X"),
            task("b", {"score": 0.0}, category="X"),
            task("c", {"score": 0.0}, category="Y"),
        ],
        contract=builtin_contract("osworld"),
    )
    ctx.append_benchmark_series(
        metric_id="medal",
        reducer="native",
        value=0.123,
        template_metric="score",
        label="Medal",
        task_values={"a": 0.2, "b": 0.4, "unknown": 9.0},
        extra={"source": "csv"},
    )
    report = ctx.build()
    validate_report(report)
    medal = report.series_by_id("medal.native@1")
    assert medal.value == 0.123
    assert medal.categories["X"].value == 0.2 / 2 + 0.4 / 2
    assert medal.categories["Y"].value is None
    assert medal.counts.total == 3  # "unknown" is dropped
    assert medal.counts.evaluated == 2
    assert (medal.aggregation, medal.role, medal.kind) == ("benchmark", "auxiliary", "scalar")
    assert dict(medal.extra) == {"source": "csv"}


def test_item_29_ratio_keeps_the_role_of_the_series_it_replaces() -> None:
    report = report_of(
        GDPVAL_TASKS, contract=GDPVAL, benchmark_id="gdpval_ac", hierarchy=GDPVAL_TREE
    )
    score = report.series_by_id("score.native@1")
    assert (score.role, score.aggregation) == ("headline", "ratio_of_sums")
    assert score.value == 9 / 14  # respect_report_aggregation=False: Σnum/Σden
    assert report.series[0].series_id == "score.native@1"  # replaced in place
    delivery = report.series_by_id("delivery_rate.native@1")
    assert delivery.role == "auxiliary"
    assert report.series[-1] is delivery  # new ids are appended
    assert report.aggregation == "category_hierarchy"  # the shared mode is unchanged
    validate_report(report)


def test_item_29_deepresearch_score_stays_headline_without_race() -> None:
    tasks = [task("1", {"citations_supported": 3, "citations_checked": 4})]
    report = report_of(
        tasks,
        contract=DEEPRESEARCH,
        benchmark_id="deepresearch_bench",
        benchmark_params={"metrics": "fact"},
    )
    score = report.series_by_id("score.native@1")
    assert (score.role, score.aggregation, score.value) == ("headline", "ratio_of_sums", 0.75)
    assert score.display is not None and score.display.label == "Citation Accuracy"
