"""Reading a stored ``metrics.json`` back into report objects (for carry-over and checks)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspector.engine.contract import MetricDisplay
from inspector.engine.errors import ReportValidationError
from inspector.engine.report import MetricBreakdown, MetricReport, MetricSeries, SeriesCounts


def _counts(data: Any) -> SeriesCounts:
    if not isinstance(data, Mapping):
        raise ReportValidationError("counts must be an object")
    return SeriesCounts(
        total=int(data.get("total", 0)),
        evaluated=int(data.get("evaluated", 0)),
        error=int(data.get("error", 0)),
        unavailable=int(data.get("unavailable", 0)),
        invalidated=int(data.get("invalidated", 0) or 0),
    )


def _breakdown(data: Any) -> MetricBreakdown:
    if not isinstance(data, Mapping):
        raise ReportValidationError("a breakdown must be an object")
    return MetricBreakdown(
        value=data.get("value"),
        reference_value=data.get("reference_value"),
        counts=_counts(data.get("counts")),
        aggregation_weight=data.get("aggregation_weight"),
    )


def series_from_json(data: Mapping[str, Any]) -> MetricSeries:
    display = data.get("display")
    return MetricSeries(
        series_id=str(data["series_id"]),
        metric_id=str(data["metric_id"]),
        kind=str(data["kind"]),
        reducer=str(data["reducer"]),
        role=str(data["role"]),
        aggregation=str(data["aggregation"]),
        display=MetricDisplay(
            label=display["label"],
            description=display.get("description"),
            unit=display.get("unit"),
            precision=display.get("precision"),
        )
        if isinstance(display, Mapping)
        else None,
        k=int(data["k"]),
        value=data.get("value"),
        reference_value=data.get("reference_value"),
        counts=_counts(data.get("counts")),
        categories={k: _breakdown(v) for k, v in (data.get("categories") or {}).items()},
        hierarchy={k: _breakdown(v) for k, v in (data.get("hierarchy") or {}).items()},
        extra=dict(data.get("extra") or {}),
    )


def report_from_json(data: Mapping[str, Any]) -> MetricReport:
    """A stored report (shape only; call ``validate_report`` to check the invariants)."""
    try:
        return MetricReport(
            k=int(data["k"]),
            strategy=str(data["strategy"]),
            aggregation=str(data["aggregation"]),
            series=tuple(series_from_json(s) for s in data["series"]),
            evaluation_failed=bool(data.get("evaluation_failed", False)),
            extra=dict(data.get("extra") or {}),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ReportValidationError(f"not a MetricReport: {exc}") from None
