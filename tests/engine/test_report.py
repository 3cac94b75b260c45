"""``MetricReport`` invariants (spec §8.1) and ``metrics.json`` output (§8.1, §10 item 42)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from inspector.engine.errors import ReportValidationError
from inspector.engine.report import MetricReport, SeriesCounts, dumps_metrics_json, validate_report

from .conftest import BINARY_REWARD, ERROR, FATAL, SCORE_ONLY, attempt, report_of, task

T, F = True, False


@pytest.fixture
def report() -> MetricReport:
    """A valid k=1 report: correct + reward, two categories."""
    tasks = [
        task("t1", {"correct": T, "reward": 0.5}, category="a"),
        task("t2", attempt(1, {"correct": F}, issues=[ERROR]), category="b"),
    ]
    result = report_of(tasks, contract=BINARY_REWARD)
    validate_report(result)
    return result


@pytest.fixture
def hierarchy_report() -> MetricReport:
    tasks = [task("t1", {"score": 0.5}, category="a"), task("t2", {"score": 1.0}, category="b")]
    tree = {"overall": {"aggregation": "unweighted", "children": {"a": {}, "b": {}}}}
    result = report_of(tasks, contract=SCORE_ONLY, hierarchy=tree)
    validate_report(result)
    return result


def _with_series(report: MetricReport, index: int, **changes) -> MetricReport:
    series = list(report.series)
    series[index] = replace(series[index], **changes)
    return replace(report, series=tuple(series))


def _invalid(report: MetricReport, match: str) -> None:
    with pytest.raises(ReportValidationError, match=match):
        validate_report(report)


def test_series_counts_must_add_up(report: MetricReport) -> None:
    bad = replace(report.series[0].counts, unavailable=5)
    _invalid(_with_series(report, 0, counts=bad), "counts")


def test_category_counts_must_sum_to_the_series(report: MetricReport) -> None:
    categories = dict(report.series[0].categories)
    categories["a"] = replace(categories["a"], counts=SeriesCounts(2, 2, 0, 0, 0))
    _invalid(_with_series(report, 0, categories=categories), "category counts")


def test_binary_values_lie_in_the_unit_interval(report: MetricReport) -> None:
    _invalid(_with_series(report, 0, value=1.5), r"outside \[0, 1\]")
    categories = dict(report.series[0].categories)
    categories["a"] = replace(categories["a"], value=-0.1)
    _invalid(_with_series(report, 0, categories=categories), r"outside \[0, 1\]")


def test_scalar_values_may_leave_the_unit_interval(report: MetricReport) -> None:
    validate_report(_with_series(report, 1, value=7.5))


def test_value_and_reference_are_exclusive(report: MetricReport) -> None:
    _invalid(_with_series(report, 0, reference_value=0.5), "reference_value")


def test_no_value_without_evaluated_tasks(report: MetricReport) -> None:
    categories = dict(report.series[0].categories)
    assert categories["b"].counts.evaluated == 1
    empty = replace(categories["b"], counts=SeriesCounts(1, 0, 1, 1, 0))
    categories["b"] = empty
    counts = SeriesCounts(2, 1, 1, 1, 0)
    _invalid(_with_series(report, 0, categories=categories, counts=counts), "without evaluated")


def test_evaluated_scope_needs_a_value(report: MetricReport) -> None:
    _invalid(_with_series(report, 0, value=None), "evaluated scope")


def test_series_id_must_match_its_parts(report: MetricReport) -> None:
    _invalid(_with_series(report, 0, series_id="correct.native@2"), "series_id")


def test_reducer_must_fit_k_and_kind(report: MetricReport) -> None:
    _invalid(_with_series(report, 1, reducer="pass", series_id="reward.pass@1"), "cannot serve")


def test_series_ids_are_unique(report: MetricReport) -> None:
    _invalid(replace(report, series=(report.series[0], report.series[0])), "duplicate")


def test_exactly_one_headline_metric(report: MetricReport) -> None:
    _invalid(_with_series(report, 1, role="headline"), "headline")
    _invalid(_with_series(report, 0, role="auxiliary"), "headline")


def test_headline_must_be_binary_correct_or_scalar_score(report: MetricReport) -> None:
    _invalid(_with_series(report, 0, kind="scalar"), "headline")


def test_evaluation_failed_must_reflect_invalidated(report: MetricReport) -> None:
    _invalid(replace(report, evaluation_failed=True), "evaluation_failed")


def test_failed_report_carries_only_reference_values() -> None:
    tasks = [task("t1", {"correct": T}), task("t2", attempt(1, issues=[FATAL]))]
    failed = report_of(tasks)
    validate_report(failed)
    _invalid(_with_series(failed, 0, value=1.0, reference_value=None), "value")


def test_all_series_share_category_keys(report: MetricReport) -> None:
    categories = {k: v for k, v in report.series[1].categories.items() if k == "a"}
    counts = categories["a"].counts
    _invalid(_with_series(report, 1, categories=categories, counts=counts), "total|category")


def test_hierarchy_only_in_hierarchy_reports(
    report: MetricReport, hierarchy_report: MetricReport
) -> None:
    _invalid(replace(hierarchy_report, aggregation="micro_weighted"), "hierarchy")
    _invalid(replace(report, aggregation="category_hierarchy"), "hierarchy")


def test_hierarchy_needs_an_overall_root(hierarchy_report: MetricReport) -> None:
    hierarchy = {k: v for k, v in hierarchy_report.series[0].hierarchy.items() if k != "overall"}
    _invalid(_with_series(hierarchy_report, 0, hierarchy=hierarchy), "overall|parent")


def test_hierarchy_parent_counts_equal_children(hierarchy_report: MetricReport) -> None:
    hierarchy = dict(hierarchy_report.series[0].hierarchy)
    hierarchy["overall"] = replace(hierarchy["overall"], counts=SeriesCounts(1, 1, 0, 0, 0))
    _invalid(_with_series(hierarchy_report, 0, hierarchy=hierarchy), "counts differ")


def test_hierarchy_leaf_equals_its_category(hierarchy_report: MetricReport) -> None:
    hierarchy = dict(hierarchy_report.series[0].hierarchy)
    hierarchy["overall/a"] = replace(hierarchy["overall/a"], value=0.75)
    _invalid(_with_series(hierarchy_report, 0, hierarchy=hierarchy), "leaf")


def test_strategy_validation_pass_report_only_primary_pass() -> None:
    tasks = [task("t", {"correct": T, "reward": 1.0}, {"correct": T, "reward": 1.0})]
    avg = report_of(tasks, k=2, contract=BINARY_REWARD)
    _invalid(replace(avg, strategy="pass"), "pass")
    # an avg report must contain the primary pass series of a binary primary
    _invalid(replace(avg, series=(avg.series[0], avg.series[2])), "pass series")


def test_dumps_metrics_json_format(report: MetricReport) -> None:
    text = dumps_metrics_json(report)
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert text.startswith('{\n  "aggregation": "micro_weighted",\n  "evaluation_failed": false,\n')
    data = json.loads(text)
    assert data["series"][0]["categories"]["a"] == {
        "aggregation_weight": 1.0,
        "counts": {"error": 0, "evaluated": 1, "invalidated": 0, "total": 1, "unavailable": 0},
        "reference_value": None,
        "value": 1.0,
    }
    assert data["series"][0]["display"] == {
        "description": None,
        "label": "Correct",
        "precision": None,
        "unit": None,
    }


def test_dumps_keeps_non_ascii_characters() -> None:
    text = dumps_metrics_json(report_of([task("t", {"correct": T}, category="日本語 Ü")]))
    assert '"日本語 Ü": {' in text


def _key_order(text: str) -> list[list[str]]:
    orders: list[list[str]] = []
    json.loads(text, object_pairs_hook=lambda pairs: orders.append([k for k, _ in pairs]) or {})
    return orders


def test_item_42_keys_are_sorted_hierarchy_paths_alphabetical() -> None:
    tree = {
        "overall": {
            "aggregation": "unweighted",
            "children": {
                "z": {"aggregation": "unweighted", "children": {"b": {}, "a": {}}},
                "Y": {},
            },
        }
    }
    tasks = [task(f"t{c}", {"score": 1.0}, category=c) for c in ("a", "b", "Y", "Ä")]
    report = report_of(tasks, contract=SCORE_ONLY, hierarchy=tree)
    # in memory: children before parents
    assert list(report.series[0].hierarchy) == [
        "overall/z/b",
        "overall/z/a",
        "overall/z",
        "overall/Y",
        "overall",
    ]
    text = dumps_metrics_json(report)
    orders = _key_order(text)
    assert ["overall", "overall/Y", "overall/z", "overall/z/a", "overall/z/b"] in orders
    assert ["Y", "a", "b", "Ä"] in orders  # categories, by code point
    for order in orders:
        assert order == sorted(order)
