"""Two plans of one run (k=1 beside avg@3) or two runs, series by series and task by task.

One :class:`~inspector.views.compare.Comparison`; ``sessions`` (sides A and B) let the app
open an aligned task on either side (a derived plan's holds the derived recomputation).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widgets import DataTable, Header, Static

from inspector.app.navigation import OpenWhatIf, TaskPairChosen
from inspector.app.screens.compare_parts import PART, PartsScreen
from inspector.app.screens.compare_text import (
    CHANGE_FIELDS,
    FILTER_LABELS,
    FILTERS,
    MOVED,
    SUBTITLE_SIDE_CHARS,
    ChangesListed,
    SideIntervals,
    StatsReady,
    counts_text,
    delta_text,
    kept_by,
    series_cells,
    short_side,
    side_label,
    sides_text,
    value_cell,
)
from inspector.app.table_export import Table
from inspector.app.titles import place, plural, session_title
from inspector.engine.report import MetricSeries
from inspector.session import Session
from inspector.views.changes import moved_groups, moved_summary
from inspector.views.compare import PLANS, Comparison, PairedStats, SeriesPair, TaskChange
from inspector.views.paired import paired_lines
from inspector.views.run_stats import series_stats
from inspector.views.stats import Interval, bounds_text, compact_bounds_text
from inspector.views.tasks import natural_key
from inspector.views.visible import visible
from widgets._table import ListTable
from widgets.key_footer import KeyFooter
from widgets.literal import cut_middle, one_line
from widgets.record_table import RecordTable, field_columns
from widgets.virtual_table import VirtualTable


class CompareScreen(PartsScreen):
    """Side A and side B: the series side by side, the tasks that flipped or changed state."""

    HELP = """\
# Compare
The series of both sides side by side (counts are total/evaluated/error/unavailable/
invalidated), and for the highlighted series the tasks that flipped (0→1, 1→0) or changed
state (e.g. error→evaluated). `ctrl+f` cycles the task filter. Each value has its 95% interval.
The paired analysis is of the series delta B − A: its interval combines each side's own
interval on the tasks compared (MOVER, with the sides' correlation), its p-value inverts it
(never disagreeing); neither with fewer than two tasks on both sides or a side without an
interval; McNemar's exact test where both sides are binary with one attempt. Under 30 rows
the minimum detectable effect's line is left out (`inspector diff` prints it). Warnings above
the numbers say where the sides are not alike.
A derived plan is labelled *derived*, with whether it is equivalent to having run it.
**D** lists the tasks that moved (flips, state changes, values that differ at the precision
AgentCompass reports), by kind. **W**: where B − A came from, a waterfall of parts summing to
it exactly (Shapley over: only in A, only in B, states, values up / down, weights); **enter**
on a part lists its tasks. **enter** on a task opens it on side A (on B when only B has it),
**b** on side B (a task only in A is said to be so); **v** swaps the sides; **w** picks
another what-if plan; **x** exports the tasks listed, **y** / **Y** copy a task id / row.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", tooltip="Return to the previous screen"),
        Binding("ctrl+f", "next_filter", "Filter", tooltip="Changed / flips / state changes / all"),
        Binding(
            "D",
            "moved",
            "Moved",
            tooltip="List exactly the tasks that moved (pass→fail, fail→pass, state changes), "
            "grouped by kind",
        ),
        Binding(
            "W",
            "waterfall",
            "Where from",
            tooltip="Where B − A came from: its parts "
            "(Shapley over groups); enter on a part lists its tasks",
        ),
        Binding("b", "open_b", "Task in B", tooltip="Open the highlighted task on side B"),
        Binding("v", "swap", "Swap A/B", tooltip="Exchange the sides (A versus B): B becomes A"),
        Binding("w", "what_if", "What-if", tooltip="Compare the stored plan with a derived one"),
    ]

    EXPORTS = COPIES = True

    task_filter: reactive[str] = reactive("changes", init=False)
    """Which aligned tasks the task table lists (one of FILTERS)."""

    def __init__(
        self, comparison: Comparison, sessions: tuple[Session, Session] | None = None
    ) -> None:
        super().__init__()
        self.comparison = comparison
        self.sessions = sessions
        """Sides A and B, for opening a task (None: tasks cannot be opened from here)."""
        self.pair: SeriesPair = self._default_pair()
        self.shown: tuple[TaskChange, ...] = ()
        self.keep_task: TaskChange | None = None
        """Put the task cursor (and the focus) on this task once the tasks are listed."""
        self._stats: dict[str, PairedStats] = {}
        self.counts_folded = False
        """The counts columns did not fit the screen: the statistics lines give them."""

    def shown_sessions(self) -> tuple[Session, ...]:
        return self.sessions or ()

    def _default_pair(self) -> SeriesPair:
        return self.comparison.opening_pair()

    @property
    def header_text(self) -> Static:
        return self.query_one("#compare-header", Static)

    @property
    def series_table(self) -> DataTable[Text | str]:
        return self.query_one("#compare-series", DataTable)

    @property
    def stats_line(self) -> Static:
        return self.query_one("#compare-stats", Static)

    @property
    def task_table(self) -> RecordTable[TaskChange]:
        return self.query_one("#compare-tasks", RecordTable)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="compare-header")
        width = self.app.size.width
        a, b = side_label(self.comparison, "A", width), side_label(self.comparison, "B", width)
        series: DataTable[Text | str] = ListTable(id="compare-series", cursor_type="row")
        for key, label in (("series", "series"), ("a", a), ("b", b), ("delta", "B − A"),
                           ("counts_a", "A counts"), ("counts_b", "B counts")):  # fmt: skip
            series.add_column(label, key=key)
        yield series
        yield Static(id="compare-stats")
        yield self.waterfall()
        yield RecordTable(CHANGE_FIELDS, id="compare-tasks")
        yield KeyFooter()

    def on_mount(self) -> None:
        c = self.comparison
        if self.sessions is not None:
            self.title = session_title(self.sessions[0])
        self.sub_title = place(  # each side's name keeps where it differs from the other's
            "compare plans" if c.kind == PLANS else "compare runs",
            f"A {short_side(c.label_a, c.label_b, SUBTITLE_SIDE_CHARS)}",
            f"B {short_side(c.label_b, c.label_a, SUBTITLE_SIDE_CHARS)}",
        )
        self.header_text.update(sides_text(c, self.app.size.width, self.app.size.height < 30))
        cells = series_cells(self.app.size.width)
        for index, pair in enumerate(c.series):
            label = one_line(pair.label)
            self.series_table.add_row(
                label if cells is None else cut_middle(label, cells),
                value_cell(pair.a),
                value_cell(pair.b),
                delta_text(pair.delta),
                counts_text(pair.a),
                counts_text(pair.b),
                key=str(index),
            )
        self.series_table.move_cursor(row=c.series.index(self.pair))
        self.show_tasks()
        self._side_intervals()
        self.series_table.focus()
        self.call_after_refresh(self._fold_counts)

    def _fold_counts(self) -> None:
        """No number or header cut: where the series table is wider than the
        screen, its counts columns fold into the statistics lines."""
        table = self.series_table
        if self.counts_folded or table.virtual_size.width <= table.scrollable_content_region.width:
            return
        table.remove_column("counts_a")
        table.remove_column("counts_b")
        self.counts_folded = True
        self._show_stats()

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare-intervals",
          description="intervals")  # fmt: skip
    def _side_intervals(self) -> None:
        c = self.comparison
        intervals: dict[tuple[int, str], tuple[MetricSeries, Interval]] = {}
        for index, pair in enumerate(c.series):
            for key, rec, series in (("a", c.a, pair.a), ("b", c.b, pair.b)):
                if series is not None:
                    intervals[(index, key)] = (series, series_stats(rec, series).own.interval)
        self.post_message(SideIntervals(intervals))

    @on(SideIntervals)
    def _show_side_intervals(self, message: SideIntervals) -> None:
        """The value, then its interval: ``[low, high]`` from 120 columns, ``.27–.83`` (the
        bounds rounded outwards) from 100, none below (the series table keeps every column
        without scrolling)."""
        width, table = self.app.size.width, self.series_table
        if width < 100:
            return
        room = table.scrollable_content_region.width - table.virtual_size.width
        formats = (bounds_text, compact_bounds_text) if width >= 120 else (compact_bounds_text,)
        for shown in formats:  # the longest that keeps every column on screen, else none
            cells = {at: value_cell(s) + Text(f" {shown(i)}", "dim")
                     for at, (s, i) in message.intervals.items()}  # fmt: skip
            grow = sum(
                max(0, max((c.cell_len for (_, k), c in cells.items() if k == key), default=0)
                    - table.columns[key].content_width)
                for key in ("a", "b")
            )  # fmt: skip
            if grow <= room:
                for (index, key), cell in cells.items():
                    table.update_cell(str(index), key, cell, update_width=True)
                return

    def show_tasks(self) -> None:
        """List the aligned tasks of the current series pair that pass the filter (picked in
        a worker: a comparison aligns every task of both sides)."""
        self.task_table.loading = True
        self._list_changes(self.pair, self.task_filter)

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare-tasks",
          description="aligned tasks")  # fmt: skip
    def _list_changes(self, pair: SeriesPair, task_filter: str) -> None:
        if task_filter == PART:
            changes = self.part_tasks(pair)
        elif task_filter == MOVED:
            groups = moved_groups(self.comparison.changes(pair))
            changes = tuple(ch for _, group in groups
                            for ch in sorted(group, key=lambda ch: natural_key(ch.task_id)))  # fmt: skip
        else:
            kept = (ch for ch in self.comparison.tasks(pair) if kept_by(ch, task_filter))
            changes = tuple(sorted(kept, key=lambda ch: natural_key(ch.task_id)))  # 5 before 13
        columns = field_columns(CHANGE_FIELDS, changes)
        self.post_message(ChangesListed(pair, task_filter, changes, columns))

    @on(ChangesListed)
    def _changes_listed(self, message: ChangesListed) -> None:
        if message.pair is not self.pair or message.task_filter != self.task_filter:
            return  # an earlier pair or filter, still on its way
        self.shown = message.changes
        self.task_table.loading = False
        self.task_table.show(self.shown, columns=message.columns)
        keep, self.keep_task = self.keep_task, None
        if keep is not None:
            rows = [i for i, change in enumerate(self.shown) if change.task_id == keep.task_id]
            self.task_table.move_cursor(row=rows[0] if rows else 0)
            self.task_table.focus()
        self._show_stats()
        self.refresh_bindings()

    def _show_stats(self) -> None:
        text = Text()
        text.append_text(one_line(self.pair.label))
        if self.task_filter == MOVED:
            text.append(f" · {moved_summary(self.shown)} (enter: task on side A, b: on side B)")
        elif self.task_filter == PART:
            text.append(f" · {plural(len(self.shown), 'task')} · {self.part[0]}")
        else:
            text.append(f" · {plural(len(self.shown), 'task')} · {FILTER_LABELS[self.task_filter]}")
        stats = self._stats.get(self.pair.label)
        if self.counts_folded:
            text.append(f"\ncounts A {counts_text(self.pair.a)} · B {counts_text(self.pair.b)}")
        if self.pair.a is None or self.pair.b is None:
            text.append(" · this series exists on one side only")
        elif stats is None:
            text.append(" · computing paired statistics…", "dim")
            self.compute_stats(self.pair)
        else:
            for line in paired_lines(stats, resolution=not self.has_class("-short")):
                text.append("\n" + line)
        self.stats_line.update(text)

    def list_part(self) -> None:
        """List the tasks of the waterfall's chosen part (:attr:`part`)."""
        if self.task_filter == PART:
            self.show_tasks()
        self.task_filter = PART

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare-stats",
          description="paired statistics")  # fmt: skip
    def compute_stats(self, pair: SeriesPair) -> None:
        self.post_message(StatsReady(pair.label, self.comparison.stats(pair)))

    @on(StatsReady)
    def _stats_ready(self, message: StatsReady) -> None:
        self._stats[message.label] = message.stats
        if message.label == self.pair.label:
            self._show_stats()

    @on(DataTable.RowHighlighted, "#compare-series")
    def _series_highlighted(self, event: DataTable.RowHighlighted) -> None:
        pair = self.comparison.series[int(event.row_key.value or 0)]
        if pair is not self.pair:
            self.pair = pair
            if self.task_filter == PART:
                self.set_reactive(CompareScreen.task_filter, "changes")
            self.show_tasks()
            self.show_waterfall()

    @on(VirtualTable.Selected, "#compare-tasks")
    def _task_selected(self, event: VirtualTable.Selected) -> None:
        self._choose(self.shown[event.row], "a")

    def _choose(self, change: TaskChange, side: str) -> None:
        pair = self.pair
        if (change.a if side == "a" else change.b) is None:
            side = "b" if side == "a" else "a"  # the task exists on the other side only
        self.post_message(
            TaskPairChosen(
                change.task_id,
                pair.a.series_id if pair.a else None,
                pair.b.series_id if pair.b else None,
                side,
            )
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "what_if":
            return self.comparison.kind == PLANS
        if action == "open_b":
            return True if self.shown else None
        return True

    def action_open_b(self) -> None:
        table = self.task_table
        if not self.shown:
            return
        row = min(table.cursor_row, len(self.shown) - 1)
        change = self.shown[row]
        if change.b is None:  # say so rather than open side A in B's place
            self.notify(
                f"{visible(change.task_id, one_line=True)} is only in A "
                f"({visible(self.comparison.label_a, one_line=True)}): B has no such task; "
                "enter opens it in A",
                markup=False,
            )
            return
        self._choose(change, "b")

    def export_table(self) -> Table:
        """The aligned tasks listed for the series pair (x)."""
        headers, rows = self.task_table.texts()
        headers = tuple(
            h.replace("A ", f"A ({self.comparison.label_a}) ", 1).replace(
                "B ", f"B ({self.comparison.label_b}) ", 1
            )
            for h in headers
        )
        return Table(f"compare-{self.pair.label}", headers, rows)

    def copy_text(self, row: bool = False) -> str | None:
        return self.task_table.copy_text(row, lambda change: change.task_id)

    def action_swap(self) -> None:
        """Show the same comparison with B as side A (the cursor stays on its series)."""
        swapped = CompareScreen(
            self.comparison.swapped(),
            None if self.sessions is None else (self.sessions[1], self.sessions[0]),
        )
        swapped.pair = next(
            (p for p in swapped.comparison.series if (p.a, p.b) == (self.pair.b, self.pair.a)),
            swapped.pair,
        )
        swapped.set_reactive(CompareScreen.task_filter, self.task_filter)
        if self.focused is self.task_table and self.shown:
            swapped.keep_task = self.shown[min(self.task_table.cursor_row, len(self.shown) - 1)]
        self.app.switch_screen(swapped)

    def action_what_if(self) -> None:
        self.post_message(OpenWhatIf())

    def watch_task_filter(self) -> None:
        self.show_tasks()

    def action_next_filter(self) -> None:
        at = FILTERS.index(self.task_filter) if self.task_filter in FILTERS else -1
        self.task_filter = FILTERS[(at + 1) % len(FILTERS)]

    def action_moved(self) -> None:
        """The discordant pairs: exactly the tasks that moved, grouped by kind."""
        self.task_filter = MOVED

    def action_back(self) -> None:
        self.app.pop_screen()
