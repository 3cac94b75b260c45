"""``MetricReport`` and its parts, the invariants of spec §8.1, and ``metrics.json`` (spec §8).

Plain frozen dataclasses: the engine builds thousands of breakdowns and needs no parsing
layer for its own output. ``validate_report`` checks every invariant AgentCompass's
pydantic models check, so a report the engine emits is one AgentCompass would accept.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from inspector.engine import strict_json
from inspector.engine.contract import BINARY, PRIMARY_IDS, MetricDisplay
from inspector.engine.errors import PlanError, ReportValidationError
from inspector.engine.reducers import resolve_metric_reducer
from inspector.engine.strategies import (
    HEADLINE,
    SeriesPlan,
    metric_series_id,
    resolve_attempt_strategy,
)
from inspector.engine.vocabulary import COUNTS

MICRO_WEIGHTED = "micro_weighted"
CATEGORY_MEAN = "category_mean"
CATEGORY_HIERARCHY = "category_hierarchy"
AGGREGATIONS = (MICRO_WEIGHTED, CATEGORY_MEAN, CATEGORY_HIERARCHY)


@dataclass(frozen=True, slots=True)
class SeriesCounts:
    """``{total, evaluated, error, unavailable, invalidated}``; ``error`` overlaps the others."""

    total: int = 0
    evaluated: int = 0
    error: int = 0
    unavailable: int = 0
    invalidated: int = 0

    def __add__(self, other: SeriesCounts) -> SeriesCounts:
        return SeriesCounts(*(getattr(self, f) + getattr(other, f) for f in COUNTS))

    def to_json(self) -> dict[str, int]:
        return {f: getattr(self, f) for f in COUNTS}

    def check(self, where: str) -> None:
        for name in COUNTS[1:]:
            if getattr(self, name) > self.total:
                raise ReportValidationError(f"{where}: counts.{name} exceeds counts.total")
        if self.evaluated + self.unavailable + self.invalidated != self.total:
            raise ReportValidationError(
                f"{where}: evaluated + unavailable + invalidated must equal total"
            )


def sum_counts(items: Iterable[SeriesCounts]) -> SeriesCounts:
    total = SeriesCounts()
    for item in items:
        total = total + item
    return total


@dataclass(frozen=True, slots=True)
class MetricBreakdown:
    """A category or hierarchy node: value, reference value, counts, weight."""

    value: float | None
    counts: SeriesCounts
    aggregation_weight: float | None = None
    reference_value: float | None = None

    @property
    def shown_value(self) -> float | None:
        """The number computed for this scope, official or reference."""
        return self.value if self.value is not None else self.reference_value

    def to_json(self) -> dict[str, Any]:
        return {
            "aggregation_weight": self.aggregation_weight,
            "counts": self.counts.to_json(),
            "reference_value": self.reference_value,
            "value": self.value,
        }


ZERO_BREAKDOWN = MetricBreakdown(value=None, counts=SeriesCounts(), aggregation_weight=0.0)


@dataclass(frozen=True, slots=True)
class MetricSeries:
    """One run-level metric/reducer value and its breakdowns."""

    series_id: str
    metric_id: str
    kind: str
    reducer: str
    role: str
    aggregation: str
    display: MetricDisplay | None
    k: int
    value: float | None
    counts: SeriesCounts
    categories: Mapping[str, MetricBreakdown] = field(default_factory=dict)
    hierarchy: Mapping[str, MetricBreakdown] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)
    reference_value: float | None = None

    @property
    def shown_value(self) -> float | None:
        return self.value if self.value is not None else self.reference_value

    @property
    def label(self) -> str:
        return self.display.label if self.display else self.metric_id

    @property
    def reducer_at_k(self) -> str:
        return f"{self.reducer}@{self.k}"

    def to_json(self) -> dict[str, Any]:
        return {
            "aggregation": self.aggregation,
            "categories": {key: b.to_json() for key, b in self.categories.items()},
            "counts": self.counts.to_json(),
            "display": _display_json(self.display) if self.display else None,
            "extra": _plain(self.extra),
            "hierarchy": {key: b.to_json() for key, b in self.hierarchy.items()},
            "k": self.k,
            "kind": self.kind,
            "metric_id": self.metric_id,
            "reducer": self.reducer,
            "reference_value": self.reference_value,
            "role": self.role,
            "series_id": self.series_id,
            "value": self.value,
        }


@dataclass(frozen=True, slots=True)
class MetricReport:
    """All series of one run (spec §8.1)."""

    k: int
    strategy: str
    aggregation: str
    series: tuple[MetricSeries, ...]
    evaluation_failed: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)

    def series_by_id(self, series_id: str) -> MetricSeries:
        for item in self.series:
            if item.series_id == series_id:
                return item
        raise KeyError(series_id)

    @property
    def summary_series(self) -> MetricSeries:
        """The series whose counts head ``summary.md`` (``render._summary_series``)."""
        headline = [s for s in self.series if s.role == HEADLINE]
        return next((s for s in headline if s.reducer == self.strategy), headline[0])

    def to_json(self) -> dict[str, Any]:
        return {
            "aggregation": self.aggregation,
            "evaluation_failed": self.evaluation_failed,
            "extra": _plain(self.extra),
            "k": self.k,
            "series": [s.to_json() for s in self.series],
            "strategy": self.strategy,
        }


def _display_json(display: MetricDisplay) -> dict[str, Any]:
    """A series' ``display`` as metrics.json writes it."""
    return {
        "description": display.description,
        "label": display.label,
        "precision": display.precision,
        "unit": display.unit,
    }


def _plain(value: Any) -> Any:
    """Mappings and sequences as JSON-ready dicts and lists."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def dumps_metrics_json(report: MetricReport) -> str:
    """``metrics.json`` exactly as AgentCompass writes it: sorted keys, indent 2, newline."""
    return strict_json.dumps(report.to_json(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


_Valued = TypeVar("_Valued", "MetricSeries", "MetricBreakdown")


def select_value_role(series: MetricSeries, evaluation_failed: bool) -> MetricSeries:
    """Move values to ``reference_value`` when the evaluation failed (and back otherwise)."""

    def move(part: _Valued) -> _Valued:
        value = part.shown_value
        if evaluation_failed:
            return replace(part, value=None, reference_value=value)
        return replace(part, value=value, reference_value=None)

    return replace(
        move(series),
        categories={k: move(b) for k, b in series.categories.items()},
        hierarchy={k: move(b) for k, b in series.hierarchy.items()},
    )


# ----------------------------------------------------------------------------- validation


def _decode_segment(segment: str) -> str:
    out = []
    i = 0
    while i < len(segment):
        ch = segment[i]
        if ch != "~":
            out.append(ch)
            i += 1
            continue
        if i + 1 >= len(segment) or segment[i + 1] not in "01":
            raise ReportValidationError(f"invalid hierarchy path escape in {segment!r}")
        out.append("~" if segment[i + 1] == "0" else "/")
        i += 2
    return "".join(out)


def _check_number(value: float | None, where: str) -> None:
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value)
    ):
        raise ReportValidationError(f"{where}: value must be a finite number or null")


def _check_breakdown(part: MetricBreakdown, where: str) -> None:
    part.counts.check(where)
    _check_number(part.value, where)
    _check_number(part.reference_value, where)
    if part.value is not None and part.reference_value is not None:
        raise ReportValidationError(f"{where}: value and reference_value are both set")
    if part.counts.evaluated == 0 and part.shown_value is not None:
        raise ReportValidationError(f"{where}: a value without evaluated tasks")
    weight = getattr(part, "aggregation_weight", None)
    if weight is not None and weight < 0:
        raise ReportValidationError(f"{where}: negative aggregation_weight")


def validate_series(series: MetricSeries) -> None:
    """The ``MetricSeries`` invariants of spec §8.1."""
    sid = series.series_id
    if sid != metric_series_id(series.metric_id, series.reducer, series.k):
        raise ReportValidationError(f"{sid}: series_id does not match its parts")
    reducer = resolve_metric_reducer(series.reducer)
    if not reducer.supports(series.kind, series.k):
        raise ReportValidationError(f"{sid}: reducer {series.reducer} cannot serve {series.kind}")
    _check_breakdown(series, sid)  # type: ignore[arg-type]
    parts = [series.value, series.reference_value]
    parts += [v for b in series.categories.values() for v in (b.value, b.reference_value)]
    parts += [v for b in series.hierarchy.values() for v in (b.value, b.reference_value)]
    if series.kind == BINARY:
        for value in parts:
            if value is not None and not 0.0 <= value <= 1.0:
                raise ReportValidationError(f"{sid}: binary value {value} outside [0, 1]")
    for key, part in series.categories.items():
        _check_breakdown(part, f"{sid} category {key!r}")
    for name in COUNTS:
        if sum(getattr(b.counts, name) for b in series.categories.values()) != getattr(
            series.counts, name
        ):
            raise ReportValidationError(f"{sid}: category counts.{name} do not sum to the series")
    if not series.hierarchy:
        return
    root = series.hierarchy.get("overall")
    if root is None:
        raise ReportValidationError(f"{sid}: hierarchy without an 'overall' root")
    children: dict[str, list[MetricBreakdown]] = {}
    leaves = set(series.hierarchy)
    for path, part in series.hierarchy.items():
        _check_breakdown(part, f"{sid} node {path!r}")
        segments = path.split("/")
        if segments[0] != "overall" or any(not s for s in segments):
            raise ReportValidationError(f"{sid}: invalid hierarchy path {path!r}")
        if path == "overall":
            continue
        parent = path.rsplit("/", 1)[0]
        if parent not in series.hierarchy:
            raise ReportValidationError(f"{sid}: hierarchy path {path!r} has no parent")
        children.setdefault(parent, []).append(part)
        leaves.discard(parent)
    for parent, items in children.items():
        if sum_counts(b.counts for b in items) != series.hierarchy[parent].counts:
            raise ReportValidationError(f"{sid}: node {parent!r} counts differ from its children")
    for path in leaves:
        category = _decode_segment(path.rsplit("/", 1)[-1])
        if series.hierarchy[path] != series.categories.get(category, ZERO_BREAKDOWN):
            raise ReportValidationError(f"{sid}: leaf {path!r} differs from category {category!r}")
    for name in COUNTS:
        if getattr(root.counts, name) > getattr(series.counts, name):
            raise ReportValidationError(f"{sid}: hierarchy root counts.{name} exceed the series")


def validate_report(report: MetricReport) -> None:
    """Every invariant of spec §8.1; raises :class:`ReportValidationError`."""
    if not report.series:
        raise ReportValidationError("a report needs at least one series")
    if report.aggregation not in AGGREGATIONS:
        raise ReportValidationError(f"unknown report aggregation {report.aggregation!r}")
    first = report.series[0]
    if report.evaluation_failed != (first.counts.invalidated > 0):
        raise ReportValidationError("evaluation_failed must equal (invalidated > 0)")
    seen: set[str] = set()
    roles: dict[str, str] = {}
    headline_ids: set[str] = set()
    headline_kinds: set[str] = set()
    for series in report.series:
        validate_series(series)
        sid = series.series_id
        if sid in seen:
            raise ReportValidationError(f"duplicate series {sid}")
        seen.add(sid)
        if series.k != report.k:
            raise ReportValidationError(f"{sid}: k differs from the report")
        if roles.setdefault(series.metric_id, series.role) != series.role:
            raise ReportValidationError(f"metric {series.metric_id}: mixed roles")
        if series.role == HEADLINE:
            headline_ids.add(series.metric_id)
            headline_kinds.add(series.kind)
        if set(series.categories) != set(first.categories):
            raise ReportValidationError("all series must expose the same category keys")
        if set(series.hierarchy) != set(first.hierarchy):
            raise ReportValidationError("all series must expose the same hierarchy paths")
        if series.counts.invalidated != first.counts.invalidated:
            raise ReportValidationError("all series must use the same invalidated task set")
        if series.counts.total != first.counts.total:
            raise ReportValidationError("all series must use the same candidate task total")
        if (report.aggregation == CATEGORY_HIERARCHY) != bool(series.hierarchy):
            raise ReportValidationError(f"{sid}: hierarchy present iff category_hierarchy")
        selected = "reference_value" if report.evaluation_failed else "value"
        forbidden = "value" if report.evaluation_failed else "reference_value"
        scopes: list[tuple[Any, SeriesCounts]] = [
            (series, series.hierarchy["overall"].counts if series.hierarchy else series.counts)
        ]
        scopes += [(b, b.counts) for b in (*series.categories.values(), *series.hierarchy.values())]
        for part, counts in scopes:
            if getattr(part, forbidden) is not None:
                raise ReportValidationError(f"{sid}: {forbidden} set although evaluation_failed")
            if counts.evaluated > 0 and getattr(part, selected) is None:
                raise ReportValidationError(f"{sid}: an evaluated scope without {selected}")
        for namespace in ("categories", "hierarchy"):
            for key, part in getattr(series, namespace).items():
                expected = getattr(first, namespace)[key].counts
                if (part.counts.total, part.counts.invalidated) != (
                    expected.total,
                    expected.invalidated,
                ):
                    raise ReportValidationError(f"{sid} {key!r}: total/invalidated differ")
    if len(headline_ids) != 1 or len(headline_kinds) != 1:
        raise ReportValidationError("a report needs exactly one headline metric")
    primary = next(iter(headline_ids))
    if PRIMARY_IDS.get(primary) != next(iter(headline_kinds)):
        raise ReportValidationError("the headline must be binary 'correct' or scalar 'score'")
    if set(roles) & set(PRIMARY_IDS) != {primary}:
        raise ReportValidationError("'correct'/'score' may be used only by the primary metric")
    try:
        strategy = resolve_attempt_strategy(report.strategy)
        strategy.validate_report(
            report.k,
            [SeriesPlan(s.metric_id, s.reducer, s.k, s.kind, s.role) for s in report.series],
        )
    except PlanError as exc:
        raise ReportValidationError(str(exc)) from None
