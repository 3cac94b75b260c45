"""The scoring engine: pure (no I/O, no textual, no rich), one implementation of AgentCompass's rules.

Names are imported on first use (PEP 562), so that importing one submodule does not
import them all: the command line starts faster.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspector.lazy_exports import exports

_SOURCES = {
    "UNCATEGORIZED": "inspector.engine.aggregation",
    "category_key": "inspector.engine.aggregation",
    "mean": "inspector.engine.aggregation",
    "builtin_contract": "inspector.engine.benchmarks",
    "default_hierarchy": "inspector.engine.benchmarks",
    "BINARY": "inspector.engine.contract",
    "SCALAR": "inspector.engine.contract",
    "MetricContract": "inspector.engine.contract",
    "MetricDisplay": "inspector.engine.contract",
    "MetricSpec": "inspector.engine.contract",
    "make_metric_contract": "inspector.engine.contract",
    "AggregationError": "inspector.engine.errors",
    "ContractError": "inspector.engine.errors",
    "EngineError": "inspector.engine.errors",
    "HierarchyError": "inspector.engine.errors",
    "ObservationError": "inspector.engine.errors",
    "PlanError": "inspector.engine.errors",
    "ReportValidationError": "inspector.engine.errors",
    "Attempt": "inspector.engine.model",
    "Issue": "inspector.engine.model",
    "TaskRecord": "inspector.engine.model",
    "Plan": "inspector.engine.plan",
    "Recomputation": "inspector.engine.recomputation",
    "recompute": "inspector.engine.recomputation",
    "MetricReducer": "inspector.engine.reducers",
    "register_metric_reducer": "inspector.engine.reducers",
    "resolve_metric_reducer": "inspector.engine.reducers",
    "ERROR": "inspector.engine.vocabulary",
    "EVALUATED": "inspector.engine.vocabulary",
    "INVALIDATED": "inspector.engine.vocabulary",
    "STATES": "inspector.engine.vocabulary",
    "UNAVAILABLE": "inspector.engine.vocabulary",
    "Coverage": "inspector.engine.reduction",
    "Reason": "inspector.engine.reduction",
    "TaskReduction": "inspector.engine.reduction",
    "render_summary_markdown": "inspector.engine.render",
    "MetricBreakdown": "inspector.engine.report",
    "MetricReport": "inspector.engine.report",
    "MetricSeries": "inspector.engine.report",
    "SeriesCounts": "inspector.engine.report",
    "dumps_metrics_json": "inspector.engine.report",
    "validate_report": "inspector.engine.report",
    "AttemptStrategy": "inspector.engine.strategies",
    "register_attempt_strategy": "inspector.engine.strategies",
}

__all__ = [
    "BINARY",
    "ERROR",
    "EVALUATED",
    "INVALIDATED",
    "SCALAR",
    "STATES",
    "UNAVAILABLE",
    "UNCATEGORIZED",
    "AggregationError",
    "Attempt",
    "AttemptStrategy",
    "ContractError",
    "Coverage",
    "EngineError",
    "HierarchyError",
    "Issue",
    "MetricBreakdown",
    "MetricContract",
    "MetricDisplay",
    "MetricReducer",
    "MetricReport",
    "MetricSeries",
    "MetricSpec",
    "ObservationError",
    "Plan",
    "PlanError",
    "Reason",
    "Recomputation",
    "ReportValidationError",
    "SeriesCounts",
    "TaskRecord",
    "TaskReduction",
    "builtin_contract",
    "category_key",
    "default_hierarchy",
    "dumps_metrics_json",
    "make_metric_contract",
    "mean",
    "recompute",
    "register_attempt_strategy",
    "register_metric_reducer",
    "render_summary_markdown",
    "resolve_metric_reducer",
    "validate_report",
]


__getattr__ = exports(__name__, _SOURCES, globals())


if TYPE_CHECKING:  # pragma: no cover
    from inspector.engine.aggregation import UNCATEGORIZED, category_key, mean
    from inspector.engine.benchmarks import builtin_contract, default_hierarchy
    from inspector.engine.contract import (
        BINARY,
        SCALAR,
        MetricContract,
        MetricDisplay,
        MetricSpec,
        make_metric_contract,
    )
    from inspector.engine.errors import (
        AggregationError,
        ContractError,
        EngineError,
        HierarchyError,
        ObservationError,
        PlanError,
        ReportValidationError,
    )
    from inspector.engine.model import Attempt, Issue, TaskRecord
    from inspector.engine.plan import Plan
    from inspector.engine.recomputation import Recomputation, recompute
    from inspector.engine.reducers import (
        MetricReducer,
        register_metric_reducer,
        resolve_metric_reducer,
    )
    from inspector.engine.reduction import Coverage, Reason, TaskReduction
    from inspector.engine.render import render_summary_markdown
    from inspector.engine.report import (
        MetricBreakdown,
        MetricReport,
        MetricSeries,
        SeriesCounts,
        dumps_metrics_json,
        validate_report,
    )
    from inspector.engine.strategies import AttemptStrategy, register_attempt_strategy
    from inspector.engine.vocabulary import ERROR, EVALUATED, INVALIDATED, STATES, UNAVAILABLE
