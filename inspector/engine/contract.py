"""Metric contracts: ``make_metric_contract`` semantics and validation (spec §5)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from inspector.engine.errors import ContractError, ObservationError

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

    def to_json(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "label": self.label,
            "precision": self.precision,
            "unit": self.unit,
        }


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
        from inspector.engine.reducers import resolve_metric_reducer

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


SPEC_FIELDS = frozenset({"kind", "reducers", "primary", "role", "display"})
DISPLAY_FIELDS = frozenset({"label", "description", "unit", "precision"})


def _display_from_dump(metric_id: str, value: object) -> MetricDisplay | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ContractError(f"metric {metric_id!r}: display must be an object or null")
    unknown = set(value) - DISPLAY_FIELDS
    if unknown:
        raise ContractError(f"metric {metric_id!r}: unknown display keys {sorted(unknown)}")
    for key in ("description", "unit"):
        if value.get(key) is not None and not isinstance(value.get(key), str):
            raise ContractError(f"metric {metric_id!r}: display {key} must be a string or null")
    return MetricDisplay(
        label=value.get("label"),  # type: ignore[arg-type]  # checked by MetricDisplay
        description=value.get("description"),
        unit=value.get("unit"),
        precision=value.get("precision"),
    )


def contract_from_dump(data: Mapping[str, Any], *, source: str = "") -> MetricContract:
    """AgentCompass's own ``MetricContract.model_dump()``: ``{"metrics": {id: spec}}``.

    Each spec is ``{"kind", "reducers", "primary", "role", "display"}`` (spec §5); the
    contract is checked as AgentCompass's validators check it.
    """
    if set(data) != {"metrics"} or not isinstance(data["metrics"], Mapping):
        raise ContractError('a MetricContract dump is exactly {"metrics": {id: spec, ...}}')
    metrics: dict[str, MetricSpec] = {}
    for raw_id, spec in data["metrics"].items():
        metric_id = normalize_metric_id(raw_id)
        if metric_id in metrics:
            raise ContractError(f"duplicate metric id {metric_id!r}")
        if not isinstance(spec, Mapping):
            raise ContractError(f"metric {metric_id!r}: its entry must be an object")
        unknown = set(spec) - SPEC_FIELDS
        if unknown:
            raise ContractError(f"metric {metric_id!r}: unknown keys {sorted(unknown)}")
        reducers = spec.get("reducers", [])
        if not isinstance(reducers, list | tuple) or not all(isinstance(r, str) for r in reducers):
            raise ContractError(f"metric {metric_id!r}: reducers must be a list of ids")
        primary, role = spec.get("primary", False), spec.get("role")
        if not isinstance(primary, bool):
            raise ContractError(f"metric {metric_id!r}: primary must be true or false")
        if role is not None and not isinstance(role, str):
            raise ContractError(f"metric {metric_id!r}: role must be a string or null")
        metrics[metric_id] = MetricSpec(
            kind=spec.get("kind"),  # type: ignore[arg-type]  # checked by MetricContract
            reducers=tuple(r.strip().lower() for r in reducers),
            primary=primary,
            role=role,
            display=_display_from_dump(metric_id, spec.get("display")),
        )
    return MetricContract(metrics, source=source)


def contract_from_json(data: object, *, source: str = "") -> MetricContract:
    """A contract file: AgentCompass's ``MetricContract`` dump (``{"metrics": {...}}``,
    :func:`contract_from_dump`), or ``{"primary", "binary", "scalar", "labels", "display"}``.

    In the second form ``display`` maps metric ids to ``{"description", "unit",
    "precision"}`` (and may carry ``label``): exactly ``make_metric_contract``'s arguments.
    """
    if not isinstance(data, Mapping):
        raise ContractError("a contract file must hold a JSON object")
    if "metrics" in data:
        return contract_from_dump(data, source=source)
    allowed = {"primary", "binary", "scalar", "labels", "display"}
    unknown = set(data) - allowed
    if unknown:
        raise ContractError(f"unknown contract keys: {', '.join(sorted(unknown))}")
    if "primary" not in data:
        raise ContractError("a contract file needs 'primary'")

    def _ids(key: str) -> list[str]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ContractError(f"'{key}' must be a list of metric ids")
        return value

    labels = data.get("labels") or {}
    display = data.get("display") or {}
    if not isinstance(labels, Mapping) or not isinstance(display, Mapping):
        raise ContractError("'labels' and 'display' must be objects")
    labels = dict(labels)
    cleaned: dict[str, dict[str, Any]] = {}
    for metric_id, fields in display.items():
        if not isinstance(fields, Mapping):
            raise ContractError(f"display of {metric_id!r} must be an object")
        extra = set(fields) - {"label", "description", "unit", "precision"}
        if extra:
            raise ContractError(f"display of {metric_id!r}: unknown keys {sorted(extra)}")
        if "label" in fields:
            labels.setdefault(metric_id, fields["label"])
        cleaned[metric_id] = {k: v for k, v in fields.items() if k != "label"}
    return make_metric_contract(
        data["primary"], _ids("binary"), _ids("scalar"), labels, display=cleaned, source=source
    )
