"""Opening a run for the overview: the cached report first when the run is unchanged, then
the whole run (read, scored and stored in the report cache). Runs in a worker thread; the
screen only shows what this returns and posts."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector import report_cache
from inspector.app import heap
from inspector.early import preview_key
from inspector.engine.report import MetricReport
from inspector.engine.serialize import report_from_json
from inspector.report_cache import Outputs, outputs_of
from inspector.resolve import Overrides
from inspector.results.layout import parse_json
from inspector.results.reader import PendingRead, begin_read
from inspector.session import Difference, Session, compare_reports, finish_and_score


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
    differences = compare_reports(stored, recomputed) if stored is not None else None
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


def read_and_score(
    path: Path,
    overrides: Overrides | None,
    pending: PendingRead | None,
    *,
    preview: bool,
    reuse_cache: bool = True,
    on_preview: Callable[[Outputs], Any],
    on_loaded: Callable[[Session], Any],
    progress: Callable[[int, int], None],
) -> None:
    """Read and score the run at ``path``; the session goes to ``on_loaded``.

    With ``preview`` (nothing on screen yet) and no read started before the app
    (``pending``, :mod:`inspector.early`), the report cache is checked first: an unchanged
    run's outputs go to ``on_preview`` before its tasks are read. The tasks are reduced as
    the reader processes deliver them. Only after ``on_loaded`` are the task cache and the
    run's report written for next time (its own plan only), so a large run is on screen
    before its cache files are. ``reuse_cache=False`` reads every file again.

    Raises:
        RunReadError: the run directory cannot be read.
    """
    key = preview_key(overrides)
    heap.release()
    if preview and pending is None:
        outputs = Outputs.from_data(report_cache.lookup_in_worker(path, key))
        if outputs is not None:
            on_preview(outputs)
            # Let the interface thread paint the numbers before the read takes the
            # interpreter.
            time.sleep(0.05)
    with heap.paused():
        if pending is None:
            pending = begin_read(path, reuse_cache=reuse_cache)
        session = finish_and_score(pending, overrides, progress=progress, save_cache=False)
    on_loaded(session)
    try:  # the caches are optional: a failure here never fails the load
        pending.save_cache()
        if session.recomputation is not None and key is not None:
            report_cache.store(session.run, key, outputs_of(session, []).as_data())
    except Exception:
        pass
