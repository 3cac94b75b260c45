"""InspectorApp: opens a run or a results root and drills down from there."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen

from inspector import loading
from inspector.app.commands import InspectorCommands
from inspector.app.find import PROVIDERS, FindTask
from inspector.app.host import InspectorScreen
from inspector.app.navigator import Navigator
from inspector.app.screens.overview import OverviewScreen
from inspector.app.settings import Settings
from inspector.results.discover import is_run
from inspector.results.file_io import lossy
from inspector.views.visible import visible

if TYPE_CHECKING:  # pragma: no cover
    from inspector.app.screens.runs import RunsScreen

ENDING_SIGNALS = (signal.SIGHUP, signal.SIGTERM, signal.SIGINT)
"""What ends the app when :attr:`Settings.ends_on_signals` (:meth:`InspectorApp._signalled`)."""


class InspectorApp(Navigator):
    """AgentCompass Inspector.

    Args:
        paths: Run directories or results roots. One run opens its overview; a root (or
            several paths) opens the runs list; none opens the runs under the current folder,
            else the bundled sample run.
        settings: Overrides and defaults (see :class:`Settings`).
    """

    TITLE = "AgentCompass Inspector"
    CSS_PATH = "inspector.tcss"
    COMMANDS = App.COMMANDS | {InspectorCommands, *PROVIDERS}
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (120, "-wide")]
    """Screens narrower than 120 columns get ``-narrow`` (a tighter footer and filter bar)."""
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-short"), (30, "-tall")]
    """Screens lower than 30 rows get ``-short`` (the compare screen's task table keeps 8
    rows at 80×24)."""

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
            "colon",
            "go_to_task",
            "Go to task",
            show=False,
            tooltip="Type a task id of the open run; enter opens it",
        ),
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
        super().__init__(settings)
        loading.start_app()
        self.paths = [Path(p) for p in paths or []]

    def on_mount(self) -> None:
        if self.settings.ends_on_signals:
            for signum in ENDING_SIGNALS:
                asyncio.get_running_loop().add_signal_handler(signum, self._signalled, signum)
        early = self.settings.early
        early_read = early is not None and early.pending is not None  # before the screen reads
        self.push_screen(self.first_screen())
        if not early_read:
            # Not while the run's own reader processes read it (an early read): two more
            # processes would raise the peak by theirs for a reload that may never come;
            # the pool starts when first used.
            self._warm_readers()
        if self.settings.watch and not self.watching:
            self.action_toggle_watch()

    @work(thread=True, exit_on_error=False, group="warm", description="start reader processes")
    def _warm_readers(self) -> None:
        """Start the shared reader processes now, so that opening another run, a reload or
        a report-cache check does not wait for them."""
        loading.warm_app()

    def _signalled(self, signum: int) -> None:
        """SIGHUP (the terminal closed: an SSH disconnect, a killed tmux pane), SIGTERM or
        SIGINT: the reader processes end now, as ``serve`` ends a session (SIGTERM, SIGKILL a
        second later), then the app exits as ``q`` does, with status 128 + the signal; the
        reader pool's semaphores leave /dev/shm with it."""
        loading.end_app()
        self.exit(return_code=128 + signum)

    def on_unmount(self) -> None:
        """Stop what opening runs started (reader processes, an unused early read)."""
        loading.stop_app(self._early)
        if self._watch_timer is not None:
            self._watch_timer.stop()
            self._watch_timer = None

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
        elif (runs := self.runs_screen) is not None and self.screen is runs:
            runs.reload()

    def first_screen(self) -> OverviewScreen | RunsScreen:
        if len(self.paths) == 1 and (is_run(self.paths[0]) or not self.paths[0].is_dir()):
            return OverviewScreen(self.paths[0], self.settings.overrides)
        # A root's screen: the checks of its runs, the runs list and the leaderboard are not
        # imported when the app opens one run (docs/decisions/startup-imports.md).
        from inspector.app.screens.runs import RunsScreen

        if self.paths:
            self.opened_runs = RunsScreen(self.paths)
        else:
            cwd = self.settings.cwd or Path(os.getcwd())
            self.opened_runs = RunsScreen([cwd], fallback=self.settings.sample_run)
        return self.opened_runs

    # Actions.
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide Back on the first screen: there is nothing to go back to."""
        if action == "back":
            return sum(not isinstance(s, ModalScreen) for s in self.screen_stack) > 2
        screen = self.screen
        if action == "export":
            return isinstance(screen, InspectorScreen) and screen.EXPORTS
        if action == "copy":
            return isinstance(screen, InspectorScreen) and screen.COPIES
        return True

    def run_dirs(self) -> list[Path]:
        """Every run directory open in a screen (an export never goes into one)."""
        dirs = {p.resolve() for p in self.paths if p.is_dir()}
        for screen in self.screen_stack:
            if isinstance(screen, InspectorScreen):
                dirs.update(session.run.path.resolve() for session in screen.shown_sessions())
        return sorted(dirs)

    def action_export(self) -> None:
        """Ask where to write the table on screen, then write it and say where."""
        screen = self.screen
        table = screen.export_table() if isinstance(screen, InspectorScreen) else None
        if table is None:
            self.notify("Nothing to export on this screen.", severity="warning")
            return
        folder = self.settings.cwd or Path(os.getcwd())

        def written(path: Path | None) -> None:
            if path is not None:
                self.notify(f"Wrote {len(table.rows):,} rows to {path}", title="Exported",
                            markup=False, timeout=8)  # fmt: skip

        from inspector.app.screens.table_export import TableExportScreen  # lazy: on first use

        self.push_screen(TableExportScreen(table, folder, self.run_dirs()), written)

    def copy_to_clipboard(self, text: str) -> None:
        """Copy ``text``, a lone surrogate (a file name that is not UTF-8) as U+FFFD: the
        terminal's clipboard sequence is UTF-8, which cannot hold one."""
        super().copy_to_clipboard(lossy(text))

    def action_copy(self, row: bool = False) -> None:
        """Copy the task id (``Y``: the whole row, tab-separated) under the cursor."""
        screen = self.screen
        text = screen.copy_text(row) if isinstance(screen, InspectorScreen) else None
        if not text:
            self.notify("Nothing under the cursor to copy.", severity="warning")
            return
        self.copy_to_clipboard(text)
        shown = visible(text if len(text) <= 60 else text[:59] + "…", one_line=True)
        self.notify(f"Copied: {shown}", markup=False, timeout=3)

    def action_go_to_task(self) -> None:
        """``:``: the palette of the open run's task ids."""
        if self.session is None or self.session.recomputation is None:
            self.notify("Open a run first: : finds a task of the open run.", timeout=3)
            return
        self.push_screen(FindTask.palette())

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
        elif (runs := self.runs_screen) is not None and self.screen is runs:
            runs.reload()

    def action_help(self) -> None:
        # On first use: its Markdown widget imports markdown_it and pygments.
        from inspector.app.screens.help import HelpScreen, help_markdown

        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(help_markdown(self.screen)))
