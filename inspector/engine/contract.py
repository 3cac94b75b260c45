"""Metric contracts: ``make_metric_contract`` semantics and validation (spec §5)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from inspector.engine.errors import ContractError, ObservationError
from inspector.engine.reducers import resolve_metric_reducer

BINARY = "binary_success"
SCALAR = "scalar"
KINDS = (BINARY, SCALAR)
PRIMARY_IDS = {"correct": BINARY, "score": SCALAR}
_METRIC_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")


def normalize_metric_id(value: object) -> str:
    """Strip and check a metric id (``normalize_metric_identifier``)."""
    if not isinstance(value, str):
        raise ContractError(f"metric id must be a string, got {value!r}")
    text = value.strip()
    if not _METRIC_ID.match(text):
        raise ContractError(f"invalid metric id {value!r}")
    return text


def default_label(metric_id: str) -> str:
    """The label AgentCompass derives from an id: ``format_valid`` → ``Format Valid``."""
    return metric_id.replace("_", " ").title()


@dataclass(frozen=True, slots=True)
class MetricDisplay:
    """Presentation of a metric: label, description, unit, precision."""

    label: str
    description: str | None = None
    unit: str | None = None
    precision: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.label, str) or not self.label.strip():
            raise ContractError("display label must be a non-empty string")
        if self.precision is not None and (
            isinstance(self.precision, bool)
            or not isinstance(self.precision, int)
            or self.precision < 0
        ):
            raise ContractError(f"display precision must be an int >= 0, got {self.precision!r}")


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One declared metric: kind, k>1 reducers, primary flag, role, display."""

    kind: str
    reducers: tuple[str, ...]
    primary: bool = False
    role: str | None = None
    display: MetricDisplay | None = None


@dataclass(frozen=True, slots=True)
class MetricContract:
    """The metrics a benchmark declares, in contract order."""

    metrics: Mapping[str, MetricSpec]
    # Where the contract came from (shown to users; not part of AgentCompass's object).
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.metrics:
            raise ContractError("a metric contract must declare at least one metric")
        primaries = [mid for mid, spec in self.metrics.items() if spec.primary]
        if len(primaries) != 1:
            raise ContractError(
                f"a metric contract needs exactly one primary, found {len(primaries)}"
            )
        for metric_id, spec in self.metrics.items():
            if spec.kind not in KINDS:
                raise ContractError(f"metric {metric_id!r}: unknown kind {spec.kind!r}")
            if len(set(spec.reducers)) != len(spec.reducers):
                raise ContractError(f"metric {metric_id!r}: duplicate reducers")
            for reducer_id in spec.reducers:
                reducer = resolve_metric_reducer(reducer_id)
                if reducer.id == "native":
                    raise ContractError(f"metric {metric_id!r}: native is implicit")
                if spec.kind not in reducer.supported_kinds:
                    raise ContractError(
                        f"metric {metric_id!r}: reducer {reducer.id!r} does not support {spec.kind}"
                    )
            if spec.primary:
                if PRIMARY_IDS.get(metric_id) != spec.kind:
                    raise ContractError(
                        "the primary metric must be 'correct' (binary_success) or 'score' (scalar),"
                        f" got {metric_id!r} ({spec.kind})"
                    )
            elif metric_id in PRIMARY_IDS:
                raise ContractError(f"{metric_id!r} is reserved for the primary metric")

    @property
    def primary_id(self) -> str:
        return next(mid for mid, spec in self.metrics.items() if spec.primary)

    @property
    def primary(self) -> MetricSpec:
        return self.metrics[self.primary_id]

    def label(self, metric_id: str) -> str:
        spec = self.metrics[metric_id]
        return spec.display.label if spec.display else default_label(metric_id)

    def validate_observations(
        self, observations: object, *, task_id: str | None = None, source: str = ""
    ) -> None:
        """Check an attempt's ``metrics`` against the contract (spec §5, §10 item 13)."""
        if not isinstance(observations, Mapping):
            raise ObservationError("metrics must be a mapping", task_id=task_id, source=source)
        for key, value in observations.items():
            spec = self.metrics.get(key)
            if spec is None:
                raise ObservationError(
                    f"undeclared metric {key!r} (UnknownMetricError)",
                    task_id=task_id,
                    source=source,
                )
            check_observation(key, spec.kind, value, task_id=task_id, source=source)


def check_observation(
    metric_id: str, kind: str, value: object, *, task_id: str | None = None, source: str = ""
) -> None:
    """A binary observation must be a JSON bool; a scalar an int or finite float, not a bool."""
    if kind == BINARY:
        if not isinstance(value, bool):
            raise ObservationError(
                f"metric {metric_id!r} is binary_success but the value {value!r} is not a boolean",
                task_id=task_id,
                source=source,
            )
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ObservationError(
            f"metric {metric_id!r} is scalar but the value {value!r} is not a number",
            task_id=task_id,
            source=source,
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise ObservationError(
            f"metric {metric_id!r} has a non-finite value {value!r}", task_id=task_id, source=source
        )
    if isinstance(value, int) and not -FLOAT_INT < value < FLOAT_INT:
        try:
            float(value)
        except OverflowError:  # AgentCompass's MetricObservationError, as it words it
            digits = len(str(abs(value)))
            raise ObservationError(
                f"metric {metric_id!r} must be a finite JSON number (an integer of {digits} "
                "digits is beyond a float)",
                task_id=task_id,
                source=source,
            ) from None


FLOAT_INT = 2**1023
"""Every integer strictly between ``-FLOAT_INT`` and ``FLOAT_INT`` converts to a float;
from ``2**1024 - 2**970`` on, ``float()`` overflows (AgentCompass then refuses the run)."""


def make_metric_contract(
    primary: str,
    binary: Iterable[str] = (),
    scalar: Iterable[str] = (),
    labels: Mapping[str, str] | None = None,
    *,
    display: Mapping[str, Mapping[str, Any]] | None = None,
    source: str = "",
) -> MetricContract:
    """Build a contract the way AgentCompass's ``make_metric_contract`` does.

    ``display`` is an inspector extension: optional ``description`` / ``unit`` /
    ``precision`` per metric (AgentCompass's helper sets only labels).
    """
    primary_id = normalize_metric_id(primary)
    binary_ids = [normalize_metric_id(m) for m in binary]
    scalar_ids = [normalize_metric_id(m) for m in scalar]
    declared = binary_ids + scalar_ids
    if len(set(declared)) != len(declared):
        raise ContractError("metric ids must be unique across binary and scalar")
    if primary_id not in declared:
        raise ContractError(f"the primary {primary_id!r} must be declared as binary or scalar")
    labels = dict(labels or {})
    display = dict(display or {})
    for key in list(labels) + list(display):
        if key not in declared:
            raise ContractError(f"display for undeclared metric {key!r}")
    primary_kind = BINARY if primary_id in binary_ids else SCALAR
    ordered = [primary_id] + [m for m in binary_ids if m != primary_id]
    ordered += [m for m in scalar_ids if m != primary_id]
    metrics: dict[str, MetricSpec] = {}
    for metric_id in ordered:
        kind = BINARY if metric_id in binary_ids else SCALAR
        is_primary = metric_id == primary_id
        if is_primary:
            role = "success" if primary_kind == BINARY else "score"
        else:
            role = "component"
        extra = display.get(metric_id, {})
        metrics[metric_id] = MetricSpec(
            kind=kind,
            reducers=("avg", "pass") if kind == BINARY else ("avg",),
            primary=is_primary,
            role=role,
            display=MetricDisplay(
                label=labels.get(metric_id, default_label(metric_id)),
                description=extra.get("description"),
                unit=extra.get("unit"),
                precision=extra.get("precision"),
            ),
        )
    return MetricContract(metrics, source=source)
