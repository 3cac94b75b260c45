"""What the gate's rules need of a scored run (:mod:`inspector.views.gate`), taken from its
recomputation, and the paired analysis ``max_regression`` judges (the comparison model's).

Pure (no I/O, no textual, no rich). The statistics are imported when first asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from inspector.engine.model import Issue
from inspector.engine.recomputation import Recomputation
from inspector.engine.strategies import HEADLINE
from inspector.engine.vocabulary import COUNTS
from inspector.results.lazy import RetryRecord
from inspector.results.reader import Run
from inspector.views.gate import Regression, SeriesFacts

if TYPE_CHECKING:  # pragma: no cover
    from inspector.views.compare import Comparison

DERIVED_KEY = "inspector_derived_plan"
"""What a derived plan's metrics.json carries in ``extra`` (as :mod:`inspector.session`
writes it): a stored metrics.json carrying it was written by the inspector, not AgentCompass."""


def series_facts(rec: Recomputation) -> tuple[SeriesFacts, ...]:
    """Every series of the recomputed report: counts and its own interval (as ``inspector
    stats`` gives it)."""
    from inspector.views.run_stats import own_interval  # scipy: only for a gate

    found = []
    for series in rec.report.series:
        interval = own_interval(rec, series)
        low, high = interval.ci_low, interval.ci_high
        found.append(
            SeriesFacts(
                series_id=series.series_id,
                headline=series.role == HEADLINE,
                value=series.shown_value,
                counts={name: int(getattr(series.counts, name)) for name in COUNTS},
                interval=None if low is None or high is None else (float(low), float(high)),
                no_interval="" if low is not None and high is not None else interval.method,
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


def regressions(comparison: Comparison, series_ids: Sequence[str]) -> dict[str, Regression | str]:
    """Each of side B's series ``series_ids`` → its delta B − A and paired interval exactly
    as ``inspector diff`` gives them (:meth:`Comparison.stats` of the pair the comparison
    model makes, :func:`inspector.views.compare.pair_series`; without an interval when the
    comparison gives none, saying why), or why nothing was compared, with where the delta
    came from (:func:`~inspector.views.decomposition.decomposition_sentence`)."""
    from inspector.views.decomposition import decomposition_of, decomposition_sentence

    found: dict[str, Regression | str] = {}
    for series_id in series_ids:
        pair = next((p for p in comparison.series if p.b and p.b.series_id == series_id), None)
        if pair is None or pair.a is None:
            found[series_id] = "no such series in the --against run"
            continue
        stats = comparison.stats(pair)
        interval = stats.interval
        parts = decomposition_of(comparison, pair)
        explained = (
            None  # a delta of nothing (no part moved) needs no explaining
            if parts is None or not any(p.value for p in parts.parts)
            else decomposition_sentence(parts, comparison, pair)
        )
        if stats.delta is None or interval is None:  # compared, no interval: INCONCLUSIVE
            why = stats.no_interval or "no paired interval"
            found[series_id] = Regression(stats.delta, None, None, stats.tasks,
                                          pair.a.series_id, no_interval=why, explained=explained)  # fmt: skip
            continue
        found[series_id] = Regression(
            stats.delta, interval.low, interval.high, stats.tasks, pair.a.series_id,
            explained=explained,
        )  # fmt: skip
    return found
