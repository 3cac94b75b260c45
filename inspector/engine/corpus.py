"""Corpus formulas layered after reduction: the ``BenchmarkAggregationContext`` semantics (spec §7.3).

Benchmarks whose official numbers are not means of task values (ratio of sums, sums,
benchmark-supplied series) replace or append series here, exactly as AgentCompass's
context does — including its quirks (spec §10 items 16, 25–29, 47).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from inspector.engine.contract import SCALAR, MetricDisplay
from inspector.engine.hierarchy import HierarchyNode, hierarchy_breakdowns
from inspector.engine.model import TaskRecord
from inspector.engine.ratio import RatioPair, ratio_breakdown, ratio_value
from inspector.engine.reduction import TaskReduction
from inspector.engine.report import (
    MetricBreakdown,
    MetricReport,
    MetricSeries,
    SeriesCounts,
    select_value_role,
)
from inspector.engine.strategies import AUXILIARY, metric_series_id
from inspector.engine.vocabulary import ERROR, EVALUATED, INVALIDATED, UNAVAILABLE

UNCATEGORIZED = "__uncategorized__"


def _mean(values: Iterable[float]) -> float | None:
    items = tuple(values)
    return math.fsum(v / len(items) for v in items) if items else None


_Pair = RatioPair


class AggregationContext:
    """A mutable report builder with AgentCompass's ``BenchmarkAggregationContext`` methods."""

    def __init__(
        self,
        tasks: Sequence[TaskRecord],
        report: MetricReport,
        reductions: Mapping[str, Sequence[TaskReduction]],
        root: HierarchyNode | None,
    ) -> None:
        self.tasks = tasks
        self.report = report
        self.root = root
        self._series = [select_value_role(s, False) for s in report.series]
        self._extra: dict[str, Any] = copy.deepcopy(dict(report.extra))
        # Note: no strip here, unlike the standard path (spec §10 item 16).
        self._categories = {t.task_id: str(t.category or UNCATEGORIZED) for t in tasks}
        self._reductions = dict(reductions)
        self.invalidated_task_ids = {
            r.task_id for rows in reductions.values() for r in rows if r.state == INVALIDATED
        }
        self._error_task_ids = {
            r.task_id for rows in reductions.values() for r in rows if r.has_error
        }
        # Custom task states per produced series, for the audit views.
        self.custom_states: dict[str, dict[str, str]] = {}

    # -- read helpers

    def reducers_for(self, metric_id: str) -> tuple[str, ...]:
        return tuple(s.reducer for s in self._series if s.metric_id == metric_id)

    def series_for(self, metric_id: str, reducer: str) -> MetricSeries:
        series_id = metric_series_id(metric_id, reducer, self.report.k)
        for item in self._series:
            if item.series_id == series_id:
                return item
        raise KeyError(f"metric series is not available under the resolved strategy: {series_id}")

    def reductions_for(self, metric_id: str, reducer: str) -> Sequence[TaskReduction]:
        series_id = metric_series_id(metric_id, reducer, self.report.k)
        try:
            return self._reductions[series_id]
        except KeyError:
            raise KeyError(f"task reductions are not available for {series_id}") from None

    def task_values(self, metric_id: str, reducer: str) -> dict[str, float]:
        return {
            r.task_id: r.value
            for r in self.reductions_for(metric_id, reducer)
            if r.state == EVALUATED and r.value is not None
        }

    # -- formulas

    def replace_with_ratio_of_sums(
        self,
        *,
        output_metric: str,
        numerator_metric: str,
        denominator_metric: str,
        label: str,
        reducers: Iterable[str] | None = None,
        role: str = AUXILIARY,
        respect_report_aggregation: bool = True,
    ) -> None:
        for reducer_id in tuple(reducers or self.reducers_for(numerator_metric)):
            numerator = self.reductions_for(numerator_metric, reducer_id)
            denominator = self.reductions_for(denominator_metric, reducer_id)
            template = self._template(output_metric, numerator_metric, reducer_id)
            pairs: list[_Pair] = []
            states: dict[str, str] = {}
            for left, right in zip(numerator, denominator, strict=True):
                if left.task_id in self.invalidated_task_ids:
                    states[left.task_id] = INVALIDATED
                    continue
                if left.state == EVALUATED and right.state == EVALUATED:
                    states[left.task_id] = EVALUATED
                elif ERROR in (left.state, right.state):
                    states[left.task_id] = ERROR
                    continue
                else:
                    states[left.task_id] = UNAVAILABLE
                    continue
                lv, rv = left.value, right.value
                assert lv is not None and rv is not None  # an evaluated reduction has a value
                pairs.append(
                    _Pair(left.task_id, self._categories[left.task_id], float(lv), float(rv))
                )
            categories = self._ratio_categories(pairs, template, states)
            value, hierarchy = self._ratio_value(pairs, categories, respect_report_aggregation)
            series_id = metric_series_id(output_metric, reducer_id, self.report.k)
            self.custom_states[series_id] = states
            self._replace_or_append(
                MetricSeries(
                    series_id=series_id,
                    metric_id=output_metric,
                    kind=SCALAR,
                    reducer=reducer_id,
                    role=template.role if template.metric_id == output_metric else role,
                    aggregation="ratio_of_sums",
                    display=MetricDisplay(label=label),
                    k=self.report.k,
                    value=value,
                    counts=self._state_counts(states),
                    categories=categories,
                    hierarchy=hierarchy,
                    extra={
                        "numerator_metric": numerator_metric,
                        "denominator_metric": denominator_metric,
                        "numerator_total": math.fsum(p.value for p in pairs),
                        "denominator_total": math.fsum(p.weight for p in pairs),
                    },
                )
            )

    def append_ratio_series(
        self,
        *,
        metric_id: str,
        reducer: str,
        numerator_values: Mapping[str, float],
        denominator_values: Mapping[str, float],
        template_metric: str,
        label: str,
        extra: Mapping[str, Any] | None = None,
        respect_report_aggregation: bool = True,
    ) -> None:
        template = self.series_for(template_metric, reducer)
        pairs: list[_Pair] = []
        states: dict[str, str] = {}
        for task_id in self._categories:
            if task_id in self.invalidated_task_ids:
                states[task_id] = INVALIDATED
                continue
            if task_id not in numerator_values or task_id not in denominator_values:
                states[task_id] = ERROR if task_id in self._error_task_ids else UNAVAILABLE
                continue
            states[task_id] = EVALUATED
            pairs.append(
                _Pair(
                    task_id,
                    self._categories[task_id],
                    float(numerator_values[task_id]),
                    float(denominator_values[task_id]),
                )
            )
        categories = self._ratio_categories(pairs, template, states)
        value, hierarchy = self._ratio_value(pairs, categories, respect_report_aggregation)
        series_id = metric_series_id(metric_id, reducer, self.report.k)
        self.custom_states[series_id] = states
        self._replace_or_append(
            MetricSeries(
                series_id=series_id,
                metric_id=metric_id,
                kind=SCALAR,
                reducer=reducer,
                role=AUXILIARY,
                aggregation="ratio_of_sums",
                display=MetricDisplay(label=label),
                k=self.report.k,
                value=value,
                counts=self._state_counts(states),
                categories=categories,
                hierarchy=hierarchy,
                extra={
                    "numerator_total": math.fsum(p.value for p in pairs),
                    "denominator_total": math.fsum(p.weight for p in pairs),
                    **dict(extra or {}),
                },
            )
        )

    def replace_with_sum(
        self, *, metric_id: str, label: str, reducers: Iterable[str] | None = None
    ) -> None:
        for reducer_id in tuple(reducers or self.reducers_for(metric_id)):
            template = self.series_for(metric_id, reducer_id)
            values = {
                r.task_id: float(r.value)
                for r in self.reductions_for(metric_id, reducer_id)
                if r.state == EVALUATED and r.value is not None
            }
            categories = {}
            for category, breakdown in template.categories.items():
                items = [v for tid, v in values.items() if self._categories[tid] == category]
                categories[category] = MetricBreakdown(
                    value=math.fsum(items) if items else None,
                    counts=breakdown.counts,
                    aggregation_weight=float(len(items)),
                )
            hierarchy = (
                hierarchy_breakdowns(self.root, categories, aggregation_override="sum")
                if self.root is not None
                else {}
            )
            self._replace_or_append(
                replace(
                    template,
                    aggregation="sum",
                    display=MetricDisplay(label=label),
                    value=math.fsum(values.values()) if values else None,
                    categories=categories,
                    hierarchy=hierarchy,
                    extra={**template.extra, "summed_tasks": len(values)},
                )
            )

    def append_benchmark_series(
        self,
        *,
        metric_id: str,
        reducer: str,
        value: float | None,
        template_metric: str,
        label: str,
        task_values: Mapping[str, float] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        template = self.series_for(template_metric, reducer)
        resolved = {
            k: v
            for k, v in (task_values or {}).items()
            if k in self._categories and k not in self.invalidated_task_ids
        }
        states = {
            tid: (
                INVALIDATED
                if tid in self.invalidated_task_ids
                else EVALUATED
                if tid in resolved
                else ERROR
                if tid in self._error_task_ids
                else UNAVAILABLE
            )
            for tid in self._categories
        }
        categories = {}
        for category in template.categories:
            items = [
                float(v) for tid, v in resolved.items() if self._categories.get(tid) == category
            ]
            cat_states = {t: s for t, s in states.items() if self._categories[t] == category}
            categories[category] = MetricBreakdown(
                value=_mean(items),
                counts=self._state_counts(cat_states),
                aggregation_weight=float(len(items)),
            )
        hierarchy = hierarchy_breakdowns(self.root, categories) if self.root is not None else {}
        series_id = metric_series_id(metric_id, reducer, self.report.k)
        self.custom_states[series_id] = states
        self._replace_or_append(
            MetricSeries(
                series_id=series_id,
                metric_id=metric_id,
                kind=SCALAR,
                reducer=reducer,
                role=AUXILIARY,
                aggregation="benchmark",
                display=MetricDisplay(label=label),
                k=self.report.k,
                value=value,
                counts=self._state_counts(states),
                categories=categories,
                hierarchy=hierarchy,
                extra=dict(extra or {}),
            )
        )

    def update_extra(self, values: Mapping[str, Any]) -> None:
        self._extra.update(copy.deepcopy(dict(values)))

    def build(self) -> MetricReport:
        failed = self.report.evaluation_failed
        return replace(
            self.report,
            series=tuple(select_value_role(s, failed) for s in self._series),
            extra=self._extra,
        )

    # -- internals

    def _template(self, output_metric: str, fallback: str, reducer: str) -> MetricSeries:
        try:
            return self.series_for(output_metric, reducer)
        except KeyError:
            return self.series_for(fallback, reducer)

    def _ratio_categories(
        self, pairs: Sequence[_Pair], template: MetricSeries, states: Mapping[str, str]
    ) -> dict[str, MetricBreakdown]:
        out = {}
        for category in template.categories:
            items = [p for p in pairs if p.category == category]
            cat_states = {t: s for t, s in states.items() if self._categories[t] == category}
            out[category] = ratio_breakdown(items, self._state_counts(cat_states))
        return out

    def _state_counts(self, states: Mapping[str, str]) -> SeriesCounts:
        items = tuple(states.items())
        return SeriesCounts(
            total=len(items),
            evaluated=sum(s == EVALUATED for _, s in items),
            error=sum(s == ERROR or t in self._error_task_ids for t, s in items),
            unavailable=sum(s in (ERROR, UNAVAILABLE) for _, s in items),
            invalidated=sum(s == INVALIDATED for _, s in items),
        )

    def _ratio_value(
        self, pairs: Sequence[_Pair], categories: Mapping[str, MetricBreakdown], respect: bool
    ) -> tuple[float | None, dict[str, MetricBreakdown]]:
        return ratio_value(pairs, categories, self.report.aggregation, self.root, respect)

    def _replace_or_append(self, series: MetricSeries) -> None:
        for index, current in enumerate(self._series):
            if current.series_id == series.series_id:
                self._series[index] = series
                return
        self._series.append(series)
