"""RunTable: the runs under a results root, with stored and recomputed headline values.

Columns have priorities: when the table is narrow the least needed fold first (harness,
start time, plan, benchmark, model, status); the run, its headline value, the check mark
and the counts never fold. Names are shortened in the middle, so the end of a folder name
(what tells two runs of one namespace apart) stays on screen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.events import Resize
from textual.message import Message
from textual.widgets import DataTable

from inspector.views.run_check import DIFFERS, OK, UNSTORED, UNUSABLE
from inspector.views.runs_view import RunRow
from inspector.views.stats import compact_bounds
from widgets._table import ListTable, refresh_header
from widgets.literal import cut_apart, literal, one_line_middle

PENDING_TEXT = Text("…", "dim")


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    width: int
    """The least width; flexible columns grow to their content."""
    fold: int = 0
    """0: never folds; otherwise the larger, the sooner it folds."""
    flex: int = 0
    """Share of the spare width (0: fixed)."""
    right: bool = False


COLUMNS = (
    Column("mark", " ", 1),
    Column("run", "Run", 18, flex=4),
    Column("status", "Status", 11, fold=1),
    Column("model", "Model", 8, fold=2, flex=2),
    Column("benchmark", "Benchmark", 9, fold=3, flex=2),
    Column("plan", "Plan", 6, fold=4),
    Column("started", "Started", 10, fold=5),
    Column("harness", "Harness", 8, fold=6, flex=1),
    Column("tasks", "Tasks", 5, right=True),
    Column("error", "Err", 3, right=True),
    Column("unavailable", "Unav", 4, right=True),
    Column("invalidated", "Inv", 3, right=True),
    Column("headline", "Headline", 14, right=True),  # 0.5469 .25–.83
    Column("check", "✓", 1),
)
GATE = Column("gate", "Gate", 4)
"""Shown after ``G`` (:attr:`RunTable.gating`): the publish gate's result."""
CHECKED = frozenset(("headline", "check", "tasks", "error", "unavailable", "invalidated", "gate"))
"""The columns that change when a run's check arrives."""
PADDING = 2  # DataTable's cell padding, both sides
RUN_PREFERRED = 36
"""The run column's width before the least needed columns are kept."""
YIELDING = 4
"""Columns that fold at least this soon give way to a wider run column."""
SCROLLBAR = 2


def fit(columns: Sequence[Column], width: int, wanted: dict[str, int]) -> list[tuple[Column, int]]:
    """The columns that fit in ``width`` cells and their widths.

    Columns fold in priority order until the least widths fit (a column that folds takes
    every column that folds sooner with it). Then the run column may take the place of the
    least needed ones (:data:`YIELDING`) to reach :data:`RUN_PREFERRED` cells, and the spare
    width goes to the flexible columns, up to what their content (``wanted``) needs.
    """
    shown = list(columns)
    folding = sorted((c for c in columns if c.fold), key=lambda c: -c.fold)

    def spare() -> int:
        return width - sum(c.width + PADDING for c in shown)

    while spare() < 0 and folding:
        shown.remove(folding.pop(0))
    run = next(c for c in shown if c.key == "run")
    need = min(wanted.get("run", 0), RUN_PREFERRED) - run.width
    while need > spare() and folding and folding[0].fold >= YIELDING:
        shown.remove(folding.pop(0))
    widths = {c.key: c.width for c in shown}
    left = spare()
    while left > 0:
        growing = [c for c in shown if c.flex and widths[c.key] < wanted.get(c.key, 0)]
        if not growing:
            break
        total = sum(c.flex for c in growing)
        given = 0
        for column in growing:
            share = max(1, left * column.flex // total)
            step = min(share, wanted[column.key] - widths[column.key], left - given)
            widths[column.key] += step
            given += step
        if not given:
            break
        left -= given
    return [(c, widths[c.key]) for c in shown]


def run_cell(relative: str, width: int) -> Text:
    """The run's path under the root in ``width`` cells: the namespace is shortened first
    (in the middle), so the run's own folder name stays whole while it fits; a folder too
    long for that keeps the namespace's first character while it can (``g…/20261130_000001``),
    and a folder longer than the cell is cut with it in the middle."""
    namespace, slash, folder = relative.rpartition("/")
    text = literal(relative)
    if text.cell_len <= width or not slash:
        return one_line_middle(relative, width)
    name = literal(folder)
    room = width - name.cell_len - 1
    if room >= 4:
        return one_line_middle(namespace, room) + Text(slash) + name
    if room == 3 and literal(namespace[0] + namespace[-1]).cell_len == 2:  # "t…l", not "…l"
        ends = literal(namespace[0]) + Text("…", "dim italic") + literal(namespace[-1])
        return ends + Text(slash) + name
    if room == 2 and literal(namespace[0]).cell_len == 1:  # "g…/20261130_000001"
        return literal(namespace[0]) + Text("…", "dim italic") + Text(slash) + name
    if room >= 1:  # the folder whole, before the namespace
        return Text("…", "dim italic") + Text(slash) + name
    return one_line_middle(relative, width)  # the namespace's start stays


NAMES: dict[str, Callable[[RunRow], str]] = {
    "run": lambda row: row.summary.relative,
    "model": lambda row: row.summary.model or "-",
}
"""The columns whose names are cut so that different names read differently."""


def distinct_cells(names: Sequence[str], width: int, key: str) -> list[Text]:
    """``names`` in ``width`` cells each, as :func:`run_cell` (a run) or
    :func:`~widgets.literal.one_line_middle` (a model) cuts them, except that two different
    names never read the same where a cut can tell them apart: those are cut where they
    differ (:func:`~widgets.literal.cut_apart`)."""
    cells = [run_cell(n, width) if key == "run" else one_line_middle(n, width) for n in names]
    alike: dict[str, set[str]] = {}
    for name, cell in zip(names, cells, strict=True):
        alike.setdefault(cell.plain, set()).add(name)
    clashing = sorted({n for group in alike.values() if len(group) > 1 for n in group})
    if clashing:
        apart = dict(zip(clashing, cut_apart(clashing, width), strict=True))
        cells = [apart.get(name, cell) for name, cell in zip(names, cells, strict=True)]
    return cells


def headline_cell(row: RunRow) -> Text:
    """The recomputed headline value once known, with the bounds of its 95 % interval once
    the statistics exist (``0.5000 .45–.55``, rounded outwards); until then what the last check found, marked
    ``cached``, or else the stored one, marked ``stored``."""
    run = row.summary
    latest = row.latest
    if latest is None or latest.state == UNUSABLE:
        # Not (yet) recomputed: what metrics.json says, marked as such.
        if run.headline_value is None:
            return Text("-", "dim")
        return Text(f"{run.headline_value:.4f} stored", "dim italic")
    headline = latest.headline
    if headline is None or headline.value is None:
        return Text("-", "dim")
    if row.is_cached:
        return Text(f"{headline.value:.4f} cached", "italic")
    if headline.is_reference:
        return Text(f"{headline.value:.4f} ref", "italic yellow")
    text = Text(f"{headline.value:.4f}", "bold")
    if headline.interval is not None:
        text.append(f" {compact_bounds(*headline.interval)}", "dim")
    return text


MARKS = {
    OK: ("✓", "green"),
    DIFFERS: ("≠", "red"),
    UNUSABLE: ("!", "yellow"),
    UNSTORED: ("∅", "cyan"),
}


def check_cell(row: RunRow) -> Text:
    """The check's mark; a cached check's mark dim until the check is made again."""
    latest = row.latest
    if latest is None:
        return PENDING_TEXT
    mark, colour = MARKS[latest.state]
    return Text(mark, f"dim {colour}" if row.is_cached else f"bold {colour}")


GATE_MARKS = {"pass": ("pass", "bold green"), "fail": ("FAIL", "bold red"),
              "unusable": ("!", "bold yellow")}  # fmt: skip


def gate_cell(row: RunRow) -> Text:
    """The gate's result: pass, FAIL, ! (unusable), … until it comes."""
    if row.gate is None:
        return PENDING_TEXT
    return Text(*GATE_MARKS[row.gate.status])


def _count(name: str) -> Callable[[RunRow], Text]:
    def cell(row: RunRow) -> Text:
        latest = row.latest
        headline = latest.headline if latest is not None else None
        if headline is None:
            return PENDING_TEXT if latest is None else Text("-", "dim")
        number = headline.count(name)
        if row.is_cached:
            return Text(str(number), "dim")
        return Text(str(number), "bold red" if number and name == "error" else "")

    return cell


STATUS_STYLES = {"failed": "bold red", "cancelled": "yellow", "running": "cyan"}


def _status(row: RunRow) -> Text:
    status = row.summary.status
    if status is None:
        return Text("-", "dim")
    return literal(status, style=STATUS_STYLES.get(status, ""))


CELLS: dict[str, Callable[[RunRow], Text]] = {
    "status": _status,
    "model": lambda row: literal(row.summary.model or "-"),
    "benchmark": lambda row: literal(row.summary.benchmark or "-"),
    "harness": lambda row: literal(row.summary.harness or "-"),
    "plan": lambda row: Text(row.plan),
    "started": lambda row: Text((row.summary.started_at or "-")[:10]),
    "tasks": lambda row: Text(str(row.tasks)),
    "error": _count("error"),
    "unavailable": _count("unavailable"),
    "invalidated": _count("invalidated"),
    "headline": headline_cell,
    "check": check_cell,
    "gate": gate_cell,
}


class RunTable(ListTable[Text]):
    """One row per run: where, what, plan, status, counts and the headline value."""

    HELP = """\
## Runs
`Run` is the path under the results root (namespace / run id), shortened in the middle;
the line under the table shows the whole row under the cursor. `Headline` is the value
stored in the run's metrics.json (marked *stored*) until the run has been recomputed in
the background; then it is the recomputed value, and `✓` says the stored metrics.json
equals the recomputation, `≠` that it differs, `!` that the run cannot be recomputed,
`∅` that it was recomputed but has no stored report (metrics.json missing or unreadable).
A run checked before shows at once what that check found, marked *cached* (its mark and
counts dim), until it has been checked again.
`Err` / `Unav` / `Inv`: tasks counted error / unavailable / invalidated by the
recomputation. `ref`: the evaluation failed, the value is a reference value. On a narrow
terminal the harness, start, plan, benchmark, model and status columns fold away, in
that order. A ● marks a run chosen for comparison. `Gate` (after `G`): the publish gate's
result for the run (`pass`, `FAIL`, `!` unusable), as `inspector gate` judges it.
"""

    DEFAULT_CSS = """
    RunTable {
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_run", "Open run", tooltip="Recompute and open this run")
    ]

    @dataclass
    class RunChosen(Message):
        table: RunTable
        path: Path

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._rows: list[RunRow] = []
        self._index: dict[str, int] = {}
        self._marked: list[Path] = []
        self._layout: list[tuple[Column, int]] = []
        self._laid_out_for = -1
        self.gating = False
        """The gate column is shown (``G`` on the runs screen)."""
        self._names: dict[str, list[Text]] = {}
        """The run and model cells of the rows shown, cut so that different names differ."""

    @property
    def rows_shown(self) -> list[RunRow]:
        return list(self._rows)

    @property
    def paths(self) -> list[Path]:
        return [row.summary.path for row in self._rows]

    @property
    def current(self) -> RunRow | None:
        """The run under the cursor."""
        if not self._rows:
            return None
        return self._rows[min(self.cursor_row, len(self._rows) - 1)]

    @property
    def path(self) -> Path | None:
        row = self.current
        return row.summary.path if row is not None else None

    @property
    def column_keys(self) -> list[str]:
        """The columns on screen (the others folded away)."""
        return [column.key for column, _ in self._layout]

    def mark(self, marked: Sequence[Path]) -> None:
        """Show a ● beside the ``marked`` runs (those on screen)."""
        self._marked = list(marked)
        if "mark" in self.column_keys:
            for number, row in enumerate(self._rows):
                self.update_cell_at((number, 0), self._mark(row))

    def _mark(self, row: RunRow) -> Text:
        return Text("●", "bold") if row.summary.path in self._marked else Text(" ")

    def show(self, rows: Sequence[RunRow]) -> None:
        """Show ``rows`` (keeping the cursor on the same run when it is still shown)."""
        current = self.path
        self._rows = list(rows)
        self._index = {str(row.summary.path): n for n, row in enumerate(self._rows)}
        self._render_all()
        if current is not None and str(current) in self._index:
            self.move_cursor(row=self._index[str(current)], animate=False)

    def update_rows(self, rows: Sequence[RunRow]) -> None:
        """Replace rows already shown (their checks arrived) in place."""
        for row in rows:
            number = self._index.get(str(row.summary.path))
            if number is None:
                continue
            self._rows[number] = row
            for position, (column, width) in enumerate(self._layout):
                if column.key in CHECKED:
                    self.update_cell_at((number, position), self._cell(column, width, row, number))

    def on_resize(self, event: Resize) -> None:
        if event.size.width != self._laid_out_for:
            self._render_all()

    def _render_all(self) -> None:
        width = self.size.width
        self._laid_out_for = width
        wanted = {
            "run": max((len(r.summary.relative) for r in self._rows), default=18),
            "model": max((len(r.summary.model or "-") for r in self._rows), default=8),
            "benchmark": max((len(r.summary.benchmark or "-") for r in self._rows), default=9),
            "harness": max((len(r.summary.harness or "-") for r in self._rows), default=8),
        }
        columns = (*COLUMNS, GATE) if self.gating else COLUMNS
        self._layout = fit(columns, max(width, 40) - SCROLLBAR, wanted)
        widths = {column.key: w for column, w in self._layout}
        self._names = {
            key: distinct_cells([NAMES[key](row) for row in self._rows], widths[key], key)
            for key in NAMES
            if key in widths
        }
        self.clear(columns=True)
        for column, column_width in self._layout:
            label = Text(column.label, justify="right" if column.right else "left")
            self.add_column(label, width=column_width, key=column.key)
        for number, row in enumerate(self._rows):
            self.add_row(*(self._cell(column, w, row, number) for column, w in self._layout))
        refresh_header(self)

    def _cell(self, column: Column, width: int, row: RunRow, number: int | None = None) -> Text:
        if column.key == "mark":
            return self._mark(row)
        if column.key in self._names and number is not None:
            return self._names[column.key][number]
        text = CELLS[column.key](row)
        if column.flex and text.cell_len > width:
            return one_line_middle(text.plain, width)
        if column.right and text.cell_len < width:
            text = Text(" " * (width - text.cell_len)) + text
        return text

    def action_open_run(self) -> None:
        path = self.path
        if path is not None:
            self.post_message(self.RunChosen(self, path))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_run()
