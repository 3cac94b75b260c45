"""The leaderboard's export dialog: the file to write the table to, its full path shown."""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static

from widgets.literal import literal


class ExportDialog(ModalScreen[str | None]):
    """Ask for the file to export to; the full path it names is shown before writing."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without writing")
    ]

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog"):
            yield Label("Export the leaderboard to (.csv, .md or .json):")
            yield Input(value="leaderboard.md", id="export-path")
            yield Static(id="export-target")
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self._show_target(self.query_one(Input).value)

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self._show_target(event.value)

    def _show_target(self, value: str) -> None:
        target = Path(os.path.abspath(self.folder / Path(value.strip() or ".").expanduser()))
        text = Text("writes ", "dim")
        text.append_text(literal(str(target)))
        text.append("\nenter: write · escape: cancel", "dim")
        self.query_one("#export-target", Static).update(text)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
