"""What a run's attempts say beyond its series: flaky tasks (attempts that disagree on a
metric) and pass@j / pass^j curves with their intervals.

Pure (no I/O, no textual, no rich), read from one :class:`~inspector.engine.Recomputation`
as :mod:`inspector.views.run_stats` reads the intervals of its series.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspector.engine.contract import BINARY
from inspector.engine.recomputation import Recomputation
from inspector.views.bounded import bounded
from inspector.views.stats import DEFAULT_CONFIDENCE, Interval, mean_interval

WHAT_CHEN = "tasks' unbiased estimates (Chen et al. 2021)"


# -- flaky tasks --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AttemptOutcome:
    attempt: int
    status: str | None  # None: the attempt has no result
    value: bool | float | None  # None: no observation of the metric


@dataclass(frozen=True, slots=True)
class FlakyTask:
    """A task whose recorded attempts disagree on a metric.

    ``disagreement`` is ``4 p (1 − p)`` for a binary metric, p = c / n the share of the n
    observations that pass (1 for an even split, 8/9 for 1 of 3 or 2 of 3), and
    ``max − min`` of the observations for a scalar one.
    """

    task_id: str
    category: str
    metric_id: str
    kind: str
    outcomes: tuple[AttemptOutcome, ...]
    passes: int | None
    observed: int
    disagreement: float


def outcomes_text(f: FlakyTask) -> str:
    """``1:✓ 2:✗ 3:—`` (binary) or ``1:0.5 2:1`` (scalar); ``—`` no observation."""
    parts = []
    for o in f.outcomes:
        if o.value is None:
            mark = "—" if o.status is None else f"— ({o.status})"
        elif isinstance(o.value, bool):
            mark = "✓" if o.value else "✗"
        else:
            mark = f"{o.value:g}"
        parts.append(f"{o.attempt}:{mark}")
    return " ".join(parts)


def flaky_metrics(rec: Recomputation) -> list[str]:
    """The metrics checked for flakiness: the primary and every binary metric."""
    contract = rec.plan.contract
    return [m for m, spec in contract.metrics.items() if spec.primary or spec.kind == BINARY]


# A declared k up to this lists every attempt of a flaky task, recorded or not; above it
# (k = 2000 declared, 3 recorded) only the recorded ones: the cost follows the attempts present.
LIST_MISSING_UP_TO = 64


def flaky_tasks(rec: Recomputation) -> tuple[FlakyTask, ...]:
    """Tasks whose attempts disagree, most disagreement first (then task order)."""
    k = rec.plan.k
    keys = rec.category_keys
    out: list[tuple[float, int, FlakyTask]] = []
    contract = rec.plan.contract
    metrics = [(m, contract.metrics[m].kind) for m in flaky_metrics(rec)]
    for position, task in enumerate(rec.tasks):
        if len(task.attempts) < 2:
            continue
        for metric_id, kind in metrics:
            observed = [a.metrics[metric_id] for a in task.attempts.values()
                        if metric_id in a.metrics]  # fmt: skip
            if len({float(v) for v in observed}) < 2:
                continue
            outcomes = []
            listed = range(1, k + 1) if k <= LIST_MISSING_UP_TO else sorted(task.attempts)
            for index in listed:
                attempt = task.attempts.get(index)
                value = None if attempt is None else attempt.metrics.get(metric_id)
                outcomes.append(AttemptOutcome(index, attempt.status if attempt else None, value))
            numbers = [float(v) for v in observed]
            if kind == BINARY:
                passes = sum(v is True for v in observed)
                share = passes / len(observed)
                spread = 4 * share * (1 - share)
            else:
                passes, spread = None, max(numbers) - min(numbers)
            flaky = FlakyTask(task.task_id, keys[position], metric_id, kind, tuple(outcomes),
                              passes, len(observed), spread)  # fmt: skip
            out.append((-spread, position, flaky))
    out.sort(key=lambda item: (item[0], item[1]))
    return tuple(f for _, _, f in out)


# -- pass@j / pass^j ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PassCurve:
    """Chen et al.'s pass@j and pass^j for j = 1..k of one binary metric, with se."""

    metric_id: str
    k: int
    tasks: int  # tasks with all k observations (the estimate's n)
    excluded: int  # tasks left out: invalidated, or an attempt without an observation
    pass_at: tuple[Interval, ...]
    pass_hat: tuple[Interval, ...]
    # AgentCompass's own series of this metric (series id → shown value), for comparison.
    agentcompass: Mapping[str, float | None]


def pass_curves_note(rec: Recomputation) -> str | None:
    """Why the run has no pass@j curves, or None when it has them."""
    plan = rec.plan
    if plan.k < 2:
        return "pass@j / pass^j need k ≥ 2 attempts per task (this plan has k=1)"
    if plan.strategy != "avg":
        return (
            f"pass@j / pass^j need every attempt run; under {plan.strategy} attempts "
            "stop early after a success"
        )
    return None


def pass_curves(
    rec: Recomputation, *, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[PassCurve, ...]:
    """pass@j / pass^j per binary metric over the tasks whose k attempts all observed it."""
    if pass_curves_note(rec) is not None:
        return ()
    k = rec.plan.k
    curves = []
    for metric_id, spec in rec.plan.contract.metrics.items():
        if spec.kind != BINARY:
            continue
        counts = []
        for task in rec.tasks:
            if len(task.attempts) < k:  # O(1): a task without k recorded attempts is left out
                continue
            attempts = [task.attempts.get(i) for i in range(1, k + 1)]
            if any(a is None or a.has_fatal or metric_id not in a.metrics for a in attempts):
                continue
            counts.append(sum(a.metrics[metric_id] is True for a in attempts))  # type: ignore[union-attr]
        at, hat = _curves(k, counts, confidence)
        ours = {
            s.series_id: s.shown_value
            for s in rec.report.series
            if s.metric_id == metric_id and s.reducer in ("avg", "pass")
        }
        curves.append(PassCurve(metric_id, k, len(counts), len(rec.tasks) - len(counts),
                                at, hat, ours))  # fmt: skip
    return tuple(curves)


def _products(n: int, good: int) -> list[float]:
    """``C(good, j) / C(n, j)`` for j = 0..n, each from the last: ``· (good − j + 1)/(n − j + 1)``
    (O(n) float products instead of exact binomials for every j)."""
    out = [1.0]
    for j in range(1, n + 1):
        out.append(out[-1] * max(0, good - j + 1) / (n - j + 1))
    return out


def _curves(
    k: int, counts: Sequence[int], confidence: float
) -> tuple[tuple[Interval, ...], tuple[Interval, ...]]:
    """pass@j and pass^j for j = 1..k over tasks with ``counts`` passes of k: Chen et al.'s
    ``1 − C(k − c, j)/C(k, j)`` and ``C(c, j)/C(k, j)``, one table a distinct count
    (O(k · distinct counts) ≤ O(attempts present)); no points without such a task."""
    if not counts:
        return (), ()
    fail = {c: _products(k, k - c) for c in set(counts)}
    hat = {c: _products(k, c) for c in set(counts)}

    def points(values_at: Any) -> tuple[Interval, ...]:
        out = []
        for j in range(1, k + 1):
            values = [values_at(c, j) for c in counts]
            t = mean_interval(values, confidence=confidence, what=WHAT_CHEN)
            out.append(bounded(t, n_tasks=len(values), attempts=k, values_text=WHAT_CHEN,
                               head=f"mean of {len(values)} {WHAT_CHEN}"))  # fmt: skip
        return tuple(out)

    return points(lambda c, j: 1 - fail[c][j]), points(lambda c, j: hat[c][j])
