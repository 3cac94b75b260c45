"""The scoring engine: pure (no I/O, no textual, no rich), one implementation of AgentCompass's rules."""

from __future__ import annotations

from inspector.engine.aggregation import UNCATEGORIZED, category_key, mean
from inspector.engine.benchmarks import builtin_contract, default_hierarchy
from inspector.engine.contract import (
    BINARY,
    SCALAR,
    MetricContract,
    MetricDisplay,
    MetricSpec,
    contract_from_json,
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
from inspector.engine.recompute import Recomputation, recompute
from inspector.engine.reducers import MetricReducer, register_metric_reducer, resolve_metric_reducer
from inspector.engine.reduction import (
    ERROR,
    EVALUATED,
    INVALIDATED,
    STATES,
    UNAVAILABLE,
    Coverage,
    Reason,
    TaskReduction,
)
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
    "contract_from_json",
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
