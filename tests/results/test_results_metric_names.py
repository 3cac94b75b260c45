"""Metric names and values are checked on every attempt, however many plain attempts came
before (a cache of names found plain, tried in 5e4100a, must never let a bad one through)."""

from __future__ import annotations

import pytest

from inspector.results.validate import DetailError, shape_attempt

PLAIN = {
    "status": "completed",
    "final_answer": "42",
    "trajectory": {},
    "issues": [],
    "artifacts": {},
    "analysis_result": {},
    "meta": {"benchmark": {}, "harness": {}},
}


def _attempt(metrics: dict[object, object]) -> dict[str, object]:
    return {**PLAIN, "metrics": metrics}


@pytest.mark.parametrize(
    ("metrics", "says"),
    [
        ({" correct": True}, "surrounding whitespace"),
        ({"correct ": True}, "surrounding whitespace"),
        ({"": True}, "non-empty strings"),
        ({"  ": True}, "non-empty strings"),
        ({"correct": True, 1: True}, "non-empty strings"),
        ({"correct": None}, "is null"),
        ({"correct": float("inf")}, "non-finite float"),
        ({"correct": "yes"}, "got str"),
    ],
)
def test_a_bad_metric_is_refused_after_plain_ones(metrics: dict[object, object], says: str) -> None:
    for _ in range(3):  # the plain names are known from here on
        shape_attempt(_attempt({"correct": True, "score": 0.5}), "1")
    with pytest.raises(DetailError, match=says):
        shape_attempt(_attempt(metrics), "1")


def test_a_plain_attempt_keeps_its_metrics() -> None:
    metrics = {"correct": True, "score": 0.5}
    first = shape_attempt(_attempt(dict(metrics)), "1")
    again = shape_attempt(_attempt(dict(metrics)), "2")
    assert first.metrics == again.metrics == metrics
