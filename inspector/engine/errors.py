"""Errors the engine raises. Each maps to a refusal of AgentCompass itself."""

from __future__ import annotations


class EngineError(Exception):
    """Base class: the run cannot be scored the way AgentCompass would score it."""


class ContractError(EngineError):
    """An invalid metric contract (spec §5)."""


class PlanError(EngineError):
    """An invalid or unsupported plan: unknown strategy, pass with a scalar primary (spec §5, §6.2)."""


class ObservationError(EngineError):
    """A task's attempts break the contract or the plan (spec §10 item 13).

    ``task_id`` and ``source`` name the task so the CLI can name the file.
    """

    def __init__(self, message: str, *, task_id: str | None = None, source: str = "") -> None:
        super().__init__(message)
        self.task_id = task_id
        self.source = source


class HierarchyError(EngineError):
    """An invalid category hierarchy (spec §7.2)."""


class AggregationError(EngineError):
    """AgentCompass's ``MetricAggregationError``: e.g. a weighted node whose valid weights are all 0."""


class ReportValidationError(EngineError):
    """A report breaks an invariant of spec §8.1 (AgentCompass would refuse to build it)."""
