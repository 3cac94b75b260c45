"""Two plans of one run (k=1 beside avg@3) or two runs, series by series and task by task.

The screen shows one :class:`~inspector.views.compare.Comparison`. ``sessions`` (sides A and B as
:class:`~inspector.session.Session` objects) let the app open an aligned task on either side;
a derived plan's session holds the derived recomputation over the same run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import DataTable, Footer, Header, Static

from inspector.app.host import InspectorScreen
from inspector.app.navigation import OpenWhatIf, TaskPairChosen
from inspector.app.table_export import Table
from inspector.app.titles import middle, place, plural, session_title
from inspector.engine.render import REFERENCE_MARK
from inspector.engine.report import MetricSeries
from inspector.session import Session
from inspector.views.compare import PLANS, Comparison, PairedStats, SeriesPair, TaskChange
from inspector.views.paired import paired_lines
from inspector.views.run_stats import series_stats
from inspector.views.stats import Interval, bounds_text, half_width_text
from inspector.views.tasks import natural_key
from widgets.literal import cut_middle, literal, literal_plain, one_line
from widgets.record_table import Field, RecordTable, field_columns
from widgets.virtual_table import Column, VirtualTable

SIDE_LABEL_CHARS = 28
"""A value column's header keeps this much of its side's label, cut in the middle."""
NARROW_SIDE_LABEL_CHARS = 12
"""The same below 120 columns (the end of a run folder stays: ``qwen3…000003``)."""
TINY_SIDE_LABEL_CHARS = 7
"""The same below 100 columns: still which run (``q…00003``, see :func:`_short_side`)."""
SERIES_CELLS = {120: None, 100: 24, 0: 18}
"""The series column's width from a screen width on (None: whole); below 100 columns the
value headers keep 7 characters of their sides' names (the lines above name the sides in
full), so every column of the series table, counts included, fits without scrolling
sideways."""


def _short_side(label: str, other: str, chars: int) -> str:
    """``label`` in ``chars`` characters, cut in the middle so that what tells it from
    ``other`` stays: runs whose folders differ only at the end keep the end (``q…00003``)."""
    if len(label) <= chars:
        return label
    tail = chars - 2
    if label[-tail:] != other[-tail:]:
        return f"{label[:1]}…{label[-tail:]}"
    return middle(label, chars)


def _side_name(label: str, line: int) -> str:
    """A side's name whole, on two lines of ``line`` characters at most (the second under
    the first), cut in the middle past that: a run folder's end is what tells sides apart."""
    name = middle(literal_plain(label), 2 * line)
    if len(name) <= line:
        return name
    return f"{name[:line]}\n   {name[line:]}"


def _series_cells(width: int) -> int | None:
    return next(cells for least, cells in SERIES_CELLS.items() if width >= least)


FILTERS = ("changes", "flips", "states", "all")
"""Task filters: every changed task (default: a flip, a state, a value or has_error that
differs, or a task on one side only), flips only, state changes only, every task."""

FILTER_LABELS = {
    "changes": "changed (flips, states, values)",
    "flips": "flips 0→1 / 1→0",
    "states": "state changes",
    "all": "all tasks",
}


@dataclass
class StatsReady(Message):
    """Paired statistics for one series pair were computed off the UI thread."""

    label: str
    stats: PairedStats


@dataclass
class SideIntervals(Message):
    """Each side's 95% interval: (series row, "a" / "b") → (the side's series, interval)."""

    intervals: dict[tuple[int, str], tuple[MetricSeries, Interval]]


@dataclass
class ChangesListed(Message):
    """The aligned tasks of a series pair passing a filter (picked in a worker), with the
    columns they need."""

    pair: SeriesPair
    task_filter: str
    changes: tuple[TaskChange, ...]
    columns: tuple[Column, ...]


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.6g}"


def _value(series: MetricSeries | None) -> Text:
    """The shown value of one side, marked when it is the reference value of a failed
    evaluation (as the overview marks it)."""
    if series is None:
        return Text("—")
    if series.value is None and series.reference_value is not None:
        return Text(f"{series.reference_value:.6g}{REFERENCE_MARK}", "italic yellow")
    return Text(_number(series.value))


def _counts(series: MetricSeries | None) -> str:
    if series is None:
        return "—"
    n = series.counts
    return f"{n.total}/{n.evaluated}/{n.error}/{n.unavailable}/{n.invalidated}"


CHANGE_FIELDS: tuple[Field[TaskChange], ...] = (
    Field("task", "task", lambda change: change.task_id, shrink=18, cut="middle"),
    Field("change", "change", lambda change: change.kind),
    Field("state_a", "A state", lambda change: change.state_a or "—"),
    Field("value_a", "A value", lambda change: _number(change.value_a)),
    Field("state_b", "B state", lambda change: change.state_b or "—"),
    Field("value_b", "B value", lambda change: _number(change.value_b)),
)


def _keep(change: TaskChange, task_filter: str) -> bool:
    if task_filter == "all":
        return True
    if task_filter == "flips":
        return change.flip is not None
    if task_filter == "states":
        return change.state_changed or change.a is None or change.b is None
    return change.changed or change.a is None or change.b is None


class CompareScreen(InspectorScreen):
    """Side A and side B: the series side by side, the tasks that flipped or changed state."""

    HELP = """\
# Compare
The series of both sides side by side (counts are total/evaluated/error/unavailable/
invalidated), and for the highlighted series the tasks that flipped (0→1, 1→0) or changed
state (e.g. error→evaluated). `ctrl+f` cycles the task filter. Each value has its 95% interval.
Paired statistics cover the tasks evaluated on both sides: a paired t on the per-task
differences, a seeded paired bootstrap, and McNemar's exact test where both sides are
binary with one attempt.
A derived plan is labelled *derived*, with whether it is equivalent to having run it.
**enter** on a task opens it on side A, **b** on side B; **v** swaps the sides; **w** picks
another what-if plan; **x** exports the tasks listed, **y** / **Y** copy a task id / row.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", tooltip="Return to the previous screen"),
        Binding("ctrl+f", "next_filter", "Filter", tooltip="Changed / flips / state changes / all"),
        Binding("b", "open_b", "Task in B", tooltip="Open the highlighted task on side B"),
        Binding("v", "swap", "Swap A/B", tooltip="Exchange the sides (A versus B): B becomes A"),
        Binding(
            "w", "what_if", "What-if", tooltip="Compare the stored plan with another derived plan"
        ),
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
        a, b = self._side_label("A"), self._side_label("B")
        series: DataTable[Text | str] = DataTable(id="compare-series", cursor_type="row")
        for key, label in (("series", "series"), ("a", a), ("b", b), ("delta", "B − A"),
                           ("counts_a", "A counts"), ("counts_b", "B counts")):  # fmt: skip
            series.add_column(label, key=key)
        yield series
        yield Static(id="compare-stats")
        yield RecordTable(CHANGE_FIELDS, id="compare-tasks")
        yield Footer()

    def _side_label(self, side: str) -> Text:
        """A value column's header: ``A avg@3`` / ``B k=1 (derived)`` / ``A <run>``."""
        c = self.comparison
        label, other = (c.label_a, c.label_b) if side == "A" else (c.label_b, c.label_a)
        label, other = literal_plain(label), literal_plain(other)
        width = self.app.size.width
        if width >= 120:
            return Text(f"{side} {middle(label, SIDE_LABEL_CHARS)}")
        if width >= 100:
            return Text(f"{side} {middle(label, NARROW_SIDE_LABEL_CHARS)}")
        # the line above says "(derived)"; the header keeps the plan: "B k=1"
        label = label.removesuffix(" (derived)")
        return Text(f"{side} {_short_side(label, other, TINY_SIDE_LABEL_CHARS)}")

    def on_mount(self) -> None:
        c = self.comparison
        if self.sessions is not None:
            self.title = session_title(self.sessions[0])
        self.sub_title = place(
            "compare plans" if c.kind == PLANS else "compare runs",
            f"A {c.label_a}",
            f"B {c.label_b}",
        )
        text = Text()
        line = max(24, self.app.size.width - 5)  # "A: " and the padding
        text.append("A: ", "bold")
        text.append(_side_name(c.label_a, line))
        if c.kind == PLANS and not c.a.plan.derived:
            text.append(" (the stored plan)", "dim")
        if c.derivation is not None and c.derived_side == "A":
            self._equivalence(text)
        text.append("\nB: ", "bold")
        text.append(_side_name(c.label_b, line))
        if c.kind == PLANS and not c.b.plan.derived:
            text.append(" (the stored plan)", "dim")
        if c.derivation is not None and c.derived_side == "B":
            self._equivalence(text)
        for warning in c.warnings:
            text.append("\n⚠ ", "bold yellow")
            text.append_text(literal(warning))
        for note in c.notes:
            text.append("\n• ")
            text.append_text(literal(note))
        for side, ids in (("A", c.only_a), ("B", c.only_b)):
            if ids:
                text.append(f"\n{plural(len(ids), 'task')} only in {side}")
        text.append("\ncounts: total/evaluated/error/unavailable/invalidated", "dim")
        self.header_text.update(text)
        cells = _series_cells(self.app.size.width)
        for index, pair in enumerate(c.series):
            label = one_line(pair.label)
            self.series_table.add_row(
                label if cells is None else cut_middle(label, cells),
                _value(pair.a),
                _value(pair.b),
                _number(pair.delta),
                _counts(pair.a),
                _counts(pair.b),
                key=str(index),
            )
        self.series_table.move_cursor(row=c.series.index(self.pair))
        self.show_tasks()
        self._side_intervals()
        self.series_table.focus()

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
        """The value, then its interval: ``[low, high]`` from 120 columns, ``±half`` from
        100, none below (the series table keeps every column without scrolling)."""
        width = self.app.size.width
        if width < 100:
            return
        shown = bounds_text if width >= 120 else half_width_text
        for (index, key), (series, interval) in message.intervals.items():
            cell = _value(series)
            cell.append(f" {shown(interval)}", "dim")
            self.series_table.update_cell(str(index), key, cell, update_width=True)

    def _equivalence(self, text: Text) -> None:
        derivation = self.comparison.derivation
        assert derivation is not None
        equivalent = derivation.equivalent
        text.append(
            " · equivalent to having run it: " + ("yes" if equivalent else "no"),
            "bold" if equivalent else "bold yellow",
        )

    def show_tasks(self) -> None:
        """List the aligned tasks of the current series pair that pass the filter (picked in
        a worker: a comparison aligns every task of both sides)."""
        self.task_table.loading = True
        self._list_changes(self.pair, self.task_filter)

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare-tasks",
          description="aligned tasks")  # fmt: skip
    def _list_changes(self, pair: SeriesPair, task_filter: str) -> None:
        kept = (ch for ch in self.comparison.tasks(pair) if _keep(ch, task_filter))
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
        text.append(f" · {plural(len(self.shown), 'task')} · {FILTER_LABELS[self.task_filter]}")
        stats = self._stats.get(self.pair.label)
        if self.pair.a is None or self.pair.b is None:
            text.append(" · this series exists on one side only")
        elif stats is None:
            text.append(" · computing paired statistics…", "dim")
            self.compute_stats(self.pair)
        else:
            for line in paired_lines(stats):
                text.append("\n" + line)
        self.stats_line.update(text)

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
            self.show_tasks()

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
        self._choose(self.shown[row], "b")

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
        self.task_filter = FILTERS[(FILTERS.index(self.task_filter) + 1) % len(FILTERS)]

    def action_back(self) -> None:
        self.app.pop_screen()
