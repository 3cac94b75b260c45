"""The leaderboard: models × benchmarks of the runs on the runs screen, recomputed.

A thin view of :mod:`inspector.views.leaderboard`: the runs screen recomputes the runs; when
checks arrive the navigator tells this screen (``runs_updated``). Opening a run or comparing two
is asked for with navigation messages.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable, Header, Static

from inspector.answers.root import with_ties
from inspector.app.host import InspectorScreen, host_of
from inspector.app.navigation import CompareRuns, OpenItems, OpenRun
from inspector.app.screens.leaderboard_export import ExportDialog
from inspector.app.titles import plural
from inspector.output_files import OutputError, write_output
from inspector.overrides import Overrides
from inspector.views.leaderboard import FINISHED, Cell, Leaderboard, build, cell_text, export
from inspector.views.run_check import DIFFERS, UNUSABLE
from inspector.views.runs_view import RunRow, describe
from inspector.views.ties import ColumnTies
from widgets._table import ListTable
from widgets.key_footer import KeyFooter
from widgets.literal import cut_apart, literal

EXTENSIONS = {".csv": "csv", ".md": "markdown", ".markdown": "markdown", ".json": "json"}
LEGEND = Text.assemble(
    ("\n✓ equals stored  ", "dim"), ("≠ differs", "bold red"), ("  ", "dim"),
    ("! cannot be recomputed", "bold yellow"), ("  ", "dim"), ("yellow: run not finished", "yellow"),
    ("  ", "dim"), ("dim: not yet recomputed", "dim italic"), ("  ref: reference value", "dim"),
)  # fmt: skip
"""What the marks and colours of the cells mean, under the count line."""
MODEL_WIDTH = 28
"""The model column at its widest (a longer name is cut in the middle)."""
MODEL_MIN = 10
"""The model column at its narrowest, when the benchmark columns need the room."""
CELL_MAX = 32
RANKS = "Rank"
"""The last column's header: each column's rank interval and group letters, once known."""


@dataclass
class TiesFound(Message):
    """The ties of the board's columns, for the runs its cells showed then."""

    shown: dict[tuple[str, str], Path]
    ties: dict[str, ColumnTies]


class LeaderboardScreen(InspectorScreen):
    """Models × benchmarks: the recomputed headline of each model's newest finished run."""

    HELP = """\
# Leaderboard
One row per model, one column per benchmark. A cell shows the recomputed headline of the
newest finished (`completed`) run of that model on that benchmark (or the newest run, with
its status, when none finished), then ✓ when every run behind the cell matches its stored
metrics.json, ≠ when one differs, ! when one cannot be recomputed, ∅ when one has no stored
report to check (metrics.json missing; its value is still recomputed; … while recomputing),
and the tasks counted error / unavailable / invalidated (e u i). The line under the table
tells the whole cell. **n** shows the next run behind the cell; **enter** opens the run
shown; **m** marks a cell (two at most) and **c** compares the two marked cells' runs
task by task; **x** exports the table (CSV, Markdown or JSON, chosen by the file name);
**t** lists every task over the runs, flagged (never solved, always errors, …).
Once every run is recomputed, the **Rank** column gives each model's rank interval in
each benchmark column with two models or more (`#1–3`: Holm-adjusted pairwise paired
comparisons of the runs shown, family-wise α 0.05) and its group letters (models sharing a
letter are not statistically separated).
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        # priority: before the table's own (hidden) enter, so the footer shows this one.
        Binding(
            "enter",
            "open_run",
            "Open run",
            priority=True,
            tooltip="Recompute and open the cell's run",
        ),
        Binding("n", "next_run", "Next run", tooltip="Show the next run behind the cell"),
        Binding("m", "mark", "Mark", tooltip="Mark this cell for a comparison (two at most)"),
        Binding("c", "compare", "Compare", tooltip="Compare the two marked cells run vs run"),
        Binding("x", "export", "Export", tooltip="Write the table to CSV, Markdown or JSON"),
        Binding("t", "tasks", "Tasks", tooltip="Every task over the runs, flagged"),
    ]

    PALETTE: ClassVar[dict[str, str]] = {
        "export": "export: leaderboard",
        "next_run": "leaderboard: next run of the cell",
        "tasks": "go: tasks across runs",
    }

    def __init__(self, rows: list[RunRow], roots: list[Path]) -> None:
        super().__init__()
        self.roots = roots
        """The results roots of the runs (never written under)."""
        self.run_dirs = [row.summary.path for row in rows]
        """Every run's own folder (never written under either, wherever it lies)."""
        self.board: Leaderboard = build(rows)
        self.marked: list[tuple[str, str]] = []
        """The cells marked for comparison, in the order they were marked (A, then B)."""
        self._drawn_for = -1

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#leaderboard-table", DataTable)

    @property
    def current(self) -> Cell | None:
        """The cell under the cursor (None on an empty one)."""
        row, column = self.table.cursor_coordinate
        if not self.board.models or column == 0 or column > len(self.board.benchmarks):
            return None
        return self.board.cell(self.board.models[row], self.board.benchmarks[column - 1])

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="leaderboard-note")
        yield ListTable(id="leaderboard-table", cursor_type="cell", zebra_stripes=True)
        yield Static(id="leaderboard-status")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.sub_title = "leaderboard · " + ", ".join(r.name or "." for r in self.roots)
        self._draw()
        self.table.focus()
        self._want_ties()

    def runs_updated(self, rows: list[RunRow]) -> None:
        """Checks arrived on the runs screen: rebuild, keeping the runs chosen per cell."""
        chosen = {key: cell.run.summary.path for key, cell in self.board.cells.items()}
        board = build(rows)
        for key, cell in board.cells.items():
            paths = [r.summary.path for r in cell.runs]
            if key in chosen and chosen[key] in paths:
                board = board.with_cell(cell.showing(paths.index(chosen[key])))
        self.board = board
        self._draw()
        self._want_ties()

    def _shown(self) -> dict[tuple[str, str], Path]:
        return {key: cell.run.summary.path for key, cell in self.board.cells.items()}

    def _want_ties(self) -> None:
        """Compare the models of each column once every run shown is recomputed."""
        cells = self.board.cells.values()
        if self.board.ties or not cells or any(c.run.check is None for c in cells):
            return
        host = host_of(self)
        self._find_ties(self.board, host.settings.overrides if host is not None else None)

    @work(thread=True, exclusive=True, exit_on_error=False, group="leaderboard-ties",
          description="pairwise comparisons of each benchmark column")  # fmt: skip
    def _find_ties(self, board: Leaderboard, overrides: Overrides | None) -> None:
        shown = {key: cell.run.summary.path for key, cell in board.cells.items()}
        self.post_message(TiesFound(shown, dict(with_ties(board, overrides).ties)))

    @on(TiesFound)
    def _ties_found(self, message: TiesFound) -> None:
        if message.ties and message.shown == self._shown():
            self.board = self.board.with_ties(message.ties)
            self._draw()

    def _draw(self) -> None:
        table = self.table
        cursor = table.cursor_coordinate
        model_width, cell_width, how = self._layout()
        model_width, widths = self._widths(model_width, cell_width)
        if widths and min(widths) < cell_width:  # whole names, the cells without counts
            how = {"counts": False}
        table.clear(columns=True)
        table.add_column("Model", key="model", width=model_width)
        headers = cut_apart(self.board.benchmarks, cell_width)
        for benchmark, header, w in zip(self.board.benchmarks, headers, widths, strict=True):
            table.add_column(header if w == cell_width else benchmark, key=benchmark, width=w)
        ranks = {m: self._ranks(m) for m in self.board.models}
        if self.board.ties:  # a fixed width: an auto width waits for the table's next idle
            width = max([len(RANKS), *(rank.cell_len for rank in ranks.values())])
            table.add_column(RANKS, key=RANKS, width=width)
        names = cut_apart(self.board.models, model_width)
        for model, name in zip(self.board.models, names, strict=True):
            cells = [
                self._cell(model, b, w, how)
                for b, w in zip(self.board.benchmarks, widths, strict=True)
            ]
            table.add_row(name, *cells, *([ranks[model]] if self.board.ties else []))
        if self.board.models:
            table.move_cursor(row=cursor.row, column=max(1, cursor.column), animate=False)
        self._drawn_for = self.size.width
        self._show_note()
        self._show_status()

    def _layout(self) -> tuple[int, int, dict[str, bool]]:
        """The model column's width, each benchmark column's width and how the cells are
        written for this screen, so that every benchmark column is on screen: the cells drop
        their counts (still in the line below), then write ``ʳ`` for ``ref``, then the model
        column narrows (names cut in the middle, apart), before the table scrolls sideways."""
        width = max(self.size.width, 40) - 2  # the vertical scrollbar
        columns = max(1, len(self.board.benchmarks))
        longest = max((len(m) for m in self.board.models), default=5)
        model_width = max(5, min(longest, MODEL_WIDTH, width // 4))

        def cells_width(how: dict[str, bool]) -> int:
            texts = [cell_text(cell, **how) for cell in self.board.cells.values()]
            return max((len(text) for text in texts), default=1)

        def room(model: int) -> int:
            return (width - model - 2) // columns - 2

        for how in ({"counts": True}, {"counts": False}, {"counts": False, "short": True}):
            needed = cells_width(how)
            if needed <= room(model_width):
                break
        else:
            model_width = max(min(model_width, MODEL_MIN), width - 2 - columns * (needed + 2))
        return model_width, max(needed, min(room(model_width), CELL_MAX)), how

    def _widths(self, model_width: int, cell_width: int) -> tuple[int, list[int]]:
        """The model column's and each benchmark column's width: every name whole when the
        columns fit so (each as wide as its header or its cells), else the widths above."""
        benchmarks = self.board.benchmarks
        width = max(self.size.width, 40) - 2
        longest = max((len(m) for m in self.board.models), default=5)
        cells = max((len(cell_text(c, counts=False)) for c in self.board.cells.values()),
                    default=1)  # fmt: skip
        whole = [max(cells, min(len(b), CELL_MAX)) for b in benchmarks]
        if longest + 2 + sum(w + 2 for w in whole) <= width and cell_width < max(whole, default=0):
            return max(model_width, longest), whole
        return model_width, [cell_width] * len(benchmarks)

    def _ranks(self, model: str) -> Text:
        """``#1–2 (a)`` (the benchmark named first when more than one column has ties)."""
        parts = []
        for benchmark in self.board.ties:
            standing = self.board.standing(model, benchmark)
            if standing is not None:
                head = f"{benchmark} " if len(self.board.ties) > 1 else ""
                parts.append(f"{head}{standing.rank_text} ({standing.groups})")
        return literal(" · ".join(parts))

    def on_resize(self) -> None:
        if self.is_mounted and self.size.width != self._drawn_for:
            self._draw()

    def _cell(self, model: str, benchmark: str, width: int, how: dict[str, bool]) -> Text:
        cell = self.board.cell(model, benchmark)
        if cell is None:
            return Text("")
        states = {r.check_state for r in cell.runs}
        style = (
            "bold yellow" if UNUSABLE in states
            else "bold red" if DIFFERS in states
            else "dim italic" if cell.run.check is None
            else "" if cell.run.summary.status == FINISHED
            else "yellow"
        )  # fmt: skip
        text = Text(cell_text(cell, **how), style)
        if (model, benchmark) in self.marked:
            text = Text("●" if how.get("short") else "● ", "bold") + text
        if text.cell_len > width:
            text.truncate(width, overflow="ellipsis")
        return text

    def _show_note(self) -> None:
        cells = self.board.cells.values()
        waiting = sum(1 for cell in cells if cell.pending)
        failing = sum(1 for cell in cells if cell.failing)
        note = Text(
            f"{plural(len(self.board.models), 'model')} × "
            f"{plural(len(self.board.benchmarks), 'benchmark')} · "
            f"{plural(len(self.board.cells), 'cell')}",
            "bold",
        )
        if waiting:
            note.append(f" · recomputing runs of {plural(waiting, 'cell')}…", "dim")
        if failing:
            note.append(f" · {plural(failing, 'cell')} with a run that fails the check", "bold red")
        note.append_text(LEGEND)
        self.query_one("#leaderboard-note", Static).update(note)

    def _show_status(self) -> None:
        cell = self.current
        status = self.query_one("#leaderboard-status", Static)
        if cell is None:
            status.update("")
            return
        text = f"{cell.model} × {cell.benchmark} · run {cell.chosen + 1} of {len(cell.runs)}"
        if cell.failing:
            failing = ", ".join(r.summary.relative for r in cell.failing)
            text += f" ({len(cell.failing)} failing the check: {failing})"
        said = {f"model {cell.model}", f"benchmark {cell.benchmark}"}  # the line starts so
        parts = [part for part in describe(cell.run) if part not in said]
        status.update(literal(text + " · " + " · ".join(parts)))

    @on(DataTable.CellHighlighted)
    def _highlighted(self) -> None:
        self._show_status()

    @on(DataTable.CellSelected)
    def _selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self.action_open_run()

    def action_open_run(self) -> None:
        cell = self.current
        if cell is None:
            return
        self.post_message(OpenRun(cell.run.summary.path))

    def action_tasks(self) -> None:
        rows = [run for cell in self.board.cells.values() for run in cell.runs]
        runs = [(str(row.summary.path), row.summary.relative) for row in rows]
        self.post_message(OpenItems(runs, ", ".join(r.name or "." for r in self.roots)))

    def action_next_run(self) -> None:
        cell = self.current
        if cell is None:
            return
        if len(cell.runs) == 1:
            self.notify("Only one run behind this cell.")
            return
        self.board = self.board.with_cell(cell.showing(cell.chosen + 1))
        self._draw()
        self._want_ties()

    def action_mark(self) -> None:
        cell = self.current
        if cell is None:
            return
        key = (cell.model, cell.benchmark)
        if key in self.marked:
            self.marked.remove(key)
        else:
            self.marked.append(key)
            if len(self.marked) > 2:
                self.marked.pop(0)
        self._draw()

    def action_compare(self) -> None:
        cells = [self.board.cell(*key) for key in self.marked]
        if len(cells) != 2 or None in cells:
            self.notify("Mark two cells with m first.", severity="warning")
            return
        a, b = (cell.run.summary.path for cell in cells if cell is not None)
        self.notify("Reading and recomputing both runs…", timeout=3)
        self.post_message(CompareRuns(a, b))

    def action_export(self) -> None:
        def chosen(path: str | None) -> None:
            if path:
                self.export_to(Path(path))

        self.app.push_screen(ExportDialog(self.folder()), chosen)

    def folder(self) -> Path:
        """The current folder, where a relative file name is written (as for table exports)."""
        host = host_of(self)
        cwd = host.settings.cwd if host is not None else None
        return cwd or Path(os.getcwd())

    def export_to(self, path: Path) -> None:
        """Write the table to ``path`` (format from its extension); never into a run root."""
        fmt = EXTENSIONS.get(path.suffix.lower())
        if fmt is None:
            self.notify("Name a .csv, .md or .json file.", severity="error")
            return
        target = self.folder() / path.expanduser()
        text = export(self.board, fmt)
        try:
            write_output(target, [*self.roots, *self.run_dirs], lambda out: out.write(text))
        except OutputError as exc:
            self.notify(f"Not written: {exc}", severity="error", markup=False)
            return
        self.notify(f"Wrote the leaderboard ({len(self.board.cells)} cells) to {path}.")
