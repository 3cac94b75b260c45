"""Export the open run: choose a format and a folder (default: the current folder)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from inspector.export import FORMATS, ExportError, write_export
from inspector.output_files import OutputError, output_target

if TYPE_CHECKING:  # pragma: no cover
    from textual.app import App

    from inspector.session import Session

HINTS = {
    "eee": "Every Eval Ever 0.3.0: aggregate JSON + per-attempt JSONL",
    "parquet": "per-task and per-attempt reductions (pandas, DuckDB)",
    "csv": "the task rows of every series",
    "jsonl": "the task rows of every series, with reasons",
}


def export_and_tell(app: App[object], session: Session, fmt: str, folder: str) -> None:
    """Write the export (in a worker thread) and tell the user what was written or why not."""
    try:
        output_target(folder, [session.run.path], folder=True)
        written = write_export(session, fmt, Path(folder), [session.run.path])
    except (ExportError, OutputError, ImportError, OSError) as exc:
        app.call_from_thread(app.notify, str(exc), severity="error")
        return
    names = ", ".join(path.name for path in written)
    app.call_from_thread(app.notify, f"exported {fmt} to {folder}: {names}")


class ExportScreen(ModalScreen[tuple[str, str] | None]):
    """The folder to write to and the format; **enter** on a format exports."""

    HELP = """\
# Export
Writes the recomputed run into the folder named above (created if needed; never the run's
own folder): EEE records, Parquet tables, or the CSV / JSONL task rows — the same files as
`inspector export RUN --format F --out DIR`.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without exporting"),
    ]

    DEFAULT_CSS = """
    ExportScreen {
        align: center middle;
    }
    ExportScreen > Vertical {
        width: 76;
        max-width: 95%;
        height: auto;
        border: thick $accent;
        background: $surface;
        padding: 0 1;
    }
    ExportScreen OptionList {
        height: auto;
    }
    """

    def __init__(self, session: Session, folder: str) -> None:
        super().__init__()
        self.session = session
        self.folder = folder

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Export the run to the folder", "bold"))
            yield Input(self.folder, id="export-folder")
            yield OptionList(
                *(
                    Option(Text.assemble((f.ljust(8), "bold"), (HINTS[f], "dim")), id=f)
                    for f in FORMATS
                )
            )
            yield Static(
                Text("enter: export in that format · tab: the folder · escape: cancel", "dim")
            )
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    @on(Input.Submitted)
    def _folder_given(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        folder = self.query_one(Input).value.strip() or "."
        fmt = FORMATS[event.option_index]
        app, session = self.app, self.session
        app.run_worker(lambda: export_and_tell(app, session, fmt, folder), thread=True)
        self.dismiss((fmt, folder))

    def action_cancel(self) -> None:
        self.dismiss(None)
