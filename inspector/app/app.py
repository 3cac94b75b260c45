"""InspectorApp: opens a run or a results root and drills down from there."""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from inspector.app.commands import InspectorCommands
from inspector.app.model import TaskFilter
from inspector.app.screens.help import HelpScreen, help_markdown
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.runs import RunsScreen
from inspector.app.settings import Settings
from inspector.results.discover import is_run
from inspector.session import Session


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

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", tooltip="Leave the inspector"),
        Binding("escape", "back", "Back", tooltip="Up one level"),
        Binding("r", "reload", "Reload", tooltip="Read and recompute the run again"),
        Binding("question_mark,f1", "help", "Help", tooltip="Keys and what this screen shows"),
    ]

    def __init__(
        self, paths: list[Path] | None = None, *, settings: Settings | None = None
    ) -> None:
        super().__init__()
        self.settings = settings or Settings()
        self.paths = [Path(p) for p in paths or []]
        self.session: Session | None = None
        """The session of the run open in the overview."""

    def on_mount(self) -> None:
        self.push_screen(self.first_screen())

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

    def session_changed(self, session: Session) -> None:
        """A reload finished: let the screens above the overview follow."""
        for screen in self.screen_stack:
            refresh = getattr(screen, "refresh_session", None)
            if refresh is not None:
                refresh(session)

    # Actions.
    def action_back(self) -> None:
        if len(self.screen_stack) > 2:
            self.pop_screen()

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
