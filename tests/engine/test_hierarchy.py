"""Category hierarchies (spec §7.2; §10 items 19–24, 51)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from inspector.engine.benchmarks import builtin_contract
from inspector.engine.errors import AggregationError, HierarchyError
from inspector.engine.hierarchy import hierarchy_breakdowns, parse_hierarchy
from inspector.engine.report import MetricBreakdown, SeriesCounts, validate_report

from .conftest import ERROR, SCORE_ONLY, attempt, report_of, task

T, F = True, False


def _scores(*items: tuple[str, float | None]) -> list:
    """One k=1 task per (category, score); ``None`` is an ERROR attempt without a value."""
    out = []
    for number, (category, value) in enumerate(items):
        if value is None:
            record = task(
                f"t{number}", attempt(1, status="eval_error", issues=[ERROR]), category=category
            )
        else:
            record = task(f"t{number}", {"score": value}, category=category)
        out.append(record)
    return out


VERIFIED_TREE = {
    "overall": {
        "aggregation": "weighted",
        "children": {
            "g1": {"aggregation": "weighted_by_count", "weight": 2, "children": {"a": {}, "b": {}}},
            "g2": {"aggregation": "unweighted", "weight": 1, "children": {"c": {}, "d": {}}},
            "g3": {"aggregation": "unweighted", "weight": 5, "children": {"e": {}}},
        },
    }
}


def test_verified_example_of_section_7_2() -> None:
    tasks = _scores(("a", 0.2), ("a", 0.4), ("b", 1.0), ("c", 0.5), ("d", None), ("zz", 0.0))
    series = report_of(tasks, contract=SCORE_ONLY, hierarchy=VERIFIED_TREE).series[0]
    h = series.hierarchy
    a = math.fsum([0.2 / 2, 0.4 / 2])
    g1 = math.fsum([a * (2 / 3), 1.0 * (1 / 3)])
    assert h["overall/g1/a"].value == a
    assert h["overall/g1"].value == g1
    assert h["overall/g2"].value == 0.5
    assert h["overall/g3"].value is None
    # weights 2 and 1 scaled by their maximum (1.0, 0.5), then re-normalised over 1.5
    overall = math.fsum([g1 * (1.0 / 1.5), 0.5 * (0.5 / 1.5)])
    assert h["overall"].value == overall
    assert series.value == overall
    assert round(overall, 5) == 0.52222
    assert h["overall"].counts.total == 5
    assert series.counts.total == 6
    assert h["overall"].counts.to_json() == {
        "total": 5,
        "evaluated": 4,
        "error": 1,
        "unavailable": 1,
        "invalidated": 0,
    }
    assert (h["overall/g1"].aggregation_weight, h["overall/g2"].aggregation_weight) == (3.0, 1.0)
    assert h["overall/g3/e"].aggregation_weight == 0.0
    assert h["overall"].aggregation_weight == 4.0
    assert series.aggregation == "category_hierarchy"


def test_item_19_categories_outside_the_tree_stay_in_counts() -> None:
    tasks = _scores(("a", 1.0), ("outside", 0.0))
    tree = {"overall": {"aggregation": "unweighted", "children": {"a": {}, "empty": {}}}}
    series = report_of(tasks, contract=SCORE_ONLY, hierarchy=tree).series[0]
    assert series.value == 1.0
    assert list(series.categories) == ["a", "outside"]
    assert series.counts.total == 2
    assert series.hierarchy["overall"].counts.total == 1
    empty = series.hierarchy["overall/empty"]
    assert (empty.value, empty.aggregation_weight) == (None, 0.0)
    assert empty.counts == SeriesCounts()


def test_item_19_tree_without_evaluated_tasks_gives_null_value() -> None:
    tasks = _scores(("y", 0.5))
    tree = {"overall": {"aggregation": "unweighted", "children": {"x": {}}}}
    report = report_of(tasks, contract=SCORE_ONLY, hierarchy=tree)
    series = report.series[0]
    assert series.value is None
    assert series.counts.evaluated == 1
    validate_report(report)


def test_item_20_weighted_needs_a_weight_for_every_child() -> None:
    tree = {"overall": {"aggregation": "weighted", "children": {"a": {"weight": 1}, "b": {}}}}
    with pytest.raises(HierarchyError, match="weight"):
        parse_hierarchy(tree)
    # even when that child would end up null
    with pytest.raises(HierarchyError):
        report_of(_scores(("a", 1.0)), contract=SCORE_ONLY, hierarchy=tree)


def test_item_20_a_valid_child_with_weight_zero_contributes_nothing() -> None:
    tree = {
        "overall": {
            "aggregation": "weighted",
            "children": {"a": {"weight": 0}, "b": {"weight": 3}},
        }
    }
    series = report_of(_scores(("a", 1.0), ("b", 0.25)), contract=SCORE_ONLY, hierarchy=tree)
    assert series.series[0].value == 0.25


def test_item_20_weights_are_renormalised_over_valid_children() -> None:
    tree = {
        "overall": {
            "aggregation": "weighted",
            "children": {"a": {"weight": 1}, "b": {"weight": 3}, "absent": {"weight": 100}},
        }
    }
    series = report_of(_scores(("a", 1.0), ("b", 0.0)), contract=SCORE_ONLY, hierarchy=tree)
    # valid weights [1, 3] → scaled [1/3, 1] → shares 0.25 / 0.75
    assert series.series[0].value == math.fsum([1.0 * ((1 / 3) / (1 / 3 + 1.0)), 0.0])
    assert series.series[0].value == 0.25


def _breakdown(value: float | None, evaluated: int, weight: float | None) -> MetricBreakdown:
    counts = SeriesCounts(
        total=max(evaluated, 1), evaluated=evaluated, unavailable=max(1 - evaluated, 0)
    )
    return MetricBreakdown(value=value, counts=counts, aggregation_weight=weight)


def test_item_21_weighted_by_count_uses_aggregation_weight() -> None:
    root = parse_hierarchy(
        {"overall": {"aggregation": "weighted_by_count", "children": {"a": {}, "b": {}}}}
    )
    assert root is not None
    out = hierarchy_breakdowns(root, {"a": _breakdown(1.0, 1, 3.0), "b": _breakdown(0.0, 5, 1.0)})
    assert out["overall"].value == 0.75  # weights 3 and 1, not the evaluated counts 1 and 5
    assert out["overall"].aggregation_weight == 4.0


def test_item_21_weighted_by_count_with_zero_weights_is_zero() -> None:
    root = parse_hierarchy(
        {"overall": {"aggregation": "weighted_by_count", "children": {"a": {}, "b": {}}}}
    )
    assert root is not None
    out = hierarchy_breakdowns(root, {"a": _breakdown(0.5, 1, 0.0), "b": _breakdown(0.7, 1, 0.0)})
    assert out["overall"].value == 0.0


def test_item_21_ratio_series_weight_by_denominator() -> None:
    contract = builtin_contract("scicode")
    tasks = [
        task("1", {"correct": T, "subproblem_correct": 2, "subproblem_total": 2}, category="A"),
        task("2", {"correct": F, "subproblem_correct": 1, "subproblem_total": 3}, category="A"),
        task("3", {"correct": F, "subproblem_correct": 0, "subproblem_total": 0}, category="B"),
    ]
    tree = {"overall": {"aggregation": "weighted_by_count", "children": {"A": {}, "B": {}}}}
    report = report_of(tasks, contract=contract, hierarchy=tree, benchmark_id="scicode")
    ratio = report.series_by_id("subproblem_correctness.native@1")
    assert ratio.aggregation == "ratio_of_sums"
    assert (ratio.categories["A"].value, ratio.categories["A"].aggregation_weight) == (0.6, 5.0)
    assert (ratio.categories["B"].value, ratio.categories["B"].aggregation_weight) == (0.0, 0.0)
    assert ratio.hierarchy["overall"].value == 0.6  # 0.6·5/5 + 0.0·0/5
    only_b = report_of(tasks[2:], contract=contract, hierarchy=tree, benchmark_id="scicode")
    assert only_b.series_by_id("subproblem_correctness.native@1").value == 0.0


def test_item_22_internal_weight_sums_all_children_including_null() -> None:
    root = parse_hierarchy(
        {"overall": {"aggregation": "unweighted", "children": {"a": {}, "b": {}, "c": {}}}}
    )
    assert root is not None
    null_with_weight = MetricBreakdown(
        value=None, counts=SeriesCounts(total=2, unavailable=2), aggregation_weight=4.0
    )
    out = hierarchy_breakdowns(root, {"a": _breakdown(0.5, 1, 1.0), "b": null_with_weight})
    assert out["overall"].aggregation_weight == 5.0  # 1 + 4 + 0 (absent c)
    assert out["overall"].value == 0.5


def test_item_23_paths_are_escaped_leaves_match_unescaped_names() -> None:
    tree = {
        "overall": {
            "aggregation": "unweighted",
            "children": {
                "g/1": {
                    "aggregation": "unweighted",
                    "children": {"web/mobile": {}, "desk~top": {}},
                },
                "a~1b": {},
            },
        }
    }
    tasks = [
        task("1", {"score": 1.0}, category="web/mobile"),
        task("2", {"score": 0.0}, category="desk~top"),
        task("3", {"score": 0.5}, category="a~1b"),
    ]
    series = report_of(tasks, contract=SCORE_ONLY, hierarchy=tree).series[0]
    assert sorted(series.hierarchy) == [
        "overall",
        "overall/a~01b",
        "overall/g~11",
        "overall/g~11/desk~0top",
        "overall/g~11/web~1mobile",
    ]
    assert series.hierarchy["overall/g~11/web~1mobile"].value == 1.0
    assert series.hierarchy["overall/g~11/desk~0top"].value == 0.0
    assert series.hierarchy["overall/a~01b"].value == 0.5
    assert series.value == 0.5


@pytest.mark.parametrize(
    "tree",
    [
        pytest.param(
            {
                "overall": {
                    "aggregation": "unweighted",
                    "children": {
                        "g": {"aggregation": "unweighted", "children": {"a": {}}},
                        "a": {},
                    },
                }
            },
            id="repeated-leaf",
        ),
        pytest.param(
            {"overall": {"aggregation": "unweighted", "children": {"a": {"label": "x"}}}},
            id="unknown-field",
        ),
        pytest.param({"overall": {}, "extra": {}}, id="two-roots"),
        pytest.param({"root": {}}, id="no-overall"),
        pytest.param(
            {"overall": {"aggregation": "median", "children": {"a": {}}}}, id="bad-aggregation"
        ),
        pytest.param({"overall": {"aggregation": "unweighted", "children": {}}}, id="no-children"),
        pytest.param({"overall": {"children": {"a": {}}}}, id="leaf-with-children"),
        pytest.param(
            {"overall": {"aggregation": "unweighted", "children": {" a": {}}}}, id="name-whitespace"
        ),
        pytest.param(
            {"overall": {"aggregation": "unweighted", "children": {"": {}}}}, id="empty-name"
        ),
        pytest.param(
            {"overall": {"aggregation": "unweighted", "children": {"a": {"weight": -1}}}},
            id="negative-weight",
        ),
        pytest.param(
            {"overall": {"aggregation": "unweighted", "children": {"a": {"weight": True}}}},
            id="bool-weight",
        ),
        pytest.param(
            {"overall": {"aggregation": "unweighted", "children": {"a": {"weight": math.nan}}}},
            id="nan-weight",
        ),
        pytest.param(
            {"overall": {"aggregation": "unweighted", "children": {"a": []}}}, id="node-not-mapping"
        ),
        pytest.param(["overall"], id="not-a-mapping"),
    ],
)
def test_item_23_invalid_hierarchies_are_refused(tree: Any) -> None:
    with pytest.raises(HierarchyError):
        parse_hierarchy(tree)


def test_item_23_cycles_are_refused() -> None:
    node: dict[str, Any] = {"aggregation": "unweighted", "children": {}}
    node["children"]["self"] = node
    with pytest.raises(HierarchyError, match="cycle"):
        parse_hierarchy({"overall": node})


def test_item_23_root_leaf_matches_category_named_overall() -> None:
    tasks = [
        task("1", {"score": 0.25}, category="overall"),
        task("2", {"score": 1.0}, category="x"),
    ]
    series = report_of(tasks, contract=SCORE_ONLY, hierarchy={"overall": {}}).series[0]
    assert list(series.hierarchy) == ["overall"]
    assert series.hierarchy["overall"] == series.categories["overall"]
    assert series.value == 0.25


@pytest.mark.parametrize("empty", [{}, None])
def test_item_23_empty_hierarchy_means_none(empty: Any) -> None:
    report = report_of(_scores(("a", 1.0)), contract=SCORE_ONLY, hierarchy=empty)
    assert report.aggregation == "micro_weighted"
    assert report.series[0].hierarchy == {}


@pytest.mark.parametrize(
    "sanitised",
    [
        pytest.param({"overall": {"aggregation": "weighted"}}, id="all-children-dropped"),
        pytest.param(
            {"overall": {"aggregation": "unweighted", "children": {"api_key": "********"}}},
            id="redacted-node",
        ),
    ],
)
def test_item_24_sanitised_hierarchies_fail_to_parse(sanitised: Any) -> None:
    with pytest.raises(HierarchyError):
        report_of([], contract=SCORE_ONLY, hierarchy=sanitised)


def test_item_51_weighted_node_with_all_valid_weights_zero_fails() -> None:
    tree = {
        "overall": {"aggregation": "weighted", "children": {"a": {"weight": 0}, "b": {"weight": 0}}}
    }
    with pytest.raises(AggregationError):
        report_of(_scores(("a", 1.0), ("b", 0.0)), contract=SCORE_ONLY, hierarchy=tree)


def test_item_51_zero_weight_valid_child_beside_a_null_weighted_child_fails() -> None:
    tree = {
        "overall": {"aggregation": "weighted", "children": {"a": {"weight": 0}, "b": {"weight": 2}}}
    }
    with pytest.raises(AggregationError):
        report_of(_scores(("a", 1.0)), contract=SCORE_ONLY, hierarchy=tree)


def test_item_51_a_single_zero_weight_child_is_harmless() -> None:
    tree = {
        "overall": {"aggregation": "weighted", "children": {"a": {"weight": 0}, "b": {"weight": 2}}}
    }
    report = report_of(_scores(("a", 1.0), ("b", 0.5)), contract=SCORE_ONLY, hierarchy=tree)
    assert report.series[0].value == 0.5
    # and a weighted node with no valid child at all is simply null
    assert (
        report_of(_scores(("c", 1.0)), contract=SCORE_ONLY, hierarchy=tree).series[0].value is None
    )


def test_item_15_weighted_node_scales_weights_by_their_maximum_first() -> None:
    # a = 0.1 (weight 2), b = 0.2 (weight 3): weights /3 → (2/3, 1), then re-normalised.
    tree = {
        "overall": {"aggregation": "weighted", "children": {"a": {"weight": 2}, "b": {"weight": 3}}}
    }
    value = report_of(_scores(("a", 0.1), ("b", 0.2)), contract=SCORE_ONLY, hierarchy=tree)
    scaled = [2 / 3, 3 / 3]
    total = math.fsum(scaled)
    expected = math.fsum([0.1 * (scaled[0] / total), 0.2 * (scaled[1] / total)])
    assert value.series[0].value == expected == 0.16000000000000003
    # not the same bits as weighting by w/Σw directly
    assert expected != math.fsum([0.1 * (2 / 5), 0.2 * (3 / 5)])
