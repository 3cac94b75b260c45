"""Help: the screen's own description, its widgets' HELP, and every active key (the same
keys as the footer and the command palette: :func:`inspector.app.keys.screen_keys`)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Markdown

from inspector.app.keys import screen_keys


def help_markdown(screen: Screen[object]) -> str:
    """Markdown built from ``HELP`` strings and the bindings active on ``screen``."""
    parts: list[str] = []
    own = screen.HELP
    if own:
        parts.append(own.strip())
    seen: set[type] = set()
    for widget in screen.query("*"):
        kind = type(widget)
        text = kind.HELP
        if text and kind not in seen and kind.__module__.startswith("widgets."):
            seen.add(kind)
            parts.append(text.strip())
    rows = ["| Key | Action | What it does |", "|---|---|---|"]
    for key in screen_keys(screen):
        tooltip = key.tooltip.replace("|", "\\|")
        rows.append(f"| `{key.shown}` | {key.description} | {tooltip} |")
    parts.append("## Keys\n\n" + "\n".join(rows))
    parts.append(
        "The command palette (**ctrl+p**) lists the same actions as commands, such as "
        "*go: tasks with errors*."
    )
    return "\n\n".join(parts)


class HelpScreen(ModalScreen[None]):
    """Help for the screen underneath.

    Help is read like a pager (``less``, ``man``): **q** closes it, as **escape** and **?** do,
    and never quits the app from here. Its own footer says so, over the footer underneath
    (whose "q Quit" would be wrong while help is open).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape,q,question_mark,f1",
            "dismiss",
            "Close help",
            key_display="esc/q/?",
            tooltip="Back to the screen underneath (q here closes help; it does not quit)",
        ),
    ]

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
    }
    HelpScreen > VerticalScroll {
        width: 90%;
        height: 90%;
        border: thick $accent;
        background: $surface;
        padding: 0 1;
    }
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(self.text)
        yield Footer(show_command_palette=False)
