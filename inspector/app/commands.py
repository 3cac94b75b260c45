"""The command palette: every drill-down as a command ("go: tasks with errors").

Also every number's ledger and explanation ("ledger: correct.avg@3 · unavailable",
"explain: correct.avg@3"), the what-if plans ("what-if: k=1"), the issues screen, on the
runs screen marking and comparing two runs (the screen's ``PALETTE`` titles of its keys), and
every key of the screen underneath ("key x: Export"): the palette, the footer and the help screen
read the same bindings (:func:`inspector.app.keys.screen_keys`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from inspector.app.keys import screen_keys
from inspector.app.navigator import Navigator
from inspector.engine.vocabulary import COUNTS
from inspector.views.audit import EVERY_TASK, InCount, InState, TaskSet
from inspector.views.tasks import TaskFilter

COUNT_COMMANDS: tuple[tuple[str, TaskSet, str], ...] = (
    ("go: all tasks", EVERY_TASK, "Every task of the selected series"),
    (
        "go: tasks with errors",
        InCount("error"),
        "Tasks counted in error (has_error: ERROR/FATAL issue or missing attempt)",
    ),
    (
        "go: unavailable tasks",
        InCount("unavailable"),
        "Tasks counted in unavailable (state error + state unavailable)",
    ),
    ("go: invalidated tasks", InCount("invalidated"), "Tasks invalidated by a FATAL issue"),
    ("go: evaluated tasks", InCount("evaluated"), "Tasks with a value"),
    ("go: error-state tasks", InState("error"), "Tasks in state error only"),
)
"""(title, the tasks it lists, help)."""


class InspectorCommands(Provider):
    """Commands for the open run: drill-downs, series, reload, help."""

    def commands(self) -> Iterator[tuple[str, Callable[[], object], str]]:
        app = self.app
        if not isinstance(app, Navigator):
            return
        overview = app.overview_screen
        session = app.session
        if session is not None and session.recomputation is not None and overview is not None:
            rec = session.recomputation
            series_id = overview.selected_series or rec.report.summary_series.series_id
            for title, which, help_text in COUNT_COMMANDS:
                yield (
                    title,
                    partial(app.open_tasks, TaskFilter(series_id, state=which)),
                    f"{help_text} — {series_id}",
                )
            for series in rec.report.series:
                sid = series.series_id
                yield (
                    f"series: {sid}",
                    partial(app.show_series, sid),
                    f"Select {sid} in the overview",
                )
                yield (
                    f"explain: {sid}",
                    partial(app.open_explain, sid),
                    "How the value is made: formula, weights after re-normalisation, task values",
                )
                for count in COUNTS:
                    yield (
                        f"ledger: {sid} · {count}",
                        partial(app.open_ledger, sid, count),
                        f"Which tasks stand behind {sid}'s {count} count, and why",
                    )
            for choice in overview.what_if_choices():
                yield (
                    f"what-if: {choice.label} beside {rec.plan.label}",
                    partial(app.compare_plan, session, choice.k, choice.strategy),
                    f"Derived plan, {choice.hint}; shown beside the stored plan",
                )
            yield (
                "issues: severity × phase × code, retries",
                app.open_issues,
                "Which issues pushed which tasks into which counts; retries by pattern",
            )
        if overview is not None:
            yield ("go: overview", app.go_to_overview, "Back to the run overview")
            yield ("go: load problems", app.show_problems, "The files the reader could not use")
            yield (
                "watch: stop reloading" if app.watching else "watch: reload every few seconds",
                partial(app.run_action, "toggle_watch"),
                "Follow a run that is still going (key a); only changed task folders are re-read",
            )
        if app.has_runs_screen:
            yield ("go: runs", app.go_to_runs, "Back to the list of runs")
        yield ("reload", partial(app.run_action, "reload"), "Read and recompute the run again")
        yield ("help", partial(app.run_action, "help"), "Keys and what each screen shows")
        yield from self.screen_keys()

    def screen_keys(self) -> Iterator[tuple[str, Callable[[], object], str]]:
        """Every key of the screen underneath that does something now (the ones the footer
        and the help screen list), as ``key x: Export``, and under the screen's own title
        for it where it has one (``sort: next field``)."""
        for key in screen_keys(self.screen):
            if not (key.enabled and key.description):
                continue
            if key.palette_title is not None:
                yield (key.palette_title, key.run, f"{key.tooltip} ({key.shown})")
            yield (f"key {key.shown}: {key.description}", key.run, key.tooltip)

    async def discover(self) -> Hits:
        for title, callback, help_text in self.commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback, help_text in self.commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
