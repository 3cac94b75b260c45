"""RunTable: the runs under a results root, newest first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable

from inspector.results import RunSummary
from widgets._table import refresh_header
from widgets.literal import one_line

STATE_FOLDERS = ("normal", "error", "fatal", "running")


def headline_text(summary: RunSummary) -> Text:
    if summary.headline_value is None:
        return Text("-", "dim")
    text = Text(f"{summary.headline_value:.4f}", "bold")
    if summary.headline_is_reference:
        text = Text(f"{summary.headline_value:.4f} (reference)", "italic yellow")
    if summary.headline_series_id:
        text.append(" ")
        text.append_text(one_line(summary.headline_series_id, max_chars=24))
        text.stylize("dim", len(text.plain) - len(summary.headline_series_id[:24]))
    return text


def _mark(marked: bool) -> Text:
    return Text("●", "bold") if marked else Text(" ")


class RunTable(DataTable[Text]):
    """One row per run: where, what, plan, status, task folders and the stored headline."""

    HELP = """\
## Runs
The runs found under the results root, newest first (`Run` is the path under the root:
namespace / run id). The headline value is the one stored in the run's metrics.json; open
a run (**enter**) to recompute it. Tasks n/e/f/r counts task folders per state folder:
normal / error / fatal / running. A ● marks a run chosen for comparison.
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
        self._paths: list[Path] = []
        self._marked: list[Path] = []

    def on_mount(self) -> None:
        self.add_column(" ", key="mark")
        for label in (
            "Run",
            "Run id",
            "Model",
            "Benchmark",
            "Harness",
            "Plan",
            "Status",
            "Started",
            "Tasks n/e/f/r",
            "Headline",
        ):
            self.add_column(label)

    @property
    def paths(self) -> list[Path]:
        return list(self._paths)

    @property
    def path(self) -> Path | None:
        """The run under the cursor."""
        if not self._paths:
            return None
        return self._paths[min(self.cursor_row, len(self._paths) - 1)]

    def mark(self, marked: Sequence[Path]) -> None:
        """Show a ● beside the ``marked`` runs (those on screen)."""
        self._marked = list(marked)
        for row, path in enumerate(self._paths):
            self.update_cell_at((row, 0), _mark(path in self._marked))

    def show(self, runs: Sequence[RunSummary]) -> None:
        self.clear()
        self._paths = [run.path for run in runs]
        for run in runs:
            plan = (
                "-" if run.k is None else f"{run.strategy or '?'}@{run.k}" if run.k > 1 else "k=1"
            )
            counts = "/".join(str(run.task_counts.get(name, 0)) for name in STATE_FOLDERS)
            started = (run.started_at or "-")[:16].replace("T", " ")
            self.add_row(
                _mark(run.path in self._marked),
                one_line(run.relative, max_chars=30),
                one_line(run.run_id, max_chars=18),
                one_line(run.model or "-", max_chars=20),
                one_line(run.benchmark or "-", max_chars=16),
                one_line(run.harness or "-", max_chars=12),
                Text(plan),
                one_line(run.status or "-", max_chars=11),
                one_line(started),
                Text(counts, justify="right"),
                headline_text(run),
            )
        refresh_header(self)

    def action_open_run(self) -> None:
        path = self.path
        if path is not None:
            self.post_message(self.RunChosen(self, path))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_run()
