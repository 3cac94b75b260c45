"""Attempt strategies ``avg`` / ``pass``: which series a plan emits (spec §6.1, §6.2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from inspector.engine.contract import BINARY, MetricContract
from inspector.engine.errors import PlanError
from inspector.engine.model import NOT_COMPLETED_STATUSES, Observation
from inspector.engine.reducers import resolve_metric_reducer
from inspector.engine.registry import Registry

HEADLINE = "headline"
AUXILIARY = "auxiliary"


def metric_series_id(metric_id: str, reducer: str, k: int) -> str:
    """``<metric_id>.<reducer>@<k>`` (``report.metric_series_id``)."""
    return f"{metric_id}.{reducer}@{k}"


@dataclass(frozen=True, slots=True)
class SeriesPlan:
    """One series a plan emits."""

    metric_id: str
    reducer: str
    k: int
    kind: str
    role: str

    @property
    def series_id(self) -> str:
        return metric_series_id(self.metric_id, self.reducer, self.k)


@dataclass(frozen=True, slots=True)
class StrategyPlan:
    strategy: str
    scheduling_policy: str
    series: tuple[SeriesPlan, ...]


class AttemptStrategy:
    """Base class: subclass, set ``id`` and ``scheduling_policy``, implement the three hooks."""

    id: ClassVar[str] = ""
    scheduling_policy: ClassVar[str] = ""

    def preflight(self, contract: MetricContract, k: int) -> None:
        """Raise :class:`PlanError` when the strategy cannot score this contract."""

    def resolve(self, contract: MetricContract, k: int) -> StrategyPlan:
        raise NotImplementedError

    def should_stop(
        self, attempt_completed: bool, primary_kind: str, primary_value: Observation | None
    ) -> bool:
        return False

    def validate_report(self, k: int, series: Sequence[SeriesPlan]) -> None:
        """Raise :class:`PlanError` when a report's series cannot come from this strategy."""


def _native_plan(strategy: str, policy: str, contract: MetricContract) -> StrategyPlan:
    series = tuple(
        SeriesPlan(mid, "native", 1, spec.kind, HEADLINE if spec.primary else AUXILIARY)
        for mid, spec in contract.metrics.items()
    )
    return StrategyPlan(strategy, policy, series)


def _check_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise PlanError(f"k must be an integer >= 1, got {k!r}")
    return k


class AverageStrategy(AttemptStrategy):
    """Run all k attempts; every declared reducer of every metric becomes a series."""

    id = "avg"
    scheduling_policy = "complete_all"

    def preflight(self, contract: MetricContract, k: int) -> None:
        _check_k(k)
        if k > 1 and "avg" not in contract.primary.reducers:
            raise PlanError("strategy avg needs the avg reducer on the primary metric")

    def resolve(self, contract: MetricContract, k: int) -> StrategyPlan:
        self.preflight(contract, k)
        if k == 1:
            return _native_plan(self.id, self.scheduling_policy, contract)
        series = []
        for metric_id, spec in contract.metrics.items():
            role = HEADLINE if spec.primary else AUXILIARY
            for reducer_id in spec.reducers:
                # Like AgentCompass, the avg strategy emits only avg and pass series.
                reducer = resolve_metric_reducer(reducer_id)
                if reducer.id not in ("avg", "pass"):
                    continue
                series.append(SeriesPlan(metric_id, reducer.id, k, spec.kind, role))
        return StrategyPlan(self.id, self.scheduling_policy, tuple(series))

    def validate_report(self, k: int, series: Sequence[SeriesPlan]) -> None:
        if k == 1:
            if any(s.reducer != "native" for s in series):
                raise PlanError("a k=1 report may contain only native series")
            return
        if any(s.reducer not in ("avg", "pass") for s in series):
            raise PlanError("a k>1 avg report may contain only avg and pass series")
        headline = [s for s in series if s.role == HEADLINE]
        if not any(s.reducer == "avg" for s in headline):
            raise PlanError("a k>1 avg report needs the primary avg series")
        if (
            headline
            and headline[0].kind == BINARY
            and not any(s.reducer == "pass" for s in headline)
        ):
            raise PlanError("a k>1 avg report with a binary primary needs the primary pass series")


class PassStrategy(AttemptStrategy):
    """Run attempts one at a time and stop after the first completed success."""

    id = "pass"
    scheduling_policy = "stop_on_signal"

    def preflight(self, contract: MetricContract, k: int) -> None:
        _check_k(k)
        if contract.primary.kind != BINARY:
            raise PlanError(
                "strategy pass needs a binary_success primary metric "
                f"({contract.primary_id} is {contract.primary.kind}); KAggregationNotSupportedError"
            )
        if k > 1 and "pass" not in contract.primary.reducers:
            raise PlanError("strategy pass needs the pass reducer on the primary metric")

    def resolve(self, contract: MetricContract, k: int) -> StrategyPlan:
        self.preflight(contract, k)
        if k == 1:
            return _native_plan(self.id, self.scheduling_policy, contract)
        primary = contract.primary_id
        series = (SeriesPlan(primary, "pass", k, BINARY, HEADLINE),)
        return StrategyPlan(self.id, self.scheduling_policy, series)

    def should_stop(
        self, attempt_completed: bool, primary_kind: str, primary_value: Observation | None
    ) -> bool:
        return attempt_completed and primary_kind == BINARY and primary_value is True

    def validate_report(self, k: int, series: Sequence[SeriesPlan]) -> None:
        headline = [s for s in series if s.role == HEADLINE]
        if not headline or headline[0].kind != BINARY:
            raise PlanError("a pass report needs a binary headline")
        if k > 1 and any(s.reducer != "pass" or s.role != HEADLINE for s in series):
            raise PlanError("a k>1 pass report may contain only the primary pass series")


ATTEMPT_STRATEGIES: Registry[AttemptStrategy] = Registry("attempt strategy")


def register_attempt_strategy(strategy_class: type[AttemptStrategy]) -> type[AttemptStrategy]:
    """Register a strategy class (usable as a decorator)."""
    if not (isinstance(strategy_class, type) and issubclass(strategy_class, AttemptStrategy)):
        raise TypeError("an attempt strategy must subclass AttemptStrategy")
    ATTEMPT_STRATEGIES.register(strategy_class.id, strategy_class())
    return strategy_class


def resolve_attempt_strategy(strategy_id: object) -> AttemptStrategy:
    try:
        return ATTEMPT_STRATEGIES.resolve(strategy_id)
    except KeyError as exc:
        raise PlanError(str(exc.args[0])) from None


def attempt_completed(status: str) -> bool:
    return status not in NOT_COMPLETED_STATUSES


for _cls in (AverageStrategy, PassStrategy):
    register_attempt_strategy(_cls)
