"""A cached report of an unchanged run, made ready to show before its tasks are read."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from inspector.engine.report import MetricReport
from inspector.engine.serialize import report_from_json
from inspector.loading.records import Outputs
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


def throttled(
    post: Callable[[int, int], None], cancelled: Callable[[], bool], interval: float = 0.1
) -> Callable[[int, int], None]:
    """A progress callback passing on at most one update per ``interval`` (and the last):
    each update repaints, and the interface shares the cores with the reader processes."""
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if not cancelled() and (done >= total or now - last[0] >= interval):
            last[0] = now
            post(done, total)

    return progress
