"""Benchmark parameters the engine reads, validated and normalised as AgentCompass's configs do.

Found by the oracle differential (tests/engine/oracle_diff.py): AgentCompass builds the
benchmark config before aggregating, so a parameter it rejects refuses the whole run, and
the values it normalises end up in ``report.extra``.
"""

from __future__ import annotations

from typing import Any

import pytest

from inspector.engine.benchmarks import builtin_contract
from inspector.engine.errors import PlanError

from .conftest import report_of, task

T = True
V1 = "c33fa70e68d11d85f9e58abcd5d78643705e916e"
V1_1 = "0b9fabbb63b9104d678fe965e1632f2dd9eaa2ea"
FRONTIER_SWE = "422b9bb95deb8efe436becb0ed3c44be23611e10"


def _extra(benchmark: str, params: dict[str, Any], metrics: dict[str, Any]) -> dict[str, Any]:
    report = report_of(
        [task("t", metrics)],
        contract=builtin_contract(benchmark),
        benchmark_id=benchmark,
        benchmark_params=params,
    )
    return dict(report.extra)


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        (None, "v1.1"),
        ("", "v1.1"),
        ("1", "v1"),
        ("1.0", "v1"),
        ("1.0.0", "v1"),
        ("v1.0.0", "v1"),
        (" V1 ", "v1"),
        ("1.1", "v1.1"),
        ("V1.1", "v1.1"),
    ],
)
def test_deepswe_version_aliases(version: Any, expected: str) -> None:
    params = {} if version is None else {"version": version}
    extra = _extra("deepswe", params, {"correct": T})
    assert extra == {
        "benchmark_version": expected,
        "dataset_revision": V1 if expected == "v1" else V1_1,
    }


def test_deepswe_repo_revision_overrides_the_pinned_one() -> None:
    extra = _extra("deepswe", {"version": "1", "repo_revision": " abc "}, {"correct": T})
    assert extra == {"benchmark_version": "v1", "dataset_revision": "abc"}


@pytest.mark.parametrize("version", ["v2", "1.2", "latest"])
def test_deepswe_unsupported_version_refuses_the_run(version: str) -> None:
    with pytest.raises(PlanError, match="version"):
        _extra("deepswe", {"version": version}, {"correct": T})


@pytest.mark.parametrize(
    ("params", "revision"),
    [
        ({}, FRONTIER_SWE),
        ({"repo_revision": " abc "}, "abc"),
        ({"dataset_path": "/data/fswe", "repo_revision": ""}, ""),
    ],
)
def test_frontier_swe_dataset_revision(params: dict[str, Any], revision: str) -> None:
    extra = _extra("frontier_swe", params, {"score": 0.5})
    assert extra == {
        "dataset_revision": revision,
        "scoring": "Frontier-SWE leaderboard gated score",
    }


@pytest.mark.parametrize("revision", ["", "   ", None])
def test_frontier_swe_needs_a_revision_without_a_dataset_path(revision: Any) -> None:
    with pytest.raises(PlanError, match="repo_revision"):
        _extra("frontier_swe", {"repo_revision": revision}, {"score": 0.5})


@pytest.mark.parametrize(
    "metrics",
    [["race", "bogus"], [], "", ["  "], 5],
    ids=["unknown", "empty-list", "empty-string", "blank-item", "not-a-list"],
)
def test_deepresearch_metrics_must_be_a_non_empty_subset_of_race_and_fact(metrics: Any) -> None:
    with pytest.raises(PlanError, match="metrics"):
        _extra("deepresearch_bench", {"metrics": metrics}, {"score": 0.5})


@pytest.mark.parametrize("metrics", [" RACE ", ["Race"], ("race", "race")])
def test_deepresearch_metrics_are_normalised(metrics: Any) -> None:
    # race only: no FACT ratio series, the standard report
    report = report_of(
        [task("t", {"score": 0.5, "citations_supported": 1, "citations_checked": 2})],
        contract=builtin_contract("deepresearch_bench"),
        benchmark_id="deepresearch_bench",
        benchmark_params={"metrics": metrics},
    )
    assert all(s.aggregation == "micro_weighted" for s in report.series)
