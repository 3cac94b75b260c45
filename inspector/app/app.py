"""InspectorApp: opens a run or a results root and drills down from there."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.worker import get_current_worker

from inspector import loading
from inspector.app.commands import InspectorCommands
from inspector.app.messages import ComparisonFailed, ComparisonReady
from inspector.app.model import TaskFilter
from inspector.app.screens.compare import CompareScreen, TaskPairChosen
from inspector.app.screens.help import HelpScreen, help_markdown
from inspector.app.screens.ledger import TaskChosen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.runs import RunsScreen
from inspector.app.settings import Settings
from inspector.app.task_index import TaskIndexes
from inspector.engine import EngineError, Recomputation
from inspector.results.discover import is_run
from inspector.session import Session
from inspector.views.audit import SERIES_SCOPE, Scope
from inspector.views.compare import compare_plans
from inspector.views.visible import visible

if TYPE_CHECKING:  # pragma: no cover
    from inspector.loading.early import EarlyOpen


class InspectorApp(App[None]):
    """AgentCompass Inspector.

    Args:
        paths: Run directories or results roots. One run opens its overview; a root (or
            several paths) opens the runs list; none opens the runs under the current folder,
            else the bundled sample run.
        settings: Overrides and defaults (see :class:`Settings`).
    """

    TITLE = "AgentCompass Inspector"
    CSS_PATH = "inspector.tcss"
    COMMANDS = App.COMMANDS | {InspectorCommands}
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (120, "-wide")]
    """Screens narrower than 120 columns get ``-narrow`` (a tighter footer and filter bar)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", tooltip="Leave the inspector"),
        Binding("escape", "back", "Back", tooltip="Up one level"),
        Binding("r", "reload", "Reload", tooltip="Read and recompute the run again"),
        Binding(
            "R",
            "reread",
            "Re-read all",
            show=False,
            tooltip="Read every file of the run again, nothing from the cache",
        ),
        Binding(
            "a",
            "toggle_watch",
            "Watch",
            show=False,
            tooltip="Reload every few seconds, for a run that is still going (only changed "
            "task folders are read again)",
        ),
        Binding("question_mark,f1", "help", "Help", tooltip="Keys and what this screen shows"),
        Binding(
            "x",
            "export",
            "Export",
            tooltip="Write the rows on screen to a CSV / JSON / Markdown file (never into "
            "the run directory)",
        ),
        Binding("y", "copy", "Copy id", show=False, tooltip="Copy the task id under the cursor"),
        Binding("Y", "copy(True)", "Copy row", show=False, tooltip="Copy the row under the cursor"),
    ]

    def __init__(
        self, paths: list[Path] | None = None, *, settings: Settings | None = None
    ) -> None:
        super().__init__()
        loading.start_app()
        self.settings = settings or Settings()
        self.paths = [Path(p) for p in paths or []]
        self.session: Session | None = None
        """The session of the run open in the overview."""
        self._watch_timer: Timer | None = None
        self.last_reload: datetime | None = None
        """When the open run was last read (shown while watching)."""
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

    def on_mount(self) -> None:
        self.push_screen(self.first_screen())
        self._warm_readers()
        if self.settings.watch and not self.watching:
            self.action_toggle_watch()

    @work(thread=True, exit_on_error=False, group="warm", description="start reader processes")
    def _warm_readers(self) -> None:
        """Start the shared reader processes now, so that opening another run, a reload or
        a report-cache check does not wait for them."""
        loading.warm_app()

    def on_unmount(self) -> None:
        """Stop what opening runs started (reader processes, an unused early read)."""
        loading.stop_app(self._early)
        if self._watch_timer is not None:
            self._watch_timer.stop()
            self._watch_timer = None

    def reloaded(self) -> None:
        """A run was just read (the time shown while watching)."""
        self.last_reload = datetime.now()

    @property
    def watching(self) -> bool:
        """True while watch mode reloads the run periodically."""
        return self._watch_timer is not None

    def action_toggle_watch(self) -> None:
        """Start or stop reloading the run every ``settings.watch_seconds``.

        A reload reads only the task folders whose files changed (the reader's cache), so a
        live run is followed without a full re-read; tasks under ``details/running/`` are
        shown as running and never counted.
        """
        if self._watch_timer is not None:
            self._watch_timer.stop()
            self._watch_timer = None
            self.notify("Stopped watching", timeout=2)
            self._show_load_status()
            return
        seconds = self.settings.watch_seconds
        self._watch_timer = self.set_interval(seconds, self._watch_tick)
        self.notify(f"Watching: reloading every {seconds:g} s (a to stop)", timeout=3)
        self._show_load_status()

    def _show_load_status(self) -> None:
        overview = self.overview_screen
        if overview is not None and overview.is_mounted:
            overview.show_load_status()

    def _watch_tick(self) -> None:
        overview = self.overview_screen
        if overview is not None:
            if overview.is_mounted and not overview.reading:
                overview.reload()  # a read still going is not started again
        elif isinstance(self.screen, RunsScreen):
            self.screen.reload()

    def first_screen(self) -> OverviewScreen | RunsScreen:
        overrides = self.settings.overrides
        if not self.paths:
            cwd = self.settings.cwd or Path(os.getcwd())
            return RunsScreen([cwd], fallback=self.settings.sample_run)
        if len(self.paths) == 1 and (is_run(self.paths[0]) or not self.paths[0].is_dir()):
            return OverviewScreen(self.paths[0], overrides)
        return RunsScreen(self.paths)

    # Navigation used by screens and commands.
    @property
    def overview_screen(self) -> OverviewScreen | None:
        for screen in reversed(self.screen_stack):
            if isinstance(screen, OverviewScreen):
                return screen
        return None

    @property
    def has_runs_screen(self) -> bool:
        return any(isinstance(screen, RunsScreen) for screen in self.screen_stack)

    def go_to_overview(self) -> None:
        overview = self.overview_screen
        while overview is not None and self.screen is not overview:
            self.pop_screen()

    def go_to_runs(self) -> None:
        while self.has_runs_screen and not isinstance(self.screen, RunsScreen):
            self.pop_screen()

    def open_tasks(self, task_filter: TaskFilter) -> None:
        self.go_to_overview()
        overview = self.overview_screen
        if overview is not None:
            overview.open_tasks(task_filter)

    def show_series(self, series_id: str) -> None:
        self.go_to_overview()
        overview = self.overview_screen
        if overview is not None:
            overview.series_table.select_series(series_id)
            overview.series_table.focus()

    def show_problems(self) -> None:
        self.go_to_overview()
        overview = self.overview_screen
        if overview is not None:
            overview.action_focus_problems()

    def open_ledger(
        self, series_id: str, count: str = "total", scope: Scope = SERIES_SCOPE
    ) -> None:
        self.go_to_overview()
        overview = self.overview_screen
        if overview is not None:
            overview.open_ledger(series_id, count, scope)

    def open_explain(self, series_id: str, scope: Scope = SERIES_SCOPE) -> None:
        self.go_to_overview()
        overview = self.overview_screen
        if overview is not None:
            overview.open_explain(series_id, scope)

    def open_issues(self) -> None:
        self.go_to_overview()
        overview = self.overview_screen
        if overview is not None:
            overview.open_issues()

    def open_what_if(self) -> None:
        """Ask for a what-if plan of the open run (from the overview or a plan comparison)."""
        overview = self.overview_screen
        if overview is not None:
            overview.open_what_if()

    def session_changed(self, replaced: Session | None, session: Session) -> None:
        """A reload finished: let the screens that showed the replaced session follow.

        Comparisons keep the sessions they were made from (a derived plan or another run).
        """
        if replaced is None:
            return
        for screen in self.screen_stack:
            refresh = getattr(screen, "refresh_session", None)
            shows = getattr(screen, "session", None) is replaced or (
                getattr(screen, "recomputation", None) is replaced.recomputation
                and replaced.recomputation is not None
            )
            if refresh is not None and shows:
                refresh(session)

    # Comparisons: a what-if plan beside the stored plan, or two runs.
    def compare_plan(self, session: Session, k: int, strategy: str) -> None:
        """Recompute ``session``'s run under a derived plan (in a worker), then compare."""
        label = "k=1" if k == 1 else f"{strategy}@{k}"
        self.notify(f"Recomputing the run as {label}…", timeout=2)
        self._derive(session, k, strategy)

    @work(thread=True, exclusive=True, exit_on_error=False, group="what-if",
          description="derived plan")  # fmt: skip
    def _derive(self, session: Session, k: int, strategy: str) -> None:
        rec = session.recomputation
        assert rec is not None
        try:
            comparison = compare_plans(rec, k=k, strategy=strategy)
        except (EngineError, ValueError) as exc:
            self.post_message(ComparisonFailed(str(exc)))
            return
        derived = Session(run=session.run, recomputation=comparison.b)
        if not get_current_worker().is_cancelled:
            self.post_message(ComparisonReady(comparison, (session, derived)))

    @on(ComparisonReady)
    def _plans_compared(self, message: ComparisonReady) -> None:
        self.go_to_overview()
        self.push_screen(CompareScreen(message.comparison, message.sessions))

    @on(ComparisonFailed)
    def _compare_failed(self, message: ComparisonFailed) -> None:
        self.notify(message.error, title="Cannot compare", severity="error", markup=False)

    # Tasks chosen on the ledger, explain and compare screens.
    def session_for(self, recomputation: Recomputation | None) -> Session | None:
        """The session holding ``recomputation``: the open run's, or a comparison side."""
        candidates = [self.session] if self.session is not None else []
        for screen in self.screen_stack:
            if isinstance(screen, CompareScreen) and screen.sessions is not None:
                candidates.extend(screen.sessions)
        return next((s for s in candidates if s.recomputation is recomputation), None)

    def open_task(
        self,
        session: Session | None,
        task_id: str,
        series_id: str | None,
        side: str | None = None,
    ) -> None:
        from inspector.app.screens.task import TaskScreen

        rec = session.recomputation if session is not None else None
        if session is None or rec is None or task_id not in rec.task_index():
            self.notify("This task cannot be opened from here.", severity="warning")
            return
        series_id = series_id or rec.report.summary_series.series_id
        self.push_screen(TaskScreen(session, task_id, series_id, side))

    @on(TaskChosen)
    def _task_chosen(self, message: TaskChosen) -> None:
        session = self.session_for(getattr(self.screen, "recomputation", None))
        self.open_task(session, message.task_id, message.series_id)

    @on(TaskPairChosen)
    def _task_pair_chosen(self, message: TaskPairChosen) -> None:
        screen = self.screen
        if not isinstance(screen, CompareScreen) or screen.sessions is None:
            return
        side_b = message.side == "b"
        session = screen.sessions[1 if side_b else 0]
        comparison = screen.comparison
        side = f"side B: {comparison.label_b}" if side_b else f"side A: {comparison.label_a}"
        self.open_task(
            session, message.task_id, message.series_b if side_b else message.series_a, side
        )

    # Actions.
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide Back on the first screen: there is nothing to go back to."""
        if action == "back":
            return sum(not isinstance(s, ModalScreen) for s in self.screen_stack) > 2
        if action == "export":
            return callable(getattr(self.screen, "export_table", None))
        if action == "copy":
            return callable(getattr(self.screen, "copy_text", None))
        return True

    def run_dirs(self) -> list[Path]:
        """Every run directory open in a screen (an export never goes into one)."""
        dirs = {p.resolve() for p in self.paths if p.is_dir()}
        for screen in self.screen_stack:
            for session in (
                getattr(screen, "session", None),
                *(getattr(screen, "sessions", None) or ()),
            ):
                if isinstance(session, Session):
                    dirs.add(session.run.path.resolve())
        return sorted(dirs)

    def action_export(self) -> None:
        """Ask where to write the table on screen, then write it and say where."""
        from inspector.app.screens.table_export import TableExportScreen

        table = getattr(self.screen, "export_table", lambda: None)()
        if table is None:
            self.notify("Nothing to export on this screen.", severity="warning")
            return
        folder = self.settings.cwd or Path(os.getcwd())

        def written(path: Path | None) -> None:
            if path is not None:
                self.notify(f"Wrote {len(table.rows):,} rows to {path}", title="Exported",
                            markup=False, timeout=8)  # fmt: skip

        self.push_screen(TableExportScreen(table, folder, self.run_dirs()), written)

    def action_copy(self, row: bool = False) -> None:
        """Copy the task id (``Y``: the whole row, tab-separated) under the cursor."""
        text = getattr(self.screen, "copy_text", lambda row: None)(row)
        if not text:
            self.notify("Nothing under the cursor to copy.", severity="warning")
            return
        self.copy_to_clipboard(text)
        shown = visible(text if len(text) <= 60 else text[:59] + "…", one_line=True)
        self.notify(f"Copied: {shown}", markup=False, timeout=3)

    def action_back(self) -> None:
        if len(self.screen_stack) > 2:
            self.pop_screen()

    def action_reread(self) -> None:
        """Read every file of the open run again: the cache may not stand in."""
        overview = self.overview_screen
        if overview is not None:
            overview.reload(fresh=True)
            self.notify("Reading every file of the run again (no cache)…", timeout=2)

    def action_reload(self) -> None:
        overview = self.overview_screen
        if overview is not None:
            overview.reload()
            self.notify("Reloading the run…", timeout=2)
        elif isinstance(self.screen, RunsScreen):
            self.screen.reload()

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(help_markdown(self.screen)))
