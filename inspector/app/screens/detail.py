"""A modal with the full text of one thing (a load problem), and the file behind it."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from inspector.app.handoff import hand_over


class DetailScreen(ModalScreen[None]):
    """``text`` in full; **o** reads ``path`` in $PAGER when it is a file."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "close", "Close", tooltip="Back to where you were"),
        Binding("o", "open_file", "Pager: the file", tooltip="Read the file in $PAGER"),
    ]

    DEFAULT_CSS = """
    DetailScreen {
        align: center middle;
    }
    DetailScreen > VerticalScroll {
        width: 90;
        max-width: 95%;
        height: auto;
        max-height: 90%;
        border: thick $accent;
        background: $surface;
        padding: 0 1;
    }
    DetailScreen Static {
        height: auto;
    }
    """

    def __init__(self, text: Text, path: Path | None = None) -> None:
        super().__init__()
        self.text = text
        self.path = path

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self.text, id="detail-text")
        yield Footer(show_command_palette=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_file":
            return self.path is not None and self.path.is_file()
        return True

    def action_open_file(self) -> None:
        if self.path is not None:
            hand_over(self.app, "PAGER", self.path)

    def action_close(self) -> None:
        self.dismiss(None)
