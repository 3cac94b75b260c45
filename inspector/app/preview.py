"""A cached report of an unchanged run, made ready to show before its tasks are read."""

from __future__ import annotations

import json
from dataclasses import dataclass

from inspector.engine.report import MetricReport
from inspector.engine.serialize import report_from_json
from inspector.loading import Outputs
from inspector.results.file_io import parse_json
from inspector.views.differences import Difference, metrics_differences


@dataclass(frozen=True)
class Preview:
    """A cached report of an unchanged run, ready to show."""

    report: MetricReport
    differences: list[Difference] | None  # None: no readable stored metrics.json


def preview_of(outputs: Outputs) -> Preview | None:
    """The report and stored-vs-recomputed differences of cached outputs (None: unusable)."""
    try:
        recomputed = json.loads(outputs.metrics_json)
        report = report_from_json(recomputed)
        stored = (
            parse_json(outputs.stored_metrics_text.encode("utf-8"))
            if outputs.stored_metrics_text is not None
            else None
        )
    except (ValueError, KeyError, TypeError):
        return None
    differences = (
        metrics_differences(outputs.stored_metrics_text, stored, outputs.metrics_json, recomputed)
        if stored is not None and outputs.stored_metrics_text is not None
        else None
    )
    return Preview(report, differences)
