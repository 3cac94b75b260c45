"""The k=1 lottery: the k=1 value a k-attempt run would have reported on each attempt.

Pure (no textual, no rich, no I/O). For attempt j = 1..k, every task's attempt j is taken as
if it were its only one (:func:`inspector.engine.whatif.only_attempt`) and the run is scored
as k=1 by the engine (:func:`~inspector.engine.recomputation.recompute`): the value a run
with one attempt would have reported, had that attempt been the one it ran. Shown beside
avg@k and pass@k (the what-if screen, ``inspector stats --format json`` as
``single_attempt``). Under ``pass``, attempt j > 1 was run only where the earlier ones did
not succeed: its k=1 value is not a fair draw (:data:`PASS_NOTE`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from inspector.engine.aggregation import mean
from inspector.engine.recomputation import Recomputation, recompute
from inspector.engine.render import REFERENCE_MARK
from inspector.engine.report import MetricSeries, SeriesCounts
from inspector.engine.whatif import only_attempt

PASS_NOTE = (
    "under pass, an attempt after the first ran only where the earlier ones did not succeed "
    "(a task that stopped early has no such attempt: at k=1 it is an error)"
)


@dataclass(frozen=True, slots=True)
class Draw:
    """The k=1 report's value of one series had attempt ``attempt`` been the only one."""

    attempt: int
    value: float | None
    counts: SeriesCounts
    reference: bool = False  # ``value`` is the series' ``reference_value`` (evaluation failed)


@dataclass(frozen=True, slots=True)
class Beside:
    """One of the run's own series of the metric, its shown value and whether a reference."""

    series_id: str
    value: float | None
    reference: bool = False


def _is_reference(series: MetricSeries) -> bool:
    return series.value is None and series.reference_value is not None


@dataclass(frozen=True, slots=True)
class Lottery:
    """One metric's k=1 values over the attempts, beside the run's own series of it."""

    series_id: str  # the k=1 series (``correct.native@1``)
    metric_id: str
    draws: tuple[Draw, ...]
    beside: tuple[Beside, ...]  # the run's series of the metric

    @property
    def values(self) -> list[float]:
        return [d.value for d in self.draws if d.value is not None]

    @property
    def low(self) -> float | None:
        return min(self.values) if self.values else None

    @property
    def high(self) -> float | None:
        return max(self.values) if self.values else None

    @property
    def mean(self) -> float | None:
        return mean(self.values)


def lottery(rec: Recomputation) -> tuple[Lottery, ...]:
    """Per metric of the run, its k=1 value on each attempt (empty for a k=1 run)."""
    k = rec.plan.k
    if k < 2:
        return ()
    plan = replace(rec.plan, k=1, derived="k=1 on one attempt")
    reports = [recompute(only_attempt(rec.tasks, j), plan).report for j in range(1, k + 1)]
    out = []
    for first in reports[0].series:
        draws = []
        for j, report in enumerate(reports, start=1):
            series = next(s for s in report.series if s.series_id == first.series_id)
            draws.append(Draw(j, series.shown_value, series.counts, _is_reference(series)))
        beside = tuple(
            Beside(s.series_id, s.shown_value, _is_reference(s))
            for s in rec.report.series
            if s.metric_id == first.metric_id
        )
        out.append(Lottery(first.series_id, first.metric_id, tuple(draws), beside))
    return tuple(out)


def lottery_json(lotteries: tuple[Lottery, ...]) -> dict[str, Any]:
    """``single_attempt`` of ``inspector stats --format json``: per k=1 series, a list of
    ``{attempt, value, reference, counts}``; ``reference`` is true where the value is only the
    k=1 report's ``reference_value`` (its evaluation failed: an invalidated task)."""
    return {
        lot.series_id: [
            {
                "attempt": d.attempt,
                "value": d.value,
                "reference": d.reference,
                "counts": d.counts.to_json(),
            }
            for d in lot.draws
        ]
        for lot in lotteries
    }


def lottery_text(lot: Lottery, strategy: str) -> str:
    """``correct.native@1 on attempt 1 / 2 / 3: 0.6481 / 0.5 / 0.4907 (min … max …, mean …)
    beside correct.avg@3 0.5469, correct.pass@3 0.8241``; a reference value reads
    ``0.8241 (reference)``."""
    values = " / ".join(_number(d.value, d.reference) for d in lot.draws)
    attempts = " / ".join(str(d.attempt) for d in lot.draws)
    text = f"{lot.series_id} on attempt {attempts}: {values}"
    if lot.low is not None and lot.high is not None and lot.mean is not None:
        refs = sum(d.reference for d in lot.draws)
        of = f", {refs} of {len(lot.draws)} a reference" if refs else ""
        text += f" (min {lot.low:.4g}, max {lot.high:.4g}, mean {lot.mean:.4g}{of})"
    beside = ", ".join(f"{b.series_id} {_number(b.value, b.reference)}" for b in lot.beside)
    text += f" beside {beside}" if beside else ""
    return text + (f"; {PASS_NOTE}" if strategy == "pass" else "")


def _number(value: float | None, reference: bool) -> str:
    if value is None:
        return "—"
    return f"{value:.4g}{REFERENCE_MARK if reference else ''}"
