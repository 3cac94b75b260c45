"""Go to anything: the command palette's providers, one per kind of thing.

``ctrl+p`` searches every kind at once (as harlequin's and posting's palettes do); ``:``
(:meth:`FindTask.palette`) searches task ids only, from any screen of a run, as k9s's ``:``
jumps to a resource by name. Each hit opens the thing itself: a task its task screen, a
category or hierarchy node the tasks under it, a run its overview, a screen or panel itself.
The series commands (``series: …``) are :class:`~inspector.app.commands.InspectorCommands`'.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import ClassVar

from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider

from inspector.app.navigation import OpenFlaky, OpenRun
from inspector.app.navigator import Navigator
from inspector.views.tasks import TaskFilter
from widgets.literal import literal_plain

Command = tuple[str, Callable[[], object], str]
"""(title, what choosing it does, help)."""

MOST_HITS = 200
"""A query matching more than this many task ids shows the best this many."""


class _Finder(Provider):
    """A provider of :data:`Command` s, matched fuzzily against their titles."""

    DISCOVER: ClassVar[bool] = True
    """Listed before anything is typed."""
    _commands: list[Command] = []  # noqa: RUF012  (replaced per instance in startup)

    @property
    def navigator(self) -> Navigator | None:
        app = self.app
        return app if isinstance(app, Navigator) else None

    def commands(self) -> Iterator[Command]:
        return iter(())

    async def startup(self) -> None:
        """The commands, made once per opening of the palette, not per key typed (the titles
        of a large run's tasks are slow to make: docs/decisions/app-responsiveness.md)."""
        self._commands = list(self.commands())

    async def discover(self) -> Hits:
        if not self.DISCOVER:
            return
        for title, callback, help_text in self._commands:
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        letters = set(query.casefold().replace(" ", ""))
        hits = 0
        for title, callback, help_text in self._commands:
            folded = title.casefold()
            if not all(letter in folded for letter in letters):
                continue  # cheap: the fuzzy matcher needs every letter
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
                hits += 1
                if hits >= MOST_HITS:
                    return


class FindTask(_Finder):
    """``task: <id>`` for every task of the open run: opens its task screen."""

    DISCOVER = False  # a run may hold 50,000 tasks: type to find one

    def commands(self) -> Iterator[Command]:
        app = self.navigator
        session = app.session if app is not None else None
        rec = session.recomputation if session is not None else None
        if app is None or session is None or rec is None:
            return
        overview = app.overview_screen
        series_id = (
            overview.selected_series if overview is not None else None
        ) or rec.report.summary_series.series_id
        for task in rec.tasks:
            title = f"task: {literal_plain(task.task_id)}"
            yield (
                title,
                partial(app.open_task, session, task.task_id, series_id),
                f"{literal_plain(task.category)} — open the task ({series_id})",
            )

    @classmethod
    def palette(cls) -> CommandPalette:
        """The palette of ``:``: task ids only."""
        return CommandPalette(providers=[cls], placeholder="Task id… (enter opens it)")


class FindCategory(_Finder):
    """``category: <key>`` and ``node: <path>``: the tasks under it, for the selected series."""

    def commands(self) -> Iterator[Command]:
        app = self.navigator
        session = app.session if app is not None else None
        rec = session.recomputation if session is not None else None
        if app is None or rec is None:
            return
        overview = app.overview_screen
        series_id = (
            overview.selected_series if overview is not None else None
        ) or rec.report.summary_series.series_id
        series = rec.report.series_by_id(series_id)
        if rec.root is not None:
            for node in rec.root.walk():
                leaves = frozenset(n.name for n in node.walk() if n.is_leaf)
                yield (
                    f"node: {literal_plain(node.path)}",
                    partial(
                        app.open_tasks,
                        TaskFilter(series_id, categories=leaves, category_label=node.path),
                    ),
                    f"The tasks under this hierarchy node ({len(leaves)} categories)",
                )
        for key in series.categories:
            yield (
                f"category: {literal_plain(key)}",
                partial(
                    app.open_tasks,
                    TaskFilter(series_id, categories=frozenset({key}), category_label=key),
                ),
                f"The tasks of this category ({series_id})",
            )


class FindRun(_Finder):
    """``run: <path under the root>`` for every run on the runs screen: opens it."""

    def commands(self) -> Iterator[Command]:
        app = self.navigator
        runs = app.runs_screen if app is not None else None
        if app is None or runs is None:
            return
        for row in runs.rows:
            summary = row.summary
            about = " · ".join(
                literal_plain(part)
                for part in (summary.model, summary.benchmark, summary.status)
                if part
            )
            yield (
                f"run: {literal_plain(summary.relative)}",
                partial(self._open, app, summary.path),
                about or "Open the run",
            )

    @staticmethod
    def _open(app: Navigator, path: object) -> None:
        app.go_to_runs()
        app.post_message(OpenRun(path))  # type: ignore[arg-type]


class FindScreen(_Finder):
    """``screen: …`` and ``panel: …``: every screen and overview panel of the open run, and
    the runs screen's own screens (leaderboard, tasks over the runs) under a root."""

    def commands(self) -> Iterator[Command]:
        app = self.navigator
        if app is None:
            return
        overview = app.overview_screen
        session = app.session
        if overview is not None and session is not None and session.recomputation is not None:
            rec = session.recomputation
            series_id = overview.selected_series or rec.report.summary_series.series_id
            yield ("screen: tasks", partial(app.open_tasks, TaskFilter(series_id)),
                   "Every task of the selected series")  # fmt: skip
            yield ("screen: issues", app.open_issues, "Issues by severity × phase × code")
            yield ("screen: flaky tasks", partial(self._flaky, app),
                   "Tasks whose attempts disagree; pass@j / pass^j")  # fmt: skip
            for key, name, about in PANELS:
                yield (f"panel: {name}", partial(self._panel, app, key), about)
        if app.has_runs_screen:
            yield ("screen: runs", app.go_to_runs, "Every run under the root")
            yield ("screen: leaderboard", partial(self._from_runs, app, "leaderboard"),
                   "Models × benchmarks: each model's newest finished run")  # fmt: skip
            yield ("screen: tasks over the runs", partial(self._from_runs, app, "tasks"),
                   "Every task id over the runs, flagged; / finds one")  # fmt: skip
        yield ("screen: help", partial(app.run_action, "help"), "Keys and what each screen shows")

    @staticmethod
    async def _from_runs(app: Navigator, action: str) -> None:
        """Back to the runs screen, then its ``action`` (as its key would)."""
        app.go_to_runs()
        if (runs := app.runs_screen) is not None:
            await runs.run_action(action)

    @staticmethod
    def _flaky(app: Navigator) -> None:
        session = app._open_run_session()
        if session is not None:
            app.post_message(OpenFlaky(session))

    @staticmethod
    def _panel(app: Navigator, key: str) -> None:
        app.go_to_overview()
        overview = app.overview_screen
        if overview is not None:
            overview.show_panel(key)


PANELS = (
    ("series", "series table", "The series: role, reducer@k, value, 95% CI, the five counts"),
    ("tree", "category tree", "The categories / hierarchy of the selected series"),
    ("distribution", "distribution", "The task values of the selected series"),
    ("plan", "plan", "The plan and where each part came from"),
)
"""(key, name, what it shows): the overview's panels (:meth:`OverviewScreen.show_panel`)."""

PROVIDERS = (FindTask, FindCategory, FindRun, FindScreen)
