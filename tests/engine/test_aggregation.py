"""Cross-task aggregation (spec §6.4, §7.1): means, category keys, empty runs, plans (§10 items 15–18, 30, 31, 50)."""

from __future__ import annotations

import json
import math

import pytest

from inspector.engine.aggregation import UNCATEGORIZED, category_key, mean
from inspector.engine.contract import make_metric_contract
from inspector.engine.errors import EngineError, PlanError
from inspector.engine.report import dumps_metrics_json, validate_report

from .conftest import BINARY_ONLY, BINARY_REWARD, SCORE_ONLY, attempt, report_of, task

T, F = True, False
ITEM_15_VALUES = [0.1, 0.2, 0.3, 0.7, 0.9, 0.11]
ITEM_15_FSUM = 0.38499999999999995  # fsum(v / 6), verified in the spec
ITEM_15_NAIVE = 0.385  # sum(v) / 6


def test_item_15_example_numbers() -> None:
    assert sum(ITEM_15_VALUES) / 6 == ITEM_15_NAIVE
    assert mean(ITEM_15_VALUES) == ITEM_15_FSUM
    assert mean([]) is None


def test_item_15_micro_weighted_uses_fsum_of_quotients() -> None:
    tasks = [task(f"t{i}", {"score": v}) for i, v in enumerate(ITEM_15_VALUES)]
    assert report_of(tasks, contract=SCORE_ONLY).series[0].value == ITEM_15_FSUM


def test_item_15_avg_reducer_uses_fsum_of_quotients() -> None:
    tasks = [task("t", *({"score": v} for v in ITEM_15_VALUES))]
    assert report_of(tasks, k=6, contract=SCORE_ONLY).series[0].value == ITEM_15_FSUM


def test_item_15_category_mean_uses_fsum_of_quotients() -> None:
    tasks = [task(f"t{i}", {"score": v}, category=f"c{i}") for i, v in enumerate(ITEM_15_VALUES)]
    series = report_of(tasks, contract=SCORE_ONLY, aggregation="category_mean").series[0]
    assert series.value == ITEM_15_FSUM
    # and inside one category
    one = [task(f"t{i}", {"score": v}, category="c") for i, v in enumerate(ITEM_15_VALUES)]
    series = report_of(one, contract=SCORE_ONLY, aggregation="category_mean").series[0]
    assert series.categories["c"].value == ITEM_15_FSUM


def test_item_15_unweighted_node_uses_fsum_of_quotients() -> None:
    tasks = [task(f"t{i}", {"score": v}, category=f"c{i}") for i, v in enumerate(ITEM_15_VALUES)]
    leaves = {f"c{i}": {} for i in range(6)}
    hierarchy = {"overall": {"aggregation": "unweighted", "children": leaves}}
    series = report_of(tasks, contract=SCORE_ONLY, hierarchy=hierarchy).series[0]
    assert series.value == ITEM_15_FSUM


def test_micro_weighted_versus_category_mean() -> None:
    tasks = [
        task("a1", {"correct": T}, category="a"),
        task("a2", {"correct": F}, category="a"),
        task("a3", {"correct": F}, category="a"),
        task("b1", {"correct": T}, category="b"),
    ]
    micro = report_of(tasks).series[0]
    assert micro.value == 0.5
    assert micro.categories["a"].value == (1 / 3)  # fsum(1/3, 0/3, 0/3)
    assert micro.categories["a"].aggregation_weight == 3.0
    assert micro.categories["b"].aggregation_weight == 1.0
    by_category = report_of(tasks, aggregation="category_mean").series[0]
    assert by_category.value == math.fsum([(1 / 3) / 2, 1.0 / 2])
    assert by_category.aggregation == "category_mean"


def test_category_mean_skips_categories_without_a_value() -> None:
    tasks = [
        task("a", {"correct": T}, category="a"),
        task("b", attempt(1), category="b"),  # unavailable: no value
    ]
    series = report_of(tasks, aggregation="category_mean").series[0]
    assert series.categories["b"].value is None
    assert series.value == 1.0


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        (" Physics ", "Physics"),
        ("Physics", "Physics"),
        ("", UNCATEGORIZED),
        ("   ", UNCATEGORIZED),
        (None, UNCATEGORIZED),
        ("\tmath\n", "math"),
    ],
)
def test_item_16_standard_path_strips_categories(raw: object, key: str) -> None:
    assert category_key(raw) == key


def test_item_16_stripped_categories_merge() -> None:
    tasks = [
        task("a", {"correct": T}, category=" Physics "),
        task("b", {"correct": F}, category="Physics"),
        task("c", {"correct": T}, category=""),
        task("d", {"correct": T}, category=None),
    ]
    categories = report_of(tasks).series[0].categories
    assert list(categories) == ["Physics", UNCATEGORIZED]
    assert categories["Physics"].counts.total == 2
    assert categories[UNCATEGORIZED].counts.total == 2


SCICODE_TASK = {
    "correct": T,
    "subproblem_correct": 1,
    "subproblem_total": 2,
    "subproblem_correctness": 0.5,
}


@pytest.mark.parametrize("category", [" Physics ", 0], ids=["surrounding-space", "zero"])
def test_item_16_corpus_path_does_not_strip_and_the_run_is_refused(category: object) -> None:
    # BenchmarkAggregationContext keys categories by str(c or "__uncategorized__"): the
    # custom series' category counts no longer add up, and AgentCompass refuses the report.
    tasks = [task("1", SCICODE_TASK, category=category), task("2", SCICODE_TASK, category="Math")]
    with pytest.raises(EngineError):
        report_of(tasks, benchmark_id="scicode", contract=_scicode())
    # the same tasks without the corpus formula are fine
    report_of(tasks, contract=_scicode())


def _scicode():
    from inspector.engine.benchmarks import builtin_contract

    contract = builtin_contract("scicode")
    assert contract is not None
    return contract


def test_item_17_string_none_is_a_real_category() -> None:
    tasks = [
        task("a", {"correct": T}, category="None"),
        task("b", {"correct": F}, category=None),
        task("c", {"correct": F}, category=""),
    ]
    categories = report_of(tasks).series[0].categories
    assert list(categories) == ["None", UNCATEGORIZED]
    assert categories["None"].value == 1.0
    assert categories[UNCATEGORIZED].counts.total == 2


@pytest.mark.parametrize("aggregation", ["micro_weighted", "category_mean"])
def test_item_18_categories_always_present_hierarchy_only_when_configured(
    aggregation: str,
) -> None:
    report = report_of([task("a", {"correct": T}, category="x")], aggregation=aggregation)
    series = report.series[0]
    assert list(series.categories) == ["x"]
    assert series.hierarchy == {}
    data = json.loads(dumps_metrics_json(report))
    assert data["series"][0]["hierarchy"] == {}
    assert data["aggregation"] == aggregation
    empty = report_of([], aggregation=aggregation)
    assert empty.series[0].categories == {}


@pytest.mark.parametrize(
    ("k", "strategy", "series_ids"),
    [
        (1, "avg", ["correct.native@1", "reward.native@1"]),
        (3, "avg", ["correct.avg@3", "correct.pass@3", "reward.avg@3"]),
        (3, "pass", ["correct.pass@3"]),
    ],
)
@pytest.mark.parametrize("aggregation", ["micro_weighted", "category_mean"])
def test_item_30_empty_run_gives_a_valid_report(
    k: int, strategy: str, series_ids: list[str], aggregation: str
) -> None:
    report = report_of([], k, strategy, BINARY_REWARD, aggregation=aggregation)
    validate_report(report)
    assert [s.series_id for s in report.series] == series_ids
    assert report.evaluation_failed is False
    for series in report.series:
        assert series.value is None and series.reference_value is None
        assert series.counts.to_json() == dict.fromkeys(
            ("total", "evaluated", "error", "unavailable", "invalidated"), 0
        )
        assert series.categories == {}


def test_item_31_k1_pass_emits_native_series() -> None:
    report = report_of(
        [task("t", {"correct": T, "reward": 0.5}, strategy="pass")], 1, "pass", BINARY_REWARD
    )
    assert report.strategy == "pass"
    assert [s.series_id for s in report.series] == ["correct.native@1", "reward.native@1"]
    assert [s.role for s in report.series] == ["headline", "auxiliary"]
    assert report.series[0].value == 1.0


@pytest.mark.parametrize("k", [1, 3])
def test_item_31_scalar_primary_with_pass_fails_preflight(k: int) -> None:
    with pytest.raises(PlanError):
        report_of([], k, "pass", SCORE_ONLY)


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        (7, "7"),
        (2.5, "2.5"),
        (0, "0"),
        ({"group": "g1"}, "{'group': 'g1'}"),
        (True, "True"),
        (False, "False"),
        (["a", 1], "['a', 1]"),
    ],
)
def test_item_50_non_string_categories_use_python_str(raw: object, key: str) -> None:
    assert category_key(raw) == key
    report = report_of([task("t", {"correct": T}, category=raw)])
    assert list(report.series[0].categories) == [key]


def test_item_50_dict_category_matches_a_hierarchy_leaf_of_that_name() -> None:
    tasks = [
        task("a", {"correct": T}, category={"group": "g1"}),
        task("b", {"correct": F}, category=True),
        task("c", {"correct": F}, category="other"),
    ]
    hierarchy = {
        "overall": {
            "aggregation": "unweighted",
            "children": {"{'group': 'g1'}": {}, "True": {}},
        }
    }
    series = report_of(tasks, hierarchy=hierarchy).series[0]
    assert series.hierarchy["overall/{'group': 'g1'}"].value == 1.0
    assert series.hierarchy["overall/True"].value == 0.0
    assert series.value == 0.5
    assert series.hierarchy["overall"].counts.total == 2


def test_results_do_not_depend_on_task_order() -> None:
    tasks = [
        task(f"t{i}", {"score": v}, category="ab"[i % 2])
        for i, v in enumerate([0.1, 0.2, 0.3, 0.7, 0.9, 0.11, 1e-9, 1e6])
    ]
    forward = dumps_metrics_json(report_of(tasks, contract=SCORE_ONLY, aggregation="category_mean"))
    backward = dumps_metrics_json(
        report_of(tasks[::-1], contract=SCORE_ONLY, aggregation="category_mean")
    )
    assert forward == backward


def test_contract_order_is_primary_then_binary_then_scalar() -> None:
    contract = make_metric_contract("correct", binary=["ok", "correct"], scalar=["z", "a"])
    assert list(contract.metrics) == ["correct", "ok", "z", "a"]
    report = report_of([], 2, "avg", contract)
    assert [s.series_id for s in report.series] == [
        "correct.avg@2",
        "correct.pass@2",
        "ok.avg@2",
        "ok.pass@2",
        "z.avg@2",
        "a.avg@2",
    ]
    assert [s.role for s in report.series] == ["headline"] * 2 + ["auxiliary"] * 4


def test_binary_only_contract_k1() -> None:
    report = report_of([task("t", {"correct": F})], 1, "avg", BINARY_ONLY)
    assert report.series[0].value == 0.0
