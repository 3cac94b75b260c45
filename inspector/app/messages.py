"""Messages workers post to their screens (only the handlers touch widgets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:  # pragma: no cover
    # Named in annotations only: the modules of retries, comparisons and a root's checks
    # are not imported before a run's first frame for them.
    from inspector.loading import Outputs
    from inspector.results.discover import RunSummary
    from inspector.session import Session
    from inspector.views.attribution import RetrySummary
    from inspector.views.compare import Comparison
    from inspector.views.run_check import RunCheck


@dataclass
class LoadProgress(Message):
    """Task folders read so far."""

    done: int
    total: int


@dataclass
class SessionLoaded(Message):
    """A run was read and recomputed (or refused: see ``session.refusal``)."""

    session: Session
    cache_hits: int = 0
    """Task folders taken from the cache instead of being read."""


@dataclass
class ReportPreview(Message):
    """The report cache holds the run's report (shown while the tasks are read);
    ``checked``: its files were found unchanged, else not yet checked."""

    outputs: Outputs
    checked: bool = True


@dataclass
class PreviewOutdated(Message):
    """The report shown from the cache, not yet checked, is not the run's: its files
    changed."""


@dataclass
class LoadFailed(Message):
    """The path could not be read as a run at all."""

    error: str


@dataclass
class RunsFound(Message):
    """The runs under a results root; ``cached``: what the last check of each found, by
    run path, shown (marked as cached) until the check is made again."""

    runs: list[RunSummary]
    errors: list[str]
    cached: dict[str, RunCheck] = field(default_factory=dict)


@dataclass
class PayloadsLoaded(Message):
    """Attempt payloads of one task: index -> payload, index -> error line."""

    payloads: dict[int, dict[str, Any]]
    errors: dict[int, str]


@dataclass
class ComparisonReady(Message):
    """Two plans or two runs were recomputed and aligned; ``sessions`` are sides A and B."""

    comparison: Comparison
    sessions: tuple[Session, Session]


@dataclass
class ComparisonFailed(Message):
    """A what-if plan or a run of a run-vs-run comparison could not be recomputed."""

    error: str


@dataclass
class RetriesRead(Message):
    """The retry records of the scored tasks were read (by stage, scope and pattern)."""

    summary: RetrySummary


@dataclass
class CompareProgress(Message):
    """Task folders of one side of a run-vs-run comparison read so far."""

    side: str
    done: int
    total: int


@dataclass
class RunsChecked(Message):
    """Runs of the runs screen were recomputed and checked: ``(run path, check)``."""

    checks: list[tuple[str, RunCheck]]


@dataclass
class RunsIntervals(Message):
    """Statistics of runs of the runs screen: ``(run path, (value, low, high) or None)``;
    ``done``: the last of them."""

    intervals: list[tuple[str, tuple[float, float, float] | None]]
    done: bool = False
