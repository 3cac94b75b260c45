"""Where the overview leads, for what the user points at: the tasks behind a count or a
node, the count ledger, "explain this number", the issues, the flaky tasks, a what-if plan
and the export. :class:`OverviewActions` is the overview screen's base; the screen
(:mod:`inspector.app.screens.overview`) composes the widgets read here and declares the keys.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from inspector.app.host import InspectorScreen
from inspector.app.navigation import (
    OpenExplain,
    OpenFlaky,
    OpenIssues,
    OpenLedger,
    OpenRunExport,
    OpenTasks,
    OpenWhatIf,
)
from inspector.engine.recomputation import Recomputation
from inspector.session import Session
from inspector.views.audit import SERIES_SCOPE, Scope
from inspector.views.tasks import PlanChoice, TaskFilter, plan_choices
from widgets.category_tree import CategoryTree
from widgets.problems_table import ProblemsTable
from widgets.series_table import SeriesTable

PANEL_KEYS: list[BindingType] = [
    Binding(
        "1",
        "show_panel('series')",
        "Panels",
        key_display="1-4",
        tooltip="1 series table · 2 category tree · 3 distribution · 4 plan",
    ),
    Binding("2", "show_panel('tree')", "Tree", show=False, tooltip="The category tree"),
    Binding(
        "3",
        "show_panel('distribution')",
        "Distribution",
        show=False,
        tooltip="The distribution of task values",
    ),
    Binding("4", "show_panel('plan')", "Plan", show=False, tooltip="The plan and its sources"),
]
"""The overview's panel keys, below 100 columns (wider, every panel is on screen)."""

PANEL_TABS = (("1", "series"), ("2", "tree"), ("3", "distribution"), ("4", "plan"))


def panel_tabs(current: str) -> Text:
    """The line naming the panels and their keys, the one shown (below 100 columns) marked."""
    text = Text()
    for key, panel in PANEL_TABS:
        text.append(f" {key} {panel} ", "reverse bold" if panel == current else "")
        text.append(" ")
    return text


class OverviewActions(InspectorScreen):
    """The overview's actions: each posts the navigation message of the screen it opens."""

    session: Session | None
    """The open run's session (None while it is read)."""
    selected_series: str | None
    """The series the category tree and the distribution show."""

    # The widgets the overview composes.
    @property
    def series_table(self) -> SeriesTable:
        return self.query_one(SeriesTable)

    @property
    def category_tree(self) -> CategoryTree:
        return self.query_one(CategoryTree)

    @property
    def problems_table(self) -> ProblemsTable:
        return self.query_one(ProblemsTable)

    def ready(self, what: str) -> Session | None:
        """The session, once its run is read and recomputed; else None, having said why
        ``what`` cannot be done yet (the run is still being read) or at all (refused)."""
        if self.session is None:
            self.notify(f"The run is still being read: {what} once it is loaded.", timeout=3)
            return None
        if self.session.recomputation is None:
            self.notify(f"The run has no recomputation: no {what}.", severity="warning")
            return None
        return self.session

    def open_tasks(self, task_filter: TaskFilter) -> None:
        """Push the tasks screen filtered by ``task_filter``."""
        if session := self.ready("task list"):
            self.post_message(OpenTasks(session, task_filter))

    # The count ledger, explain, issues and what-if plans.
    def pointed_at(self) -> tuple[str, Scope, str]:
        """The series, scope and count the user points at.

        With the category tree focused: its node (a hierarchy node or a category) and count
        ``total``; otherwise the whole series and the count under the series table's cursor.
        """
        series_id = self.selected_series or ""
        if self.focused is self.category_tree:
            data = self.category_tree.node_data
            if data is not None and data.path is not None:
                return series_id, Scope(node=data.path), "total"
            if data is not None and data.category is not None:
                return series_id, Scope(category=data.category), "total"
            return series_id, SERIES_SCOPE, "total"
        return series_id, SERIES_SCOPE, self.series_table.count or "total"

    @property
    def recomputation(self) -> Recomputation | None:
        """The open run's recomputation, or None while loading or when refused."""
        return self.session.recomputation if self.session else None

    def open_ledger(
        self, series_id: str | None = None, count: str = "total", scope: Scope = SERIES_SCOPE
    ) -> None:
        """Push the count ledger: the tasks behind one count, with reasons."""
        if self.ready("count ledger") and (rec := self.recomputation):
            self.post_message(OpenLedger(rec, series_id or self.selected_series, count, scope))

    def open_explain(self, series_id: str | None = None, scope: Scope = SERIES_SCOPE) -> None:
        """Push "explain this number" for a series value, a category or a hierarchy node."""
        if self.ready("explanation") and (rec := self.recomputation):
            self.post_message(OpenExplain(rec, series_id or self.selected_series, scope))

    def open_issues(self) -> None:
        """Push the issues screen for the selected series."""
        if session := self.ready("issues screen"):
            self.post_message(OpenIssues(session, self.selected_series))

    def what_if_choices(self) -> list[PlanChoice]:
        rec = self.recomputation
        return [] if rec is None else plan_choices(rec.plan.k, rec.plan.strategy)

    def open_what_if(self) -> None:
        """Ask for a what-if plan, then compare it with the stored plan."""
        self.post_message(OpenWhatIf(self.session))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the keys that cannot do anything for this run (k=1: no what-if plans), and
        the panel keys where every panel is on screen (100 columns and more)."""
        if action == "what_if":
            return bool(self.what_if_choices())
        if action == "show_panel":
            return self.size.width < 100
        return True

    def on_resize(self) -> None:
        """Below 100 columns (``-tiny``) one panel at a time, chosen by the panel keys."""
        self.set_class(self.size.width < 100, "-tiny")
        self.refresh_bindings()

    def action_show_panel(self, panel: str) -> None:
        self.show_panel(panel)

    def show_panel(self, panel: str) -> None:
        """Show and focus one panel (``1``-``4``): below 100 columns the distribution and
        the plan take the tree's place until ``2`` (or ``1``) brings it back."""
        self.set_class(panel in ("distribution", "plan"), "-right")
        self.query_one("#panel-tabs", Static).update(panel_tabs(panel))
        if panel == "series":
            self.series_table.focus()
        elif panel == "tree":
            self.category_tree.focus()
        else:
            scroll = self.query_one("#overview-right", VerticalScroll)
            scroll.focus()
            target = self.query_one("#plan-title" if panel == "plan" else "Distribution")
            self.call_after_refresh(scroll.scroll_to_widget, target, animate=False, top=True)

    def action_ledger(self) -> None:
        if not self.ready("count ledger"):
            return
        series_id, scope, count = self.pointed_at()
        if series_id:
            self.open_ledger(series_id, count, scope)

    def action_explain(self) -> None:
        if not self.ready("explanation"):
            return
        series_id, scope, _ = self.pointed_at()
        if series_id:
            self.open_explain(series_id, scope)

    def action_what_if(self) -> None:
        self.open_what_if()

    def action_issues(self) -> None:
        self.open_issues()

    def action_flaky(self) -> None:
        if session := self.ready("flaky tasks"):
            self.post_message(OpenFlaky(session))

    def action_tasks(self) -> None:
        if not self.ready("task list"):
            return
        if self.selected_series:
            self.open_tasks(TaskFilter(self.selected_series))

    def action_export(self) -> None:
        """Ask for a folder and a format; the export is written off the UI thread."""
        if session := self.ready("export"):
            self.post_message(OpenRunExport(session))

    def action_focus_problems(self) -> None:
        if self.session and self.session.problems:
            self.problems_table.focus()
            self.problems_table.scroll_visible()
        elif self.session is None:
            self.notify("The run is still being read.", timeout=3)
        else:
            self.notify("No load problems: the reader used every file of the run.", timeout=4)
