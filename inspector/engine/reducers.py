"""Metric reducers ``native`` / ``avg`` / ``pass`` and their registry (spec §6.1, §6.3 step 5)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from inspector.engine.model import Observation
from inspector.engine.registry import Registry

BINARY = "binary_success"
SCALAR = "scalar"


@dataclass(frozen=True, slots=True)
class ReducerContext:
    """What a reducer sees for one task and one metric."""

    kind: str
    values: Sequence[Observation]  # the valid observations, in attempt order
    requested: int  # k
    valid: int


class MetricReducer:
    """Base class: subclass, set ``id`` and ``supported_kinds``, implement ``reduce``."""

    id: ClassVar[str] = ""
    supported_kinds: ClassVar[frozenset[str]] = frozenset()

    def supports(self, kind: str, k: int) -> bool:
        return kind in self.supported_kinds

    def reduce(self, context: ReducerContext) -> float | None:
        raise NotImplementedError

    def describe(self, k: int) -> str:
        """One line for the "explain" views."""
        return f"{self.id}@{k}"


class NativeReducer(MetricReducer):
    """k=1: the single observation as a float, or null."""

    id = "native"
    supported_kinds = frozenset({BINARY, SCALAR})

    def supports(self, kind: str, k: int) -> bool:
        return k == 1 and kind in self.supported_kinds

    def reduce(self, context: ReducerContext) -> float | None:
        if context.valid != 1:
            return None
        return float(context.values[0])

    def describe(self, k: int) -> str:
        return "the single attempt's observation"


class AverageReducer(MetricReducer):
    """k>1: the mean over all k attempts, null unless every attempt observed the metric."""

    id = "avg"
    supported_kinds = frozenset({BINARY, SCALAR})

    def supports(self, kind: str, k: int) -> bool:
        return k > 1 and kind in self.supported_kinds

    def reduce(self, context: ReducerContext) -> float | None:
        if context.valid != context.requested:
            return None
        k = context.requested
        return math.fsum(float(v) / k for v in context.values)

    def describe(self, k: int) -> str:
        return f"mean of the {k} attempts' observations (all {k} must be observed)"


class PassReducer(MetricReducer):
    """k>1, binary only: 1.0 if any attempt succeeded, 0.0 if all k failed, else null."""

    id = "pass"
    supported_kinds = frozenset({BINARY})

    def supports(self, kind: str, k: int) -> bool:
        return k > 1 and kind in self.supported_kinds

    def reduce(self, context: ReducerContext) -> float | None:
        if any(v is True for v in context.values):
            return 1.0
        if context.valid == context.requested:
            return 0.0
        return None

    def describe(self, k: int) -> str:
        return f"1 if any of the {k} attempts succeeded, 0 if all {k} were observed and failed"


METRIC_REDUCERS: Registry[MetricReducer] = Registry("metric reducer")


def register_metric_reducer(reducer_class: type[MetricReducer]) -> type[MetricReducer]:
    """Register a reducer class (usable as a decorator)."""
    if not (isinstance(reducer_class, type) and issubclass(reducer_class, MetricReducer)):
        raise TypeError("a metric reducer must subclass MetricReducer")
    if not reducer_class.supported_kinds:
        raise ValueError("a metric reducer needs non-empty supported_kinds")
    METRIC_REDUCERS.register(reducer_class.id, reducer_class())
    return reducer_class


def resolve_metric_reducer(reducer_id: object) -> MetricReducer:
    return METRIC_REDUCERS.resolve(reducer_id)


for _cls in (NativeReducer, AverageReducer, PassReducer):
    register_metric_reducer(_cls)
