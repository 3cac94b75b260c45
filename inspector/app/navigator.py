"""The one place that moves between screens: it handles the navigation messages.

Screens never import each other; they post :mod:`inspector.app.navigation` messages, which
bubble to the app, and the handlers here push the screen asked for. The command palette and
the app's own actions go through the same handlers (``go_to_overview`` first, where a command
speaks of the open run).

Only the overview, the screen of one run, is imported at the top; every other screen module
(the runs screen of a root too: see :attr:`Navigator.runs_screen`) is imported by the code
that first makes that screen, so that every start does not pay for screens most sessions
never open (docs/decisions/startup-imports.md).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.worker import get_current_worker

from inspector.app.host import Host
from inspector.app.messages import ComparisonFailed, ComparisonReady
from inspector.app.navigation import (
    CompareRuns,
    OpenDetail,
    OpenDiagnostics,
    OpenExplain,
    OpenFlaky,
    OpenIssues,
    OpenItems,
    OpenLeaderboard,
    OpenLedger,
    OpenRun,
    OpenRunExport,
    OpenTask,
    OpenTasks,
    OpenWhatIf,
    RunsUpdated,
    TaskChosen,
    TaskPairChosen,
)
from inspector.app.screens.overview import OverviewScreen
from inspector.engine.errors import EngineError
from inspector.session import Session
from inspector.views.audit import SERIES_SCOPE, Scope
from inspector.views.tasks import PlanChoice, TaskFilter, plan_choices

if TYPE_CHECKING:  # pragma: no cover
    from inspector.app.screens.runs import RunsScreen


class Navigator(Host):
    """Handles the navigation messages of every screen (the app is one)."""

    opened_runs: RunsScreen | None = None
    """The runs screen the app opened on (a root, several paths or none), kept here so that
    finding it needs no import of its module (root work) when the app opened one run."""

    # Where the screens are.
    @property
    def overview_screen(self) -> OverviewScreen | None:
        for screen in reversed(self.screen_stack):
            if isinstance(screen, OverviewScreen):
                return screen
        return None

    @property
    def runs_screen(self) -> RunsScreen | None:
        runs = self.opened_runs
        return runs if runs is not None and runs in self.screen_stack else None

    @property
    def has_runs_screen(self) -> bool:
        return self.runs_screen is not None

    def go_to_overview(self) -> None:
        overview = self.overview_screen
        while overview is not None and self.screen is not overview:
            self.pop_screen()

    def go_to_runs(self) -> None:
        while self.has_runs_screen and self.screen is not self.runs_screen:
            self.pop_screen()

    # The palette's commands: from the overview of the open run.
    def _open_run_session(self) -> Session | None:
        self.go_to_overview()
        session = self.session
        return session if session is not None and session.recomputation is not None else None

    def open_tasks(self, task_filter: TaskFilter) -> None:
        session = self._open_run_session()
        if session is not None:
            self.post_message(OpenTasks(session, task_filter))

    def open_ledger(
        self, series_id: str, count: str = "total", scope: Scope = SERIES_SCOPE
    ) -> None:
        session = self._open_run_session()
        if session is not None and session.recomputation is not None:
            self.post_message(OpenLedger(session.recomputation, series_id, count, scope))

    def open_explain(self, series_id: str, scope: Scope = SERIES_SCOPE) -> None:
        session = self._open_run_session()
        if session is not None and session.recomputation is not None:
            self.post_message(OpenExplain(session.recomputation, series_id, scope))

    def open_issues(self) -> None:
        session = self._open_run_session()
        overview = self.overview_screen
        if session is not None and overview is not None:
            self.post_message(OpenIssues(session, overview.selected_series))

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

    # The screens asked for.
    @on(OpenRun)
    def _open_run(self, message: OpenRun) -> None:
        overview = OverviewScreen(message.path, self.settings.overrides)
        if message.instead:
            self.switch_screen(overview)
        else:
            self.push_screen(overview)

    @on(OpenTasks)
    def _open_tasks(self, message: OpenTasks) -> None:
        from inspector.app.screens.tasks import TasksScreen  # lazy: on first use

        self.push_screen(TasksScreen(message.session, message.task_filter))

    @on(OpenLedger)
    def _open_ledger(self, message: OpenLedger) -> None:
        from inspector.app.screens.ledger import LedgerScreen  # lazy: on first use

        self.push_screen(LedgerScreen(message.recomputation, message.series_id, message.count,
                                      message.scope))  # fmt: skip

    @on(OpenExplain)
    def _open_explain(self, message: OpenExplain) -> None:
        from inspector.app.screens.explain import ExplainScreen  # lazy: on first use

        self.push_screen(ExplainScreen(message.recomputation, message.series_id, message.scope))

    @on(OpenIssues)
    def _open_issues(self, message: OpenIssues) -> None:
        from inspector.app.screens.issues import IssuesScreen  # lazy: on first use

        self.push_screen(IssuesScreen(message.session, message.series_id))

    @on(OpenFlaky)
    def _open_flaky(self, message: OpenFlaky) -> None:
        from inspector.app.screens.flaky import FlakyScreen  # lazy: on first use

        self.push_screen(FlakyScreen(message.session))

    @on(OpenRunExport)
    def _open_run_export(self, message: OpenRunExport) -> None:
        from inspector.app.screens.export import ExportScreen  # lazy: on first use

        folder = self.settings.cwd or Path(os.getcwd())  # where the table exports go, too
        self.push_screen(ExportScreen(message.session, str(folder)))

    @on(OpenDetail)
    def _open_detail(self, message: OpenDetail) -> None:
        from inspector.app.screens.detail import DetailScreen  # lazy: on first use

        self.push_screen(DetailScreen(message.text, message.target))

    @on(OpenDiagnostics)
    def _open_diagnostics(self, message: OpenDiagnostics) -> None:
        from inspector.app.screens.diagnostics import DiagnosticsScreen  # lazy: on first use

        self.push_screen(
            DiagnosticsScreen(message.session, message.task_id, message.attempt, message.side)
        )

    @on(OpenTask)
    def _open_task(self, message: OpenTask) -> None:
        self.open_task(message.session, message.task_id, message.series_id, message.side)

    def open_task(
        self,
        session: Session | None,
        task_id: str,
        series_id: str | None,
        side: str | None = None,
    ) -> None:
        rec = session.recomputation if session is not None else None
        if session is None or rec is None or task_id not in rec.task_index():
            self.notify("This task cannot be opened from here.", severity="warning")
            return
        series_id = series_id or rec.report.summary_series.series_id
        from inspector.app.screens.task import TaskScreen  # lazy: on first use

        self.push_screen(TaskScreen(session, task_id, series_id, side))

    @on(TaskChosen)
    def _task_chosen(self, message: TaskChosen) -> None:
        self.open_task(self.session_for(message.recomputation), message.task_id,
                       message.series_id)  # fmt: skip

    @on(TaskPairChosen)
    def _task_pair_chosen(self, message: TaskPairChosen) -> None:
        from inspector.app.screens.compare import CompareScreen  # lazy: on first use

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

    # The runs screen and its leaderboard.
    @on(OpenLeaderboard)
    def _open_leaderboard(self, message: OpenLeaderboard) -> None:
        from inspector.app.screens.leaderboard import LeaderboardScreen  # lazy: on first use

        self.push_screen(LeaderboardScreen(message.rows, message.roots))

    @on(OpenItems)
    def _open_items(self, message: OpenItems) -> None:
        from inspector.app.screens.items import ItemsScreen  # lazy: on first use

        self.push_screen(ItemsScreen(message.runs, message.title))

    @on(RunsUpdated)
    def _runs_updated(self, message: RunsUpdated) -> None:
        from inspector.app.screens.leaderboard import LeaderboardScreen  # lazy: on first use

        for screen in self.screen_stack:
            if isinstance(screen, LeaderboardScreen):
                screen.runs_updated(message.rows)

    @on(CompareRuns)
    def _compare_runs(self, message: CompareRuns) -> None:
        runs = self.runs_screen
        if runs is not None:
            runs.compare_runs(message.a, message.b)

    # Comparisons: a what-if plan beside the stored plan, or two runs.
    @on(OpenWhatIf)
    def _open_what_if(self, message: OpenWhatIf) -> None:
        session = message.session or self.session
        rec = session.recomputation if session is not None else None
        choices = [] if rec is None else plan_choices(rec.plan.k, rec.plan.strategy)
        if session is None or rec is None or not choices:
            self.notify(
                "A k=1 run has no what-if plans: there is no shorter prefix of attempts.",
                severity="warning",
            )
            return

        def chosen(choice: PlanChoice | None) -> None:
            if choice is not None:
                self.compare_plan(session, choice.k, choice.strategy)

        from inspector.app.screens.whatif import WhatIfScreen  # lazy: on first use

        self.push_screen(WhatIfScreen(rec.plan.label, choices, rec), chosen)

    def open_what_if(self) -> None:
        """Ask for a what-if plan of the open run (from the overview or a plan comparison)."""
        self.post_message(OpenWhatIf())

    def compare_plan(self, session: Session, k: int, strategy: str) -> None:
        """Recompute ``session``'s run under a derived plan (in a worker), then compare."""
        label = "k=1" if k == 1 else f"{strategy}@{k}"
        self.notify(f"Recomputing the run as {label}…", timeout=2)
        self._derive(session, k, strategy)

    @work(thread=True, exclusive=True, exit_on_error=False, group="what-if",
          description="derived plan")  # fmt: skip
    def _derive(self, session: Session, k: int, strategy: str) -> None:
        # What-if comparisons only: views.compare and views.paired stay out of the first frame.
        from inspector.views.compare import compare_plans

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
    def _compared(self, message: ComparisonReady) -> None:
        from inspector.app.screens.compare import CompareScreen  # lazy: on first use

        self.go_to_overview()
        self.push_screen(CompareScreen(message.comparison, message.sessions))

    @on(ComparisonFailed)
    def _compare_failed(self, message: ComparisonFailed) -> None:
        self.notify(message.error, title="Cannot compare", severity="error", markup=False)
