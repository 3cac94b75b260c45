"""What the app is started with, beyond the paths to open."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from inspector.resolve import Overrides

if TYPE_CHECKING:  # pragma: no cover
    from inspector.loading import EarlyOpen

_PACKAGED_SAMPLE = Path(__file__).resolve().parents[1] / "sample" / "k3_avg_hierarchy"
_CHECKOUT_SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "runs" / "k3_avg_hierarchy"
SAMPLE_RUN = _PACKAGED_SAMPLE if _PACKAGED_SAMPLE.is_dir() else _CHECKOUT_SAMPLE
"""The bundled sample run opened when nothing else is found: package data in an installed
wheel (pyproject.toml maps ``inspector.sample`` onto ``fixtures/runs``), the checkout's
``fixtures/runs`` otherwise."""


@dataclass(frozen=True)
class Settings:
    """App settings.

    Attributes:
        overrides: A what-if plan applied to every run opened (None: the run's own plan).
        sample_run: The run opened when no path is given and the current folder holds none.
        cwd: The folder searched for runs when no path is given (None: the process's).
        watch_seconds: Reload interval of watch mode (``a``), for a run that is still going.
        watch: Start in watch mode.
        early: The run opened before the app started (:func:`inspector.loading.prepare_app`).
        ends_on_signals: SIGHUP (a closed terminal), SIGTERM and SIGINT end the app and its
            reader processes (``inspector PATH``, a ``serve`` session; not a test's app).
    """

    overrides: Overrides | None = None
    sample_run: Path = SAMPLE_RUN
    cwd: Path | None = None
    watch_seconds: float = 5.0
    watch: bool = False
    early: EarlyOpen | None = None
    ends_on_signals: bool = False
