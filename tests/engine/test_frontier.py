"""frontier_engineering's rank and medal rules on hand-made tables (the runs AgentCompass
scored are in tests/cli/test_frontier_engineering.py and the oracle sweep)."""

from __future__ import annotations

import pytest

from inspector.engine.errors import PlanError
from inspector.engine.frontier import mean_ranks, medal_name, medal_summary, rank_summary, task_set
from inspector.engine.reference import FrontierTables

TABLES = FrontierTables(
    podium=(("A_x", 10.0, 5.0, 2.0), ("B_y", 1.0, 0.5, 0.2), ("EngDesign", 27.0, 27.0, 27.0)),
    rank_rows=(("A/x", "m1", 8.0), ("A/x", "m2", 4.0), ("A/x", "m3", 4.0), ("B/y", "m1", 1.0)),
    rank_models=("m1", "m2", "m3"),
    lite_labels=("A/x",),
)


def test_tied_scores_share_the_mean_of_their_places() -> None:
    assert mean_ranks([("a", 3.0), ("b", 3.0), ("c", 1.0), ("d", 9.0)]) == {
        "d": 1.0,
        "a": 2.5,
        "b": 2.5,
        "c": 4.0,
    }


def test_medal_tiers_on_and_around_the_thresholds() -> None:
    # A_x: exactly silver (5.0) -> 0.67; B_y: exactly bronze -> 0.33; engdesign: gold.
    medal = medal_summary(
        {"A/x": 5.0, "B/y": 0.2, "engdesign": 27.0}, {"A/x", "B/y", "engdesign"}, TABLES, "v1"
    )
    assert medal["per_task_credit"] == {"A_x": 0.67, "B_y": 0.33, "EngDesign": 1.0}
    assert medal["counts"] == {"gold": 1, "silver": 1, "bronze": 1}
    assert medal["medal_score_v1"] == pytest.approx((0.67 + 0.33 + 1.0) / 3)
    assert medal["medal_score_v1_lite"] == 0.67  # the lite set is A_x alone
    # Below bronze: no medal, credit 0, still a valid task; a task without a value is missing.
    medal = medal_summary({"A/x": 1.9}, {"A/x", "B/y"}, TABLES, "v1_lite")
    assert medal["per_task_credit"] == {"A_x": 0.0}
    assert medal["medal_score"] == 0.0  # v1_lite: only A_x is expected, and it has a value
    assert medal["medal_score_v1"] is None  # B_y was selected but has no value
    assert (
        medal["metric_status"]["medal_score_v1"]["reason"] == "Selected tasks lack effective scores"
    )
    assert medal["error_tasks"] == ["B_y"]


def test_rank_of_the_candidate_among_the_baseline() -> None:
    rank = rank_summary({"A/x": 4.0, "B/y": 2.0}, {"A/x", "B/y", "C/z"}, TABLES, "m2", "v1")
    # A/x: behind m1 (8), tied with m2 and m3 at 4 (places 2-4) -> 3.0; B/y: first -> 1.0.
    assert rank["candidate"] == {
        "model": "m2 (current run)",
        "avg_score": 3.0,
        "avg_task_rank": 2.0,
    }
    assert (rank["status"], rank["run_only_tasks"]) == ("partial", ["C/z"])
    ok = rank_summary({"A/x": 9.0, "B/y": 0.0}, {"A/x", "B/y"}, TABLES, "", "v1")
    assert ok["status"] == "ok" and ok["candidate"]["model"] == "current_model"
    assert ok["candidate"]["avg_task_rank"] == 1.5  # first on A/x, second on B/y
    assert rank_summary({}, {"C/z"}, TABLES, "m", "v1")["status"] == "unavailable"


def test_task_sets_as_the_config_reads_them() -> None:
    assert task_set({}) == "v1_non_gpu"
    assert task_set({"task_set": None}) == task_set({"task_set": ""}) == "v1_non_gpu"
    assert task_set({"task_set": " V1_Lite "}) == "v1_lite"
    with pytest.raises(PlanError, match="task_set"):
        task_set({"task_set": "v2"})
    assert medal_name(" engDesign ") == "EngDesign" and medal_name("A/b/c") == "A_b_c"
