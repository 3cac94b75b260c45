"""Navigation as messages: a screen says where to go, the navigator takes it there.

No screen imports another screen: a screen posts one of these (they bubble to the app) and
:class:`inspector.app.navigator.Navigator` pushes the screen asked for. The screens, the
command palette and the app's own actions use the same messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.message import Message

from inspector.engine.recomputation import Recomputation
from inspector.session import Session
from inspector.views.audit import SERIES_SCOPE, Scope
from inspector.views.tasks import TaskFilter

if TYPE_CHECKING:  # pragma: no cover
    from inspector.views.runs_view import RunRow  # the runs screen's rows: a root's only


@dataclass
class OpenRun(Message):
    """Open the run at ``path`` in an overview (``instead``: in place of the screen on top)."""

    path: Path
    instead: bool = False


@dataclass
class OpenTasks(Message):
    """The tasks of ``session`` that ``task_filter`` keeps."""

    session: Session
    task_filter: TaskFilter


@dataclass
class OpenLedger(Message):
    """The tasks behind one count of a series (or of a node or category of it)."""

    recomputation: Recomputation
    series_id: str | None
    count: str = "total"
    scope: Scope = SERIES_SCOPE


@dataclass
class OpenExplain(Message):
    """How a value of a series (or of a node or category of it) is made."""

    recomputation: Recomputation
    series_id: str | None
    scope: Scope = SERIES_SCOPE


@dataclass
class OpenIssues(Message):
    """Which issues pushed which tasks into which counts."""

    session: Session
    series_id: str | None


@dataclass
class OpenTask(Message):
    """One task of ``session`` (``side``: which side of a comparison it is)."""

    session: Session
    task_id: str
    series_id: str | None
    side: str | None = None


@dataclass
class TaskChosen(Message):
    """A task was chosen on a ledger or an explanation: opened with the session that holds
    ``recomputation``."""

    task_id: str
    series_id: str
    recomputation: Recomputation | None = None
    """The recomputation the task was chosen in (its session opens the task)."""


@dataclass
class TaskPairChosen(Message):
    """The user opened an aligned task; either series id is None on a one-sided pair.

    ``side`` is the side to open it on: ``"a"`` or ``"b"``.
    """

    task_id: str
    series_a: str | None
    series_b: str | None
    side: str = "a"


@dataclass
class OpenDiagnostics(Message):
    """The logs and trajectories of one attempt of a task."""

    session: Session
    task_id: str
    attempt: int
    # the side of a comparison the task was opened on ("side A: <label>"), if any
    side: str | None = None


@dataclass
class OpenFlaky(Message):
    """Pass curves and the tasks that pass in some attempts and fail in others."""

    session: Session


@dataclass
class OpenRunExport(Message):
    """Ask where and in which format to export the run's report and tasks."""

    session: Session


@dataclass
class OpenWhatIf(Message):
    """Ask for a derived plan of ``session`` (None: the open run's), then compare it with
    the stored plan."""

    session: Session | None = None


@dataclass
class OpenDetail(Message):
    """A text in full over the screen (``target``: the file it speaks of, for the pager)."""

    text: Text
    target: Path | None


@dataclass
class OpenLeaderboard(Message):
    """Models × benchmarks of ``rows`` (the runs under ``roots``)."""

    rows: list[RunRow]
    roots: list[Path]


@dataclass
class OpenItems(Message):
    """Every task id over the runs ``runs`` (``(path, shown as)``), flagged."""

    runs: list[tuple[str, str]]
    title: str


@dataclass
class CompareRuns(Message):
    """Read, recompute and compare runs ``a`` and ``b`` (the runs screen does it)."""

    a: Path
    b: Path


@dataclass
class RunsUpdated(Message):
    """Checks of the runs screen's rows arrived (the leaderboard over them follows)."""

    rows: list[RunRow]
