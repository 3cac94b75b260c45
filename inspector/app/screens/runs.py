"""The runs under a results root, newest first: stored, then recomputed headline values.

As soon as the runs are listed, each is recomputed and checked in the background (the
shared reader processes; the report cache answers for unchanged runs) and its row gains
the recomputed headline, a check mark and its error / unavailable / invalidated counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Header, Input, Static
from textual.worker import get_current_worker

from inspector.answers.root import audit_intervals, audit_runs
from inspector.app.host import host_of
from inspector.app.messages import (
    CompareProgress,
    ComparisonFailed,
    ComparisonReady,
    RunsChecked,
    RunsFound,
    RunsIntervals,
)
from inspector.app.navigation import OpenItems, OpenLeaderboard, OpenRun, RunsUpdated
from inspector.app.screens.runs_gate import GatedRunsScreen
from inspector.app.screens.runs_parts import RUNS_HELP, compare_two, list_runs, runs_note
from inspector.resolve import Overrides
from inspector.results.discover import RunSummary
from inspector.views.run_check import RunCheck
from inspector.views.runs_view import (
    SORTS,
    RunRow,
    describe,
    haystack,
    parse_filter,
    sort_rows,
    with_checks,
    with_interval,
)
from widgets.filter_input import FilterInput
from widgets.key_footer import KeyFooter
from widgets.literal import literal
from widgets.quiet_progress import QuietProgressBar
from widgets.run_table import RunTable


class RunsScreen(GatedRunsScreen):
    """Every run found under the given folders."""

    HELP = RUNS_HELP

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter", tooltip="Filter runs: words or field:text"),
        Binding("s", "sort", "Sort", tooltip="Sort by the next field"),
        Binding("S", "reverse", "Reverse", show=False, tooltip="Reverse the sort order"),
        Binding(
            "g", "leaderboard", "Leaderboard", tooltip="The grid of models × benchmarks, recomputed"
        ),
        Binding("t", "tasks", "Tasks", tooltip="Every task over the runs, flagged"),
        Binding("m", "mark", "Mark", tooltip="Mark this run for a comparison (two at most)"),
        Binding("c", "compare", "Compare", tooltip="Compare the two marked runs task by task"),
        GatedRunsScreen.GATE_KEY,
    ]
    FOOTER_KEYS = frozenset({"mark", "compare", "gate"})  # kept in the footer at every width
    PALETTE: ClassVar[dict[str, str]] = {
        "leaderboard": "go: leaderboard",
        "tasks": "go: tasks across runs",
        "sort": "sort: next field",
        "reverse": "sort: reverse",
        "mark": "mark: this run for comparison",
        "compare": "compare: the two marked runs",
        **GatedRunsScreen.PALETTE,
    }

    def __init__(self, roots: list[Path], *, fallback: Path | None = None) -> None:
        super().__init__()
        self.roots = roots
        self.fallback = fallback
        self.rows: list[RunRow] = []
        """Every run found, newest first, with its check once it arrived."""
        self.checks: dict[str, RunCheck] = {}
        """The checks that arrived, by the run's path."""
        self.sort_by = "date"
        """One of :data:`inspector.views.runs_view.SORTS`."""
        self.reverse = False
        self.intervals_asked = False
        """The headline intervals were asked for (once every run is checked)."""
        self.intervals_done = False
        """Every headline interval asked for has arrived."""
        self.marked: list[Path] = []
        """The runs marked for comparison, in the order they were marked (A, then B)."""

    @property
    def overrides(self) -> Overrides | None:
        """The app's what-if plan for every run opened (None: the runs' own plans)."""
        host = host_of(self)
        return host.settings.overrides if host is not None else None

    @property
    def runs(self) -> list[RunSummary]:
        return [row.summary for row in self.rows]

    @property
    def shown(self) -> list[RunSummary]:
        return [row.summary for row in self.run_table.rows_shown]

    @property
    def run_table(self) -> RunTable:
        return self.query_one(RunTable)

    @property
    def filter_input(self) -> Input:
        return self.query_one("#runs-filter", Input)

    @property
    def all_checked(self) -> bool:
        """Every run listed has been recomputed and checked."""
        return all(row.check is not None for row in self.rows)

    @property
    def all_shown(self) -> bool:
        """Every run listed shows a recomputed value: checked now, or cached until then."""
        return all(row.latest is not None for row in self.rows)

    def compose(self) -> ComposeResult:
        yield Header()
        yield FilterInput(
            placeholder="filter: words, or model: benchmark: harness: status: date: check:",
            id="runs-filter",
        )
        yield Static(id="runs-note")
        with Horizontal(id="compare-loading"):
            yield Static(id="compare-label")
            yield QuietProgressBar(id="compare-progress")
        yield RunTable()
        yield Static(id="runs-status")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.sub_title = "runs · " + ", ".join(root.name or "." for root in self.roots)
        self.reload()

    def reload(self) -> None:
        self.gate_reset()
        self.run_table.loading = True
        self.checks = {}
        self.intervals_asked = self.intervals_done = False
        self._find()

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs", description="find runs")
    def _find(self) -> None:
        self.post_message(RunsFound(*list_runs(self.roots, self.overrides)))

    @on(RunsFound)
    def _found(self, message: RunsFound) -> None:
        self.run_table.loading = False
        if not message.runs and self.fallback is not None:
            self.post_message(OpenRun(self.fallback, instead=True))
            return
        self.rows = [RunRow(run, cached=message.cached.get(str(run.path))) for run in message.runs]
        self.apply_filter()
        if message.errors:
            self.notify("\n".join(message.errors), severity="error", markup=False)
        self.run_table.focus()
        self._check([(str(run.path), run.relative) for run in message.runs])

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs-check",
          description="recompute runs")  # fmt: skip
    def _check(self, runs: list[tuple[str, str]]) -> None:
        worker = get_current_worker()
        overrides = self.overrides
        # The first batch within 0.1 s, then each within twice the time, up to 1 s: each
        # batch redraws the table, and that CPU is taken from the reader processes
        # (docs/decisions/app-responsiveness.md).
        for batch in audit_runs(
            runs, overrides, cancelled=lambda: worker.is_cancelled, every=1.0, first=0.1
        ):
            if worker.is_cancelled:
                return
            self.post_message(RunsChecked(batch))

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs-intervals",
          description="headline intervals")  # fmt: skip
    def _intervals(self, runs: list[tuple[str, str]]) -> None:
        worker = get_current_worker()
        overrides = self.overrides
        try:
            for batch in audit_intervals(runs, overrides, cancelled=lambda: worker.is_cancelled):
                if worker.is_cancelled:
                    return
                self.post_message(RunsIntervals(batch))
        finally:  # the statistics are extra: a failure leaves the values without intervals
            self.post_message(RunsIntervals([], done=True))

    @on(RunsChecked)
    def _checked(self, message: RunsChecked) -> None:
        self._arrived(message.checks)
        if self.all_checked and not self.intervals_asked:
            # A run read for its check brought its interval from that read, and the report
            # cache gave those it kept with the checks it answered; the rest (answers kept
            # without their statistics) only now: they never delay a recomputed value.
            self.intervals_asked = True
            asked = [
                (path, check.headline.series_id)
                for path, check in self.checks.items()
                if check.headline is not None
                and not check.headline.is_reference
                and check.headline.interval is None
            ]
            if asked:
                self._intervals(asked)
            else:
                self.intervals_done = True

    @on(RunsIntervals)
    def _intervals_arrived(self, message: RunsIntervals) -> None:
        self.intervals_done = message.done
        self._arrived(
            [
                (path, with_interval(self.checks[path], answer))
                for path, answer in message.intervals
                if path in self.checks
            ]
        )

    def _arrived(self, checks: list[tuple[str, RunCheck]]) -> None:
        """Checks (or their intervals) arrived: the rows, the leaderboard and the table."""
        self.checks.update(checks)
        self.rows = with_checks(self.rows, self.checks)
        self.post_message(RunsUpdated(self.rows))  # the leaderboard over these runs follows
        if self.sort_by in ("check", "value"):
            self.apply_filter()  # the order depends on what arrived
        else:
            arrived = {path for path, _ in checks}
            self.run_table.update_rows(
                [row for row in self.rows if str(row.summary.path) in arrived]
            )
            self._show_note()
            self._show_status()

    def apply_filter(self) -> None:
        """Show the rows the filter keeps, in the chosen order."""
        wanted = parse_filter(self.filter_input.value)
        kept = [row for row in self.rows if wanted.matches(row, haystack(row))]
        self.run_table.show(sort_rows(kept, self.sort_by, reverse=self.reverse))
        self._show_note()
        self._show_status()

    def _show_note(self) -> None:
        note = runs_note(self.rows, len(self.run_table.rows_shown), self.sort_by, self.reverse)
        self.query_one("#runs-note", Static).update(note)

    def _show_status(self) -> None:
        row = self.run_table.current
        status = self.query_one("#runs-status", Static)
        status.update(literal(" · ".join(describe(row))) if row is not None else "")

    @on(DataTable.RowHighlighted)
    def _highlighted(self) -> None:
        self._show_status()

    @on(Input.Changed, "#runs-filter")
    def _filter_changed(self) -> None:
        self.apply_filter()
        self.run_table.move_cursor(row=0)  # the first match: what enter opens

    @on(Input.Submitted, "#runs-filter")
    def _filter_submitted(self) -> None:
        """``enter`` in the filter opens the first match (an empty filter: to the list)."""
        if self.filter_input.value.strip() and self.run_table.path is not None:
            self.post_message(OpenRun(self.run_table.path))
        self.run_table.focus()

    @on(FilterInput.Cleared, "#runs-filter")
    @on(FilterInput.Left, "#runs-filter")
    def _filter_cleared(self) -> None:
        self.run_table.focus()

    @on(RunTable.RunChosen)
    def _run_chosen(self, message: RunTable.RunChosen) -> None:
        self.post_message(OpenRun(message.path))

    def action_sort(self) -> None:
        self.sort_by = SORTS[(SORTS.index(self.sort_by) + 1) % len(SORTS)]
        self.apply_filter()

    def action_reverse(self) -> None:
        self.reverse = not self.reverse
        self.apply_filter()

    def action_leaderboard(self) -> None:
        self.post_message(OpenLeaderboard(self.rows, self.roots))

    def action_tasks(self) -> None:
        runs = [(str(row.summary.path), row.summary.relative) for row in self.rows]
        self.post_message(OpenItems(runs, ", ".join(r.name or "." for r in self.roots)))

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
        self.compare_runs(*self.marked)

    def compare_runs(self, a: Path, b: Path) -> None:
        """Read, recompute and compare runs ``a`` and ``b``; the compare screen opens when
        they are aligned (also the leaderboard's entry)."""
        self.set_class(True, "-comparing")
        self.query_one("#compare-label", Static).update("Reading and recomputing A…")
        self.query_one("#compare-progress", QuietProgressBar).update(total=None, progress=0)
        self._compare(a, b, self.label_of(a), self.label_of(b))

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare-runs",
          description="compare runs")  # fmt: skip
    def _compare(self, path_a: Path, path_b: Path, label_a: str, label_b: str) -> None:
        worker = get_current_worker()

        def progress(side: str, done: int, total: int) -> None:
            if not worker.is_cancelled:
                self.post_message(CompareProgress(side, done, total))

        answer = compare_two(((path_a, label_a), (path_b, label_b)), self.overrides, progress)
        if not worker.is_cancelled or isinstance(answer, ComparisonFailed):
            self.post_message(answer)

    @on(CompareProgress)
    def _compare_progress(self, message: CompareProgress) -> None:
        self.query_one("#compare-label", Static).update(f"Reading and recomputing {message.side}…")
        self.query_one("#compare-progress", QuietProgressBar).update(
            total=max(message.total, 1), progress=message.done
        )

    @on(ComparisonReady)
    def _compared(self, message: ComparisonReady) -> None:
        self.query_one("#compare-progress", QuietProgressBar).finish()
        self.set_class(False, "-comparing")  # the navigator opens the comparison

    @on(ComparisonFailed)
    def _compare_failed(self, message: ComparisonFailed) -> None:
        message.stop()
        self.query_one("#compare-progress", QuietProgressBar).finish()
        self.set_class(False, "-comparing")
        self.notify(message.error, title="Cannot compare", severity="error", markup=False)
