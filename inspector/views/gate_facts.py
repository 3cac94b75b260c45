"""What the gate's rules need of a scored run (:mod:`inspector.views.gate`), taken from its
recomputation, and the paired analysis ``max_regression`` uses.

Pure (no I/O, no textual, no rich). The statistics are imported when first asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspector.engine.model import Issue
from inspector.engine.recomputation import Recomputation
from inspector.engine.strategies import HEADLINE
from inspector.engine.vocabulary import COUNTS, EVALUATED
from inspector.results.lazy import RetryRecord
from inspector.results.reader import Run
from inspector.views.audit import reductions_of
from inspector.views.gate import SeriesFacts

DERIVED_KEY = "inspector_derived_plan"
"""What a derived plan's metrics.json carries in ``extra`` (as :mod:`inspector.session`
writes it): a stored metrics.json carrying it was written by the inspector, not AgentCompass."""


def series_facts(rec: Recomputation, *, task_values: bool) -> tuple[SeriesFacts, ...]:
    """Every series of the recomputed report: counts, its own interval (as ``inspector
    stats`` gives it) and, with ``task_values``, each evaluated task's value."""
    from inspector.views.run_stats import own_interval  # scipy: only for a gate

    found = []
    for series in rec.report.series:
        interval = own_interval(rec, series)
        low, high = interval.ci_low, interval.ci_high
        values: dict[str, float] = {}
        if task_values:
            for reduction in reductions_of(rec, series.series_id) or ():
                if reduction.state == EVALUATED and reduction.value is not None:
                    values[reduction.task_id] = float(reduction.value)
        found.append(
            SeriesFacts(
                series_id=series.series_id,
                headline=series.role == HEADLINE,
                value=series.shown_value,
                counts={name: int(getattr(series.counts, name)) for name in COUNTS},
                interval=None if low is None or high is None else (float(low), float(high)),
                no_interval="" if low is not None and high is not None else interval.method,
                task_values=values,
            )
        )
    return tuple(found)


def fingerprint_counts(run: Run) -> dict[str, int]:
    """Each error fingerprint of the run → the attempts carrying it: the issues of its
    scored attempts and of their retry records, as ``inspector errors`` groups them
    (:mod:`inspector.views.fingerprints`)."""
    from inspector.views.attribution import load_retry_records
    from inspector.views.fingerprints import group, occurrences

    retry: dict[str, list[tuple[int, Issue]]] = {}
    for task_id, records in load_retry_records(run, run.tasks).items():
        for record in records:
            if isinstance(record, RetryRecord):
                retry.setdefault(task_id, []).extend(
                    (record.attempt or 0, i) for i in record.issues
                )
    return {g.fingerprint: g.attempts for g in group(occurrences("", run.tasks, retry))}


def derived_reason(rec: Recomputation, stored_metrics: Mapping[str, Any] | None) -> str | None:
    """Why the gated numbers are not the run's own plan: the recomputation used a derived
    plan, or the stored metrics.json is one the inspector derived. None: neither."""
    if rec.plan.derived:
        return f"scored with a derived plan ({rec.plan.derived})"
    extra = stored_metrics.get("extra") if isinstance(stored_metrics, Mapping) else None
    if isinstance(extra, Mapping) and DERIVED_KEY in extra:
        return f"the stored metrics.json carries extra.{DERIVED_KEY} (a derived plan)"
    return None


def paired_delta(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float] | None:
    """The series delta B − A and its 95% paired interval, from the values of the tasks
    evaluated on both sides: the difference of their means and the comparison's MOVER
    interval (:func:`inspector.views.paired.delta_interval`, no resampling; one place to
    change when the comparison's paired analysis changes)."""
    if not a or len(a) != len(b):
        return None
    import numpy as np

    from inspector.engine.report import MICRO_WEIGHTED
    from inspector.views.paired import SeriesSample, Side, delta_interval

    n = len(a)

    def side(values: Sequence[float]) -> Side:
        x = np.asarray(values, dtype=np.float64)
        ones = np.ones(n)
        cats = np.zeros(n, dtype=np.intp)
        return Side(x, ones, cats, ones > 0, MICRO_WEIGHTED, None, float(x.mean()))

    ids = tuple(str(i) for i in range(n))
    sample = SeriesSample(ids, ("",), side(a), side(b))
    ci = delta_interval(sample, test=False)
    return (sample.b.value - sample.a.value, ci.low, ci.high)
