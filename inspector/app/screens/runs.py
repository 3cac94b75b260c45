"""The runs under a results root, newest first, filterable by text."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, ProgressBar, Static
from textual.worker import get_current_worker

from inspector import loading
from inspector.app.messages import (
    CompareProgress,
    ComparisonFailed,
    ComparisonReady,
    RunsFound,
)
from inspector.compare import compare
from inspector.results import RunReadError, RunSummary, find_runs
from inspector.results.discover import is_run, summarize_run
from inspector.session import Session
from widgets.literal import literal_plain
from widgets.run_table import RunTable


class RunsScreen(Screen[None]):
    """Every run found under the given folders."""

    HELP = """\
# Runs
The runs under the results root, newest first, with the headline value stored in each run's
metrics.json. Type to filter; **enter** opens a run (it is then recomputed).
**m** marks a run (two at most) and **c** compares the two marked runs task by task:
series side by side, flips, state changes and paired statistics, with a warning when
their plans or benchmark params differ.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter", tooltip="Filter runs by text"),
        Binding("m", "mark", "Mark", tooltip="Mark this run for a comparison (two at most)"),
        Binding("c", "compare", "Compare", tooltip="Compare the two marked runs task by task"),
    ]

    def __init__(self, roots: list[Path], *, fallback: Path | None = None) -> None:
        super().__init__()
        self.roots = roots
        self.fallback = fallback
        self.runs: list[RunSummary] = []
        self.shown: list[RunSummary] = []
        self.marked: list[Path] = []
        """The runs marked for comparison, in the order they were marked (A, then B)."""

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
        with Horizontal(id="compare-loading"):
            yield Static(id="compare-label")
            yield ProgressBar(id="compare-progress", show_eta=False)
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

    # Marking two runs and comparing them.
    def label_of(self, path: Path) -> str:
        """``namespace/run_id`` of a run (its path under the root), never an absolute path."""
        run = next((r for r in self.runs if r.path == path), None)
        return run.relative if run is not None else path.name

    def action_mark(self) -> None:
        path = self.run_table.path
        if path is None:
            return
        if path in self.marked:
            self.marked.remove(path)
        else:
            self.marked.append(path)
            if len(self.marked) > 2:
                dropped = self.marked.pop(0)
                self.notify(f"Unmarked {self.label_of(dropped)}: two runs are compared at most.")
        self.run_table.mark(self.marked)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "compare":
            return True if len(self.marked) == 2 else None
        return True

    def action_compare(self) -> None:
        if len(self.marked) != 2:
            self.notify("Mark two runs with m first.", severity="warning")
            return
        a, b = self.marked
        self.set_class(True, "-comparing")
        self.query_one("#compare-label", Static).update("Reading and recomputing A…")
        self.query_one("#compare-progress", ProgressBar).update(total=None, progress=0)
        self._compare(a, b, self.label_of(a), self.label_of(b))

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare-runs",
          description="compare runs")  # fmt: skip
    def _compare(self, path_a: Path, path_b: Path, label_a: str, label_b: str) -> None:
        worker = get_current_worker()
        overrides = self.app.settings.overrides  # type: ignore[attr-defined]
        sessions: list[Session] = []
        for side, path, label in (("A", path_a, label_a), ("B", path_b, label_b)):

            def progress(done: int, total: int, side: str = side) -> None:
                if not worker.is_cancelled:
                    self.post_message(CompareProgress(side, done, total))

            try:
                session = loading.open_session(path, overrides, in_app=True, progress=progress)
            except loading.RunUnreadable as exc:
                self.post_message(ComparisonFailed(f"{label}: {exc}"))
                return
            if session.recomputation is None:
                self.post_message(
                    ComparisonFailed(
                        f"{label}: AgentCompass would refuse this run: {session.refusal}"
                    )
                )
                return
            sessions.append(session)
        a, b = sessions
        assert a.recomputation is not None and b.recomputation is not None
        comparison = compare(a.recomputation, b.recomputation, label_a=label_a, label_b=label_b)
        if not worker.is_cancelled:
            self.post_message(ComparisonReady(comparison, (a, b)))

    @on(CompareProgress)
    def _compare_progress(self, message: CompareProgress) -> None:
        self.query_one("#compare-label", Static).update(f"Reading and recomputing {message.side}…")
        self.query_one("#compare-progress", ProgressBar).update(
            total=max(message.total, 1), progress=message.done
        )

    @on(ComparisonReady)
    def _compared(self, message: ComparisonReady) -> None:
        from inspector.app.screens.compare import CompareScreen

        message.stop()
        self.set_class(False, "-comparing")
        self.app.push_screen(CompareScreen(message.comparison, message.sessions))

    @on(ComparisonFailed)
    def _compare_failed(self, message: ComparisonFailed) -> None:
        message.stop()
        self.set_class(False, "-comparing")
        self.notify(message.error, title="Cannot compare", severity="error", markup=False)


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
