"""Benchmark rules named where their values are shown.

Pure (no textual, no rich). A value a benchmark's own rule made — an evaluation-timeout
fallback observation (``evaluation_timeout_metrics``, spec §5), a corpus formula (ratio of
sums, a sum, a benchmark-supplied value, spec §7.3) — is said with the rule that made it,
and the report's ``extra`` (dataset revision, scoring note, ...) is listed as it stands.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inspector.engine.benchmarks import timeout_metrics
from inspector.engine.model import Attempt
from inspector.engine.recomputation import Recomputation
from inspector.engine.report import MetricSeries
from inspector.engine.vocabulary import plural

TIMEOUT_RULE = "evaluation_timeout_metrics"
WATCHDOG = "PhaseTimeoutError"
"""How the watchdog's issue message starts (``runner._build_evaluation_error``: the
exception's type name, then its text)."""


@dataclass(frozen=True, slots=True)
class RuleRow:
    """One rule or report fact: a key, its value, and where it comes from."""

    key: str
    value: str
    source: str


def json_value(value: Any) -> str:
    """A JSON value as JSON writes it (``false``, ``0.0``, ``"x"``); text as it is."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def _assignments(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{key} = {json.dumps(value)}" for key, value in values.items())


def timeout_fallback(benchmark_id: str, attempt: Attempt) -> str | None:
    """Why an attempt's observations are the benchmark's evaluation-timeout fallback, or None.

    AgentCompass records ``evaluation_timeout_metrics`` only when its evaluation watchdog
    fires, under the ERROR ``evaluate/evaluate_failed`` issue it writes for it
    ("PhaseTimeoutError: ..."), merged under the metrics already there; so an attempt with
    that issue whose observations of those metrics equal the declared values (types
    included) got them from the rule.
    """
    fallback = timeout_metrics(benchmark_id)
    if not fallback:
        return None
    timed_out = any(
        (i.severity, i.phase, i.code) == ("error", "evaluate", "evaluate_failed")
        and i.message.startswith(WATCHDOG)
        for i in attempt.issues
    )
    matches = all(
        key in attempt.metrics
        and type(attempt.metrics[key]) is type(value)
        and attempt.metrics[key] == value
        for key, value in fallback.items()
    )
    if not (timed_out and matches):
        return None
    return (
        f"{_assignments(fallback)}: {benchmark_id}'s {TIMEOUT_RULE}, the fallback "
        "AgentCompass records when its evaluation watchdog fires; the ERROR issue stays, "
        "so the task counts as evaluated and as error"
    )


def formula_words(series: MetricSeries) -> str | None:
    """How a corpus-formula series is made, in words; None for a standard series."""
    extra = series.extra
    if series.aggregation == "ratio_of_sums":
        numerator = extra.get("numerator_metric", "?")
        denominator = extra.get("denominator_metric", "?")
        return (
            f"Σ {numerator} ÷ Σ {denominator} over the tasks where both are evaluated "
            "(ratio of sums, not a mean of task values)"
        )
    if series.aggregation == "sum":
        return f"the sum of {series.metric_id} over the evaluated tasks (not a mean)"
    if series.aggregation == "benchmark":
        return "a value the benchmark computes from the tasks (not a mean)"
    return None


def benchmark_rules(rec: Recomputation) -> tuple[RuleRow, ...]:
    """The benchmark's rules that made values on screen, and the report's ``extra``.

    The evaluation-timeout fallback is listed when some attempt holds its values (with how
    many); a corpus formula for each series it makes.
    """
    benchmark = rec.plan.benchmark_id
    rows = []
    for series in rec.report.series:
        words = formula_words(series)
        if words is not None:
            rows.append(RuleRow(series.series_id, words, f"{benchmark}'s corpus formula"))
    fallback = timeout_metrics(benchmark)
    if fallback:  # said when some attempt holds the fallback's values, not for every run
        used = sum(
            1 for t in rec.tasks for a in t.attempts.values() if timeout_fallback(benchmark, a)
        )
        if used:
            value = f"{_assignments(fallback)} in {plural(used, 'attempt')}"
            source = f"{benchmark}'s {TIMEOUT_RULE}: recorded when the evaluation watchdog fires"
            rows.append(RuleRow("eval timeout", value, source))
    for key, value in rec.report.extra.items():
        if not str(key).startswith("inspector_"):  # the inspector's own labels, said elsewhere
            rows.append(RuleRow(str(key), json_value(value), "report extra (metrics.json)"))
    return tuple(rows)


def series_rules(rec: Recomputation, task_id: str) -> dict[str, str]:
    """Per series id: the benchmark rule behind one task's value, in words (none: absent).

    A series of a metric the evaluation-timeout fallback supplied names the fallback and
    the attempts it came from; a corpus-formula series names its formula.
    """
    index = rec.task_index().get(task_id)
    if index is None:
        return {}
    task = rec.tasks[index]
    benchmark = rec.plan.benchmark_id
    fallback = timeout_metrics(benchmark)
    fell_back = [i for i, a in sorted(task.attempts.items()) if timeout_fallback(benchmark, a)]
    out: dict[str, str] = {}
    for series in rec.report.series:
        words = formula_words(series)
        if words is not None:
            out[series.series_id] = f"{benchmark}'s corpus formula: {words}"
        elif fell_back and series.metric_id in fallback:
            which = ", ".join(str(i) for i in fell_back)
            out[series.series_id] = (
                f"{series.metric_id} = {json.dumps(fallback[series.metric_id])} in attempt "
                f"{which} is {benchmark}'s {TIMEOUT_RULE} fallback, recorded when the "
                "evaluation watchdog fired (not a score the verifier gave)"
            )
    return out
