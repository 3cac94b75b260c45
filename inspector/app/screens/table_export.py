"""Export the table on screen: choose CSV / JSON / Markdown and confirm the file's path."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from inspector.app.table_export import FORMATS, ExportError, Table, default_path, refusal, write
from inspector.app.titles import plural


class TableExportScreen(ModalScreen[Path | None]):
    """Where to write the rows on screen; dismissed with the full path written (or None)."""

    HELP = """\
# Export
The rows on screen (after filters), every column, as CSV, JSON or Markdown. The file goes
to the current folder unless you type another path; the run directory is never written.
**enter** writes, **escape** cancels.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without writing"),
    ]

    DEFAULT_CSS = """
    TableExportScreen {
        align: center middle;
    }
    TableExportScreen > Vertical {
        width: 80;
        max-width: 95%;
        height: auto;
        border: thick $accent;
        background: $surface;
        padding: 0 1;
    }
    TableExportScreen #export-title, TableExportScreen #export-target {
        height: auto;
    }
    TableExportScreen OptionList {
        height: auto;
    }
    """

    def __init__(self, table: Table, folder: Path, run_dirs: Sequence[Path]) -> None:
        super().__init__()
        self.table = table
        self.folder = folder
        self.run_dirs = tuple(run_dirs)
        self.fmt = "csv"

    @property
    def path_input(self) -> Input:
        return self.query_one("#export-path", Input)

    @property
    def formats(self) -> OptionList:
        return self.query_one("#export-formats", OptionList)

    def compose(self) -> ComposeResult:
        with Vertical():
            title = Text(f"Export {plural(len(self.table.rows), 'row')} ", "bold")
            title.append(f"({len(self.table.headers)} columns: {', '.join(self.table.headers)})")
            yield Static(title, id="export-title")
            yield OptionList(
                *(Option(f"{name} (.{ext})", id=ext) for ext, name in FORMATS.items()),
                id="export-formats",
            )
            yield Input(str(default_path(self.folder, self.table, self.fmt)), id="export-path")
            yield Static(id="export-target")
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.formats.highlighted = 0
        self.path_input.focus()
        self._show_target()

    @on(OptionList.OptionHighlighted, "#export-formats")
    def _format_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        fmt = event.option.id or "csv"
        if fmt == self.fmt:
            return
        current = Path(self.path_input.value)
        if current.suffix.lstrip(".") in FORMATS:
            self.path_input.value = str(current.with_suffix(f".{fmt}"))
        self.fmt = fmt
        self._show_target()

    @on(OptionList.OptionSelected, "#export-formats")
    def _format_chosen(self, event: OptionList.OptionSelected) -> None:
        self.path_input.focus()

    @on(Input.Changed, "#export-path")
    def _path_changed(self, event: Input.Changed) -> None:
        self._show_target()

    def target(self) -> Path:
        """The file the typed path names (relative paths: under the current folder)."""
        path = Path(self.path_input.value.strip() or ".").expanduser()
        return (path if path.is_absolute() else self.folder / path).resolve()

    def _show_target(self) -> None:
        target = self.target()
        text = Text("writes ", "dim")
        text.append(str(target), "bold")
        problem = refusal(target, self.run_dirs)
        if problem is not None:
            text.append(f"\ncannot: {problem}", "bold red")
        elif target.exists():
            text.append("\nthe file exists and will be replaced", "yellow")
        text.append("\nenter: write · tab: format · escape: cancel", "dim")
        self.query_one("#export-target", Static).update(text)

    @on(Input.Submitted, "#export-path")
    def _submitted(self, event: Input.Submitted) -> None:
        try:
            written = write(self.table, self.fmt, self.target(), self.run_dirs)
        except ExportError as exc:
            self.notify(str(exc), title="Not written", severity="error", markup=False)
            return
        self.dismiss(written)

    def action_cancel(self) -> None:
        self.dismiss(None)
