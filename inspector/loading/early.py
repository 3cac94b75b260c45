"""Opening a run before the app is up (issue 6).

``inspector RUN`` spends about half a second importing and starting the interface. Before
that, while the process still has one thread, :func:`prepare` either finds the run's report
in the report cache (the overview shows its numbers at once, as not yet checked against the
run's files, while a reader process checks them) or starts the reader processes on it, so
the task folders are read while the interface starts.
Nothing here imports textual.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from inspector.loading import reports
from inspector.loading.pending import PendingRead, begin_read
from inspector.loading.records import Outputs
from inspector.overrides import Overrides
from inspector.results.problems import RunReadError


@dataclass
class EarlyOpen:
    """What was done for one run before the app started."""

    path: Path
    preview: Outputs | None = None  # the report cache's answer, its files not checked
    pending: PendingRead | None = None

    def matches(self, path: Path) -> bool:
        return os.path.abspath(path) == os.path.abspath(self.path)

    def cancel(self) -> None:
        """Not used after all: stop its reader processes."""
        if self.pending is not None:
            self.pending.cancel()


def prepare(path: Path, overrides: Overrides | None = None) -> EarlyOpen | None:
    """Look the run up in the report cache, else start reading it (worker processes)."""
    if not ((path / "run_info.json").exists() or (path / "details").is_dir()):
        return None
    early = EarlyOpen(path)
    # Not checked against the files here: the app shows it as not yet checked while a
    # reader process checks them (:func:`inspector.loading.door.open_run`).
    early.preview = reports.peek(path, reports.own_plan_key(overrides))
    if early.preview is None:
        try:
            early.pending = begin_read(path)
        except RunReadError:
            return None
    return early
