"""Task outcomes at a glance: one mark per attempt, and the reduction in words.

Pure (no textual, no rich). The marks read each attempt as the engine's reduction sees it
(its status, issues and the series' metric observation); the words list the observations
the reducer received, in attempt order, and end with the value the engine computed
(``TaskReduction.value``) — nothing here averages or reduces on its own.
"""

from __future__ import annotations

from collections.abc import Callable

from inspector.engine.model import Observation, TaskRecord
from inspector.engine.reduction import TaskReduction
from inspector.engine.report import MetricSeries
from inspector.engine.vocabulary import EVALUATED

PASSED = "✓"  # the metric is 1 / true
FAILED = "✗"  # 0 / false
PARTIAL = "◐"  # a partial score between 0 and 1
NOT_RUN = "·"  # missing, or never started after a pass early stop
ERROR = "!"  # an ERROR or FATAL issue
NO_VALUE = "?"  # no observation of the metric

REDUCER_WORDS = {"avg": "mean", "pass": "any"}
"""How the words name a reducer; ``native`` (k=1) shows the single observation."""


def attempt_mark(task: TaskRecord, index: int, metric_id: str) -> str:
    """The mark of attempt ``index`` (1-based) of ``task`` for ``metric_id``."""
    attempt = task.attempts.get(index)
    if attempt is None:
        return NOT_RUN
    if attempt.has_error_issue:
        return ERROR
    if metric_id not in attempt.metrics:
        return NO_VALUE
    value = float(attempt.metrics[metric_id])
    if value >= 1.0:
        return PASSED
    if value <= 0.0:
        return FAILED
    return PARTIAL


def attempt_marks(task: TaskRecord, k: int, metric_id: str) -> str:
    """One mark per attempt 1..k: ``✓✗·`` (the marks above)."""
    return "".join(attempt_mark(task, index, metric_id) for index in range(1, k + 1))


def observation_text(value: Observation) -> str:
    """An observation as the words show it: ``1`` / ``0`` for booleans, else ``%g``."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return f"{value:g}"


def reduction_words(
    task: TaskRecord,
    reduction: TaskReduction,
    series: MetricSeries,
    format_value: Callable[[float | None], str],
) -> str:
    """The reduction of an evaluated task in words: ``mean(0, 1, 1) = 0.6667``.

    The observations are the series' metric in attempt order (what the reducer was given);
    the value after ``=`` is the engine's. A task in another state gets its first reason.
    """
    if reduction.state != EVALUATED:
        return reduction.reasons[0].text if reduction.reasons else reduction.state
    values = [
        observation_text(task.attempts[i].metrics[series.metric_id])
        for i in sorted(task.attempts)
        if series.metric_id in task.attempts[i].metrics
    ]
    shown = format_value(reduction.value)
    word = REDUCER_WORDS.get(series.reducer)
    if word is None:  # native@1: the single observation is the value
        return shown
    words = f"{word}({', '.join(values)}) = {shown}"
    if reduction.early_stopped:
        words += " (stopped early)"
    return words
