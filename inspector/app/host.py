"""What screens may ask of the app, typed, without importing the app or another screen.

:class:`Host` is the app's state that screens read (settings, the open session, the task rows
built once per run, the run read before the app started); :class:`InspectorScreen` is what the
app may ask of any screen (the sessions it shows, following a reload, the table to export, the
text to copy, its palette commands). Navigation goes the other way, as messages
(:mod:`inspector.app.navigation`), handled in :mod:`inspector.app.navigator`.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from textual.app import App
from textual.dom import DOMNode
from textual.screen import Screen
from textual.timer import Timer

from inspector.app.settings import Settings
from inspector.app.table_export import Table
from inspector.engine.recomputation import Recomputation
from inspector.session import Session
from inspector.views.task_index import TaskIndexes

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from inspector.loading import EarlyOpen


class Host(App[None]):
    """The inspector app as its screens see it."""

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__()
        self.settings = settings or Settings()
        self.session: Session | None = None
        """The session of the run open in the overview."""
        self.last_reload: datetime | None = None
        """When the open run was last read (shown while watching)."""
        self._watch_timer: Timer | None = None
        self._task_indexes: TaskIndexes | None = None
        self._early = self.settings.early

    def take_early(self, path: Path) -> EarlyOpen | None:
        """What was done for ``path`` before the app started (once; then None)."""
        early = self._early
        if early is None or not early.matches(path):
            return None
        self._early = None
        return early

    def task_indexes(self, recomputation: Recomputation) -> TaskIndexes:
        """The task rows of ``recomputation`` by series, built once (the last run asked for)."""
        indexes = self._task_indexes
        if indexes is None or indexes.recomputation is not recomputation:
            indexes = self._task_indexes = TaskIndexes(recomputation)
        return indexes

    @property
    def watching(self) -> bool:
        """True while watch mode reloads the run periodically."""
        return self._watch_timer is not None

    def loaded(self, session: Session) -> None:
        """The overview read its run: ``session`` is the open one now; the screens that
        showed the one it replaces follow (comparisons keep the sessions they were made from:
        a derived plan or another run)."""
        replaced, self.session = self.session, session
        self.last_reload = datetime.now()
        if replaced is None:
            return
        for screen in self.screen_stack:
            if isinstance(screen, InspectorScreen):
                screen.refresh_session(replaced, session)

    def session_for(self, recomputation: Recomputation | None) -> Session | None:
        """The session holding ``recomputation``: the open run's, or a comparison side."""
        candidates = [self.session] if self.session is not None else []
        for screen in self.screen_stack:
            if isinstance(screen, InspectorScreen):
                candidates.extend(screen.shown_sessions())
        return next((s for s in candidates if s.recomputation is recomputation), None)


def host_of(node: DOMNode) -> Host | None:
    """The inspector app ``node`` runs in (None in a bare test app)."""
    app = node.app
    return app if isinstance(app, Host) else None


class InspectorScreen(Screen[None]):
    """A full screen of the inspector: what the app asks of it, with harmless defaults."""

    EXPORTS: ClassVar[bool] = False
    """``x`` writes :meth:`export_table` to a file."""
    COPIES: ClassVar[bool] = False
    """``y`` / ``Y`` copy :meth:`copy_text`."""
    FOOTER_KEYS: ClassVar[frozenset[str]] = frozenset()
    """The screen's main actions: their keys stay in the footer at every width, the rest
    fold behind ``? Help`` when the footer is narrow (:class:`~widgets.key_footer.KeyFooter`)."""
    PALETTE: ClassVar[dict[str, str]] = {}
    """Palette titles of some of the screen's key actions (``{"sort": "sort: next field"}``):
    the palette offers them while the key is enabled, with the key's tooltip as help."""

    def shown_sessions(self) -> tuple[Session, ...]:
        """The sessions this screen shows (their run folders: never an export target)."""
        return ()

    def refresh_session(self, replaced: Session, session: Session) -> None:
        """The run of ``replaced`` was read again as ``session``: follow it if shown here."""

    def export_table(self) -> Table | None:
        """The rows on screen, for ``x``."""
        return None

    def copy_text(self, row: bool = False) -> str | None:
        """The task id (``row``: the row) under the cursor, for ``y`` / ``Y``."""
        return None
