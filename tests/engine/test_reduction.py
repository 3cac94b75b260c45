"""Per-task reduction (spec §6.3), its verified-outcomes table and §10 items 1–14, 52, with reasons."""

from __future__ import annotations

import math
from typing import Any

import pytest

from inspector.engine.contract import MetricContract
from inspector.engine.errors import ObservationError
from inspector.engine.model import TaskRecord
from inspector.engine.reduction import TaskReduction, reduce_tasks
from inspector.engine.reduction_stream import ReductionStream
from inspector.engine.strategies import resolve_attempt_strategy
from inspector.engine.vocabulary import EVALUATED, INVALIDATED

from .conftest import (
    BINARY_ONLY,
    BINARY_REWARD,
    ERROR,
    FATAL,
    SCORE_ONLY,
    WARNING,
    attempt,
    codes,
    issue,
    reduce_one,
    report_of,
    task,
)

T, F = True, False
TWO_THIRDS = 1 / 3 + 1 / 3  # fsum(1/3, 0/3, 1/3), exactly 0.6666666666666666


def _expect(r: TaskReduction, value: float | None, state: str, has_error: bool) -> None:
    assert (r.value, r.state, r.has_error) == (value, state, has_error)


# ----------------------------------------------------------------------------- §6.3 table


def test_table_row_1_t_f_t() -> None:
    r = reduce_one(task("t", {"correct": T}, {"correct": F}, {"correct": T}))
    _expect(r["correct.avg@3"], TWO_THIRDS, "evaluated", False)
    _expect(r["correct.pass@3"], 1.0, "evaluated", False)


def test_table_row_2_missing_reward_is_unavailable() -> None:
    record = task(
        "t",
        {"correct": F, "reward": 0.5},
        {"correct": F},
        {"correct": F, "reward": 0.5},
    )
    r = reduce_one(record, BINARY_REWARD)
    _expect(r["correct.avg@3"], 0.0, "evaluated", False)
    _expect(r["correct.pass@3"], 0.0, "evaluated", False)
    _expect(r["reward.avg@3"], None, "unavailable", False)


def test_table_row_3_error_then_missing() -> None:
    record = task(
        "t",
        {"correct": T},
        attempt(2, status="eval_error", issues=[ERROR]),
        None,
    )
    r = reduce_one(record)
    _expect(r["correct.avg@3"], None, "error", True)
    _expect(r["correct.pass@3"], 1.0, "evaluated", True)


def test_table_row_4_error_issue_keeps_value() -> None:
    record = task(
        "t",
        attempt(1, {"correct": T}, issues=[ERROR]),
        attempt(2, {"correct": T}, issues=[WARNING]),
        {"correct": F},
    )
    r = reduce_one(record)
    _expect(r["correct.avg@3"], TWO_THIRDS, "evaluated", True)
    _expect(r["correct.pass@3"], 1.0, "evaluated", True)


def test_table_row_5_pass_single_success_stops() -> None:
    r = reduce_one(task("t", {"correct": T}, k=3, strategy="pass"))["correct.pass@3"]
    _expect(r, 1.0, "evaluated", False)
    assert r.missing_attempts == 0
    assert r.early_stopped


def test_table_row_6_pass_gap() -> None:
    r = reduce_one(task("t", attempt(2, {"correct": T}), k=3, strategy="pass"))["correct.pass@3"]
    _expect(r, 1.0, "evaluated", True)
    assert r.missing_attempts == 2


def test_table_row_7_pass_cancelled_success() -> None:
    record = task(
        "t", {"correct": F}, attempt(2, {"correct": T}, status="cancelled"), k=3, strategy="pass"
    )
    r = reduce_one(record)["correct.pass@3"]
    _expect(r, 1.0, "evaluated", True)
    assert r.missing_attempts == 1


def test_table_row_8_pass_fail_then_error() -> None:
    record = task(
        "t",
        {"correct": F},
        attempt(2, status="run_error", issues=[issue("error", "run")]),
        k=3,
        strategy="pass",
    )
    _expect(reduce_one(record)["correct.pass@3"], None, "error", True)


@pytest.mark.parametrize("strategy", ["avg", "pass"])
def test_table_row_9_any_fatal_invalidates(strategy: str) -> None:
    record = task(
        "t",
        {"correct": T},
        attempt(2, {"correct": T}, issues=[FATAL]),
        {"correct": T},
        strategy=strategy,
    )
    reductions = reduce_one(record)
    assert reductions  # avg: avg@3 and pass@3; pass: pass@3
    for r in reductions.values():
        _expect(r, None, "invalidated", True)


# ----------------------------------------------------------------------------- §10 items


def test_item_01_unavailable_includes_error_state() -> None:
    tasks = [
        task("evaluated", {"correct": T}),
        task("error", attempt(1, status="eval_error", issues=[ERROR])),
        task("unavailable", attempt(1)),
    ]
    counts = report_of(tasks).series[0].counts
    assert (counts.total, counts.evaluated, counts.unavailable) == (3, 1, 2)
    assert (counts.error, counts.invalidated) == (1, 0)


def test_item_02_error_overlaps_other_counts() -> None:
    tasks = [
        task("evaluated-with-error", attempt(1, {"correct": T}, issues=[ERROR])),
        task("fatal", attempt(1, {"correct": T}, issues=[FATAL])),
    ]
    counts = report_of(tasks).series[0].counts
    assert (counts.total, counts.evaluated, counts.invalidated, counts.unavailable) == (2, 1, 1, 0)
    assert counts.error == 2
    assert counts.evaluated + counts.error > counts.total


def test_item_03_total_invalidated_error_shared_by_series() -> None:
    tasks = [
        task("a", {"correct": T}),
        task("b", attempt(1, {"correct": F, "reward": 1.0}, issues=[ERROR])),
        task("c", attempt(1, {"correct": T, "reward": 1.0}, issues=[FATAL])),
    ]
    correct, reward = report_of(tasks, contract=BINARY_REWARD).series
    assert correct.counts.to_json() == {
        "total": 3,
        "evaluated": 2,
        "error": 2,
        "unavailable": 0,
        "invalidated": 1,
    }
    assert reward.counts.to_json() == {
        "total": 3,
        "evaluated": 1,
        "error": 2,
        "unavailable": 1,
        "invalidated": 1,
    }


def test_item_04_error_issue_does_not_void_observation() -> None:
    r = reduce_one(task("t", attempt(1, {"correct": T}, status="eval_error", issues=[ERROR])))
    _expect(r["correct.native@1"], 1.0, "evaluated", True)
    assert r["correct.native@1"].coverage.error == 1


def test_item_05_fatal_invalidates_every_series_and_fails_the_report() -> None:
    tasks = [
        task("ok", {"correct": T, "reward": 1.0}, {"correct": T, "reward": 1.0}),
        task(
            "fatal-after-success",
            {"correct": T, "reward": 1.0},
            attempt(2, issues=[FATAL]),
        ),
    ]
    report = report_of(tasks, k=2, contract=BINARY_REWARD)
    assert report.evaluation_failed
    assert [s.series_id for s in report.series] == [
        "correct.avg@2",
        "correct.pass@2",
        "reward.avg@2",
    ]
    for series in report.series:
        assert series.counts.invalidated == 1
        assert series.value is None
        assert series.reference_value == 1.0


def test_item_06_failed_evaluation_moves_values_to_reference() -> None:
    tasks = [
        task("a1", {"correct": T}, category="a"),
        task("a2", {"correct": F}, category="a"),
        task("b1", attempt(1, {"correct": T}, issues=[FATAL]), category="b"),
    ]
    hierarchy = {"overall": {"aggregation": "unweighted", "children": {"a": {}, "b": {}}}}
    series = report_of(tasks, hierarchy=hierarchy).series[0]
    assert (series.value, series.reference_value) == (None, 0.5)
    assert (series.categories["a"].value, series.categories["a"].reference_value) == (None, 0.5)
    assert (series.categories["b"].value, series.categories["b"].reference_value) == (None, None)
    overall = series.hierarchy["overall"]
    assert (overall.value, overall.reference_value) == (None, 0.5)


@pytest.mark.parametrize(
    ("attempts", "missing", "has_error"),
    [
        pytest.param(
            [attempt(1, {"correct": F}), attempt(2, {"correct": T})], 0, False, id="1F-2T"
        ),
        pytest.param([attempt(2, {"correct": T})], 2, True, id="gap-2T"),
        pytest.param(
            [attempt(1, {"correct": F}), attempt(3, {"correct": T})], 1, True, id="gap-1F-3T"
        ),
        pytest.param(
            [attempt(1, {"correct": F}), attempt(2, {"correct": T}, status="cancelled")],
            1,
            True,
            id="cancelled",
        ),
        pytest.param([attempt(1, {"correct": T}, status="interrupted")], 2, True, id="interrupted"),
        pytest.param([attempt(1, {"correct": T}, status="skipped")], 2, True, id="skipped"),
        pytest.param(
            [attempt(1, {"correct": T}, status="run_error")], 0, False, id="run_error-status"
        ),
    ],
)
def test_item_07_pass_early_stop_needs_contiguity(
    attempts: list, missing: int, has_error: bool
) -> None:
    r = reduce_one(task("t", *attempts, k=3, strategy="pass"))["correct.pass@3"]
    assert (r.value, r.state) == (1.0, "evaluated")
    assert (r.missing_attempts, r.has_error) == (missing, has_error)


def test_item_08_early_stop_reads_the_tasks_own_strategy() -> None:
    pass_series = resolve_attempt_strategy("pass").resolve(BINARY_ONLY, 3).series
    as_avg = task("t", {"correct": T}, k=3, strategy="avg")
    as_pass = task("t", {"correct": T}, k=3, strategy="pass")
    ((r_avg,),) = reduce_tasks([as_avg], pass_series, BINARY_ONLY, 3).values()
    ((r_pass,),) = reduce_tasks([as_pass], pass_series, BINARY_ONLY, 3).values()
    assert (r_avg.missing_attempts, r_avg.has_error) == (2, True)
    assert (r_pass.missing_attempts, r_pass.has_error) == (0, False)


def test_item_08_run_plan_must_match_the_tasks_plan() -> None:
    with pytest.raises(ObservationError, match="attempt_plan"):
        report_of([task("t", {"correct": T}, k=3, strategy="avg")], k=3, strategy="pass")


def test_item_09_pass_at_k_evaluated_while_avg_at_k_is_error() -> None:
    r = reduce_one(task("t", {"correct": T}, None, None))
    _expect(r["correct.avg@3"], None, "error", True)
    _expect(r["correct.pass@3"], 1.0, "evaluated", True)


def test_item_10_avg_needs_all_k_observations() -> None:
    r = reduce_one(task("t", {"correct": T}, {"correct": T}, attempt(3)))
    _expect(r["correct.avg@3"], None, "unavailable", False)
    _expect(r["correct.pass@3"], 1.0, "evaluated", False)


def test_item_10_timeout_metrics_make_a_task_evaluated_and_error() -> None:
    timed_out = attempt(
        1,
        {"correct": F, "reward": 0.0},
        status="eval_error",
        issues=[issue("error", "evaluate", "evaluate_failed", "PhaseTimeoutError")],
    )
    r = reduce_one(task("t", timed_out), BINARY_REWARD)
    _expect(r["correct.native@1"], 0.0, "evaluated", True)
    _expect(r["reward.native@1"], 0.0, "evaluated", True)


@pytest.mark.parametrize(
    ("status", "metrics", "value", "state"),
    [
        ("skipped", {"correct": T}, 1.0, "evaluated"),
        ("completed", {}, None, "unavailable"),
        ("run_error", {}, None, "unavailable"),
        ("eval_error", {"correct": F}, 0.0, "evaluated"),
    ],
)
def test_item_11_status_never_substitutes_for_observations(
    status: str, metrics: dict, value: float | None, state: str
) -> None:
    r = reduce_one(task("t", attempt(1, metrics, status=status)))["correct.native@1"]
    _expect(r, value, state, False)


def test_item_12_warnings_have_no_effect() -> None:
    plain = reduce_one(task("t", {"correct": T}, attempt(2)))
    warned = reduce_one(
        task(
            "t",
            attempt(1, {"correct": T}, issues=[WARNING]),
            attempt(2, status="run_error", issues=[WARNING, WARNING]),
        )
    )
    for series_id, r in plain.items():
        w = warned[series_id]
        assert (w.value, w.state, w.has_error, w.coverage) == (
            r.value,
            r.state,
            r.has_error,
            r.coverage,
        )
        assert w.coverage.error == 0
    _expect(plain["correct.avg@2"], None, "unavailable", False)


@pytest.mark.parametrize(
    ("tasks", "k"),
    [
        pytest.param([task("t", {"correct": T, "undeclared": 1.0})], 1, id="undeclared-metric"),
        pytest.param([task("t", {"correct": 1})], 1, id="binary-as-int"),
        pytest.param([task("t", {"correct": T, "reward": True})], 1, id="scalar-as-bool"),
        pytest.param([task("t", {"correct": T, "reward": math.nan})], 1, id="nan"),
        pytest.param([task("t", {"correct": T, "reward": math.inf})], 1, id="inf"),
        pytest.param([task("t", {"correct": None})], 1, id="null-value"),
        pytest.param([task("t", {"correct": "yes"})], 1, id="binary-as-string"),
        pytest.param(
            [task("t", attempt(1, {"correct": T}, status="done"))], 1, id="unknown-status"
        ),
        pytest.param([task("t", attempt(0, {"correct": T}), k=1)], 1, id="attempt-0"),
        pytest.param([task("t", attempt(3, {"correct": T}), k=2)], 2, id="index-beyond-k"),
        pytest.param([task("t", {"correct": T}), task("t", {"correct": F})], 1, id="duplicate-id"),
        pytest.param([task(" t", {"correct": T})], 1, id="task-id-whitespace"),
        pytest.param([task("t", {"correct": T}, k=2)], 1, id="plan-k-differs"),
        pytest.param([task("t", {"correct": T}, strategy="pass")], 1, id="plan-strategy-differs"),
    ],
)
def test_item_13_strictness_aborts_the_aggregation(tasks: list, k: int) -> None:
    # An attempt-level ``error`` key is refused by the reader: TaskRecord has no such field.
    with pytest.raises(ObservationError):
        report_of(tasks, k=k, contract=BINARY_REWARD)


def test_item_14_integer_scalars_become_floats_at_reduction() -> None:
    native = reduce_one(task("t", {"score": 1}), SCORE_ONLY)["score.native@1"]
    assert native.value == 1.0 and type(native.value) is float
    avg = reduce_one(task("t", {"score": 1}, {"score": 2}), SCORE_ONLY)["score.avg@2"]
    assert avg.value == 1.5 and type(avg.value) is float
    report = report_of([task("t", {"score": 3})], contract=SCORE_ONLY)
    assert report.series[0].value == 3.0 and type(report.series[0].value) is float


def test_item_52_completed_status_with_error_issue_still_stops_pass() -> None:
    record = task(
        "t", attempt(1, {"correct": T}, status="completed", issues=[ERROR]), k=3, strategy="pass"
    )
    r = reduce_one(record)["correct.pass@3"]
    assert (r.value, r.state, r.missing_attempts) == (1.0, "evaluated", 0)
    assert r.has_error  # from coverage.error, not from missing attempts
    assert r.coverage.error == 1


# ----------------------------------------------------------------------------- reasons


def _reason(r: TaskReduction, code: str):
    matches = [reason for reason in r.reasons if reason.code == code]
    assert matches, f"no {code} reason in {r.reasons}"
    return matches[0]


def test_reasons_missing_error_and_not_observed() -> None:
    record = task("t", {"correct": T}, attempt(2, status="eval_error", issues=[ERROR]), None)
    r = reduce_one(record)["correct.avg@3"]
    assert codes(r) == {"missing_attempts", "error_issue", "metric_not_observed"}
    assert _reason(r, "missing_attempts").attempts == (3,)
    error = _reason(r, "error_issue")
    assert (error.attempts, error.issue) == ((2,), ERROR)
    assert _reason(r, "metric_not_observed").attempts == (2,)


def test_reasons_fatal_names_attempt_and_issue() -> None:
    record = task("t", {"correct": T}, attempt(2, {"correct": T}, issues=[ERROR, FATAL]))
    for r in reduce_one(record).values():
        assert r.state == INVALIDATED
        fatal = _reason(r, "fatal_issue")
        assert (fatal.attempts, fatal.issue) == ((2,), FATAL)


def test_reasons_read_an_error_issue_and_a_fatal_issue() -> None:
    """The article agrees with the severity (issue 14 item 9: not "a ERROR issue")."""
    record = task("t", {"correct": T}, attempt(2, {"correct": T}, issues=[ERROR]))
    assert _reason(reduce_one(record)["correct.avg@2"], "error_issue").text == (
        "attempt 2 has an ERROR issue evaluate/verifier_failed: grader crashed"
    )
    record = task("t", {"correct": T}, attempt(2, {"correct": T}, issues=[FATAL]))
    r = reduce_one(record)["correct.avg@2"]
    assert (
        _reason(r, "fatal_issue").text == "attempt 2 has a FATAL issue run/model_failed: HTTP 500"
    )


def test_reasons_evaluated_with_error_names_only_error_issues() -> None:
    record = task(
        "t",
        attempt(1, {"correct": T}, issues=[ERROR]),
        attempt(2, {"correct": T}, issues=[WARNING]),
    )
    r = reduce_one(record)["correct.avg@2"]
    assert r.state == EVALUATED and r.has_error
    assert codes(r) == {"error_issue"}
    assert [reason.issue for reason in r.reasons] == [ERROR]


def test_reasons_unavailable_names_the_attempts_without_the_metric() -> None:
    record = task("t", {"correct": F, "reward": 0.5}, {"correct": F}, {"correct": F})
    r = reduce_one(record, BINARY_REWARD)["reward.avg@3"]
    assert r.state == "unavailable"
    assert codes(r) == {"metric_not_observed"}
    assert _reason(r, "metric_not_observed").attempts == (2, 3)


@pytest.mark.parametrize(
    "record",
    [
        pytest.param(task("t", attempt(2, {"correct": T}), k=3, strategy="pass"), id="gap"),
        pytest.param(
            task(
                "t",
                {"correct": F},
                attempt(2, {"correct": T}, status="cancelled"),
                k=3,
                strategy="pass",
            ),
            id="cancelled",
        ),
    ],
)
def test_reasons_early_stop_not_credited(record) -> None:
    r = reduce_one(record)["correct.pass@3"]
    assert r.state == EVALUATED and r.has_error
    assert {"missing_attempts", "early_stop_not_credited"} <= codes(r)


def test_reasons_retry_only_attempt_is_named() -> None:
    record = task("t", {"correct": T}, None, k=2, retry_counts={2: 3})
    r = reduce_one(record)["correct.avg@2"]
    assert r.state == "error"
    assert _reason(r, "missing_attempts").attempts == (2,)
    assert _reason(r, "retry_only_attempts").attempts == (2,)


def test_no_reasons_for_a_clean_evaluated_task() -> None:
    for r in reduce_one(task("t", {"correct": T}, {"correct": F})).values():
        assert r.reasons == ()


# ----------------------------------------------------------------------------- alike tasks


def _alone(record: TaskRecord, contract: MetricContract, k: int, strategy: str) -> list[tuple]:
    plan = resolve_attempt_strategy(strategy).resolve(contract, k)
    by_series = reduce_tasks([record], plan.series, contract, k)
    return [_fields(r) for (r,) in by_series.values()]


def _fields(r: TaskReduction) -> tuple:
    # repr tells -0.0 from 0.0 and keeps NaN equal to itself.
    return (r.task_id, r.series_id, repr(r.value), r.state, r.has_error, r.coverage,
            r.missing_attempts, r.invalidated, r.early_stopped, r.reasons)  # fmt: skip


def _streamed(tasks: list[TaskRecord], contract: MetricContract, k: int, strategy: str) -> Any:
    stream = ReductionStream(contract, k, strategy)
    stream.add(tasks)
    assert not stream.failed
    by_task: dict[str, list[tuple]] = {t.task_id: [] for t in tasks}
    for reductions in stream.by_series.values():
        for r in reductions:
            by_task[r.task_id].append(_fields(r))
    return stream, by_task


ALIKE_CASES = {
    # name: (contract, strategy, k, tasks that differ only where the reduction may differ,
    # how many are reduced for others alike: float zeros never are, as -0.0 == 0.0)
    "types": (
        SCORE_ONLY,
        "avg",
        3,
        [
            task("int", {"score": 1}, {"score": 1}, {"score": 1}),
            task("float", {"score": 1.0}, {"score": 1.0}, {"score": 1.0}),
            task("int again", {"score": 1}, {"score": 1}, {"score": 1}),
        ],
        2,
    ),
    "signed zero": (
        SCORE_ONLY,
        "avg",
        3,
        [
            task("minus", {"score": -0.0}, {"score": -0.0}, {"score": -0.0}),
            task("plus", {"score": 0.0}, {"score": 0.0}, {"score": 0.0}),
            task("minus again", {"score": -0.0}, {"score": -0.0}, {"score": -0.0}),
        ],
        0,
    ),
    "issues": (
        BINARY_ONLY,
        "avg",
        3,
        [
            task("plain", {"correct": T}, {"correct": F}, {"correct": T}),
            task(
                "error", {"correct": T}, attempt(2, {"correct": F}, issues=[ERROR]), {"correct": T}
            ),
            task(
                "fatal", {"correct": T}, attempt(2, {"correct": F}, issues=[FATAL]), {"correct": T}
            ),
            task(
                "warning",
                {"correct": T},
                attempt(2, {"correct": F}, issues=[WARNING]),
                {"correct": T},
            ),
            task("plain again", {"correct": T}, {"correct": F}, {"correct": T}),
            task(
                "error again",
                {"correct": T},
                attempt(2, {"correct": F}, issues=[ERROR]),
                {"correct": T},
            ),
        ],
        4,
    ),
    "status and index": (
        BINARY_ONLY,
        "avg",
        3,
        [
            task("completed", {"correct": T}, None, None),
            task("second", None, {"correct": T}, None),
            task("failed", attempt(1, {"correct": T}, status="run_error"), None, None),
            task("completed again", {"correct": T}, None, None),
        ],
        3,
    ),
    "retries and plan": (
        BINARY_ONLY,
        "pass",
        3,
        [
            task("pass", {"correct": T}, None, None, strategy="pass"),
            task("avg", {"correct": T}, None, None, strategy="avg"),
            task("retried", {"correct": T}, None, None, strategy="pass", retry_counts={2: 1}),
            task("pass again", {"correct": T}, None, None, strategy="pass"),
        ],
        3,
    ),
}


@pytest.mark.parametrize("case", list(ALIKE_CASES))
def test_alike_tasks_reduce_as_each_does_alone(case: str) -> None:
    """A run's stream reduces a task once per set of alike attempts and gives the others
    its reductions under their own ids: each task's reductions are exactly what reducing
    it alone gives, including where values are equal but not alike (``1`` / ``1.0``,
    ``-0.0`` / ``0.0``) and where only an issue, a status, an index, a retry count or the
    task's own strategy differs."""
    contract, strategy, k, tasks, kept = ALIKE_CASES[case]
    stream, by_task = _streamed(tasks, contract, k, strategy)
    for record in tasks:
        assert by_task[record.task_id] == _alone(record, contract, k, strategy), record.task_id
    # Each task named "... again" is alike an earlier one: reduced once for both.
    assert len(stream.alike) == kept


def test_nan_observations_are_reduced_each_time() -> None:
    """NaN is never equal to itself: such a task is reduced on its own, never taken as
    alike (the reduction of a NaN observation fails the same way each time)."""
    tasks = [task(name, {"score": math.nan}, {"score": 1}, {"score": 1}) for name in "ab"]
    stream = ReductionStream(SCORE_ONLY, 3, "avg")
    stream.add(tasks)
    assert stream.alike == {}
