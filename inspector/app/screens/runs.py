"""The runs under a results root, newest first, filterable by text."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Static

from inspector.app.messages import RunsFound
from inspector.results import RunReadError, RunSummary, find_runs
from inspector.results.discover import is_run, summarize_run
from widgets.literal import literal_plain
from widgets.run_table import RunTable


class RunsScreen(Screen[None]):
    """Every run found under the given folders."""

    HELP = """\
# Runs
The runs under the results root, newest first, with the headline value stored in each run's
metrics.json. Type to filter; **enter** opens a run (it is then recomputed).
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter", tooltip="Filter runs by text"),
    ]

    def __init__(self, roots: list[Path], *, fallback: Path | None = None) -> None:
        super().__init__()
        self.roots = roots
        self.fallback = fallback
        self.runs: list[RunSummary] = []
        self.shown: list[RunSummary] = []

    @property
    def run_table(self) -> RunTable:
        return self.query_one(RunTable)

    @property
    def filter_input(self) -> Input:
        return self.query_one("#runs-filter", Input)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(
            placeholder="filter runs: namespace, run id, model, benchmark, status…",
            id="runs-filter",
        )
        yield Static(id="runs-note")
        yield RunTable()
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "runs · " + ", ".join(root.name or "." for root in self.roots)
        self.reload()

    def reload(self) -> None:
        self.run_table.loading = True
        self._find()

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs", description="find runs")
    def _find(self) -> None:
        runs: list[RunSummary] = []
        errors: list[str] = []
        for root in self.roots:
            try:
                if is_run(root):
                    runs.append(summarize_run(root, root.name))
                else:
                    runs.extend(find_runs(root))
            except RunReadError as exc:
                errors.append(str(exc))
        self.post_message(RunsFound(runs, errors))

    @on(RunsFound)
    def _found(self, message: RunsFound) -> None:
        self.run_table.loading = False
        if not message.runs and self.fallback is not None:
            from inspector.app.screens.overview import OverviewScreen

            self.app.switch_screen(OverviewScreen(self.fallback, self.app.settings.overrides))  # type: ignore[attr-defined]
            return
        self.runs = message.runs
        self.apply_filter()
        if message.errors:
            self.notify("\n".join(message.errors), severity="error", markup=False)
        self.run_table.focus()

    def apply_filter(self) -> None:
        needle = self.filter_input.value.strip().casefold()
        self.shown = [run for run in self.runs if not needle or needle in _haystack(run)]
        self.run_table.show(self.shown)
        note = Text(f"{len(self.shown)} of {len(self.runs)} runs", "bold")
        note.append(
            " · headline values as stored in metrics.json; opening a run recomputes it", "dim"
        )
        if not self.runs:
            note = Text(
                "No runs found here (a run has run_info.json or a details/ folder).", "yellow"
            )
        self.query_one("#runs-note", Static).update(note)

    @on(Input.Changed, "#runs-filter")
    def _filter_changed(self) -> None:
        self.apply_filter()

    @on(Input.Submitted, "#runs-filter")
    def _filter_submitted(self) -> None:
        self.run_table.focus()

    @on(RunTable.RunChosen)
    def _run_chosen(self, message: RunTable.RunChosen) -> None:
        from inspector.app.screens.overview import OverviewScreen

        self.app.push_screen(OverviewScreen(message.path, self.app.settings.overrides))  # type: ignore[attr-defined]

    def action_focus_filter(self) -> None:
        self.filter_input.focus()


def _haystack(run: RunSummary) -> str:
    parts = (
        run.relative,
        run.namespace,
        run.run_id,
        run.model,
        run.benchmark,
        run.harness,
        run.status,
        run.strategy,
    )
    return " ".join(literal_plain(p) for p in parts if p).casefold()
