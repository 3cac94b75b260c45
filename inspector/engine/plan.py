"""A plan: k, strategy, aggregation, hierarchy, contract — and where each part came from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from inspector.engine.contract import MetricContract
from inspector.engine.errors import PlanError
from inspector.engine.reference import FrontierTables
from inspector.engine.report import CATEGORY_MEAN, MICRO_WEIGHTED
from inspector.engine.strategies import resolve_attempt_strategy


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything a recomputation needs beyond the tasks.

    ``aggregation`` is the requested mode (``micro_weighted`` / ``category_mean``); a
    non-empty ``hierarchy`` turns the report into ``category_hierarchy`` (spec §7.1 step 2).
    ``sources`` says where each part came from ("run_info.json request.execution.attempts",
    "built-in contract of scicode", ...). ``derived`` describes a what-if plan.
    ``reference`` holds the reference tables a benchmark scores with (frontier_engineering's),
    read outside the engine and given here.
    """

    k: int
    strategy: str
    contract: MetricContract
    aggregation: str = MICRO_WEIGHTED
    hierarchy: Mapping[str, Any] | None = None
    benchmark_id: str = ""
    benchmark_params: Mapping[str, Any] = field(default_factory=dict)
    model_id: str = ""
    sources: Mapping[str, str] = field(default_factory=dict)
    derived: str | None = None
    reference: FrontierTables | None = None

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise PlanError(f"k must be an integer >= 1, got {self.k!r}")
        canonical = resolve_attempt_strategy(self.strategy).id
        if canonical != self.strategy:
            object.__setattr__(self, "strategy", canonical)
        if self.aggregation not in (MICRO_WEIGHTED, CATEGORY_MEAN):
            raise PlanError(
                f"aggregation_mode must be 'micro_weighted' or 'category_mean', got {self.aggregation!r}"
            )

    @property
    def label(self) -> str:
        """``avg@3`` / ``pass@3`` / ``k=1``."""
        return f"{self.strategy}@{self.k}" if self.k > 1 else "k=1"
