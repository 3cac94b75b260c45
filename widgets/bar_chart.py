"""BarChart: rows of ``label  ████░░░░  text`` for values between 0 and 1 (pass@j curves)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from widgets.literal import one_line

BAR_WIDTH = 24


@dataclass(frozen=True)
class Bar:
    """One row: its label, its value in [0, 1] (None: no bar) and the text after the bar."""

    label: str
    value: float | None
    text: str


def bar(value: float | None, width: int = BAR_WIDTH) -> Text:
    """``value`` of ``width`` cells as full blocks, the rest shaded (eighths for the tip)."""
    if value is None:
        return Text("·" * width, "dim")
    cells = max(0.0, min(1.0, value)) * width
    full = int(cells)
    eighths = round((cells - full) * 8)
    if eighths == 8:
        full, eighths = full + 1, 0
    tip = " ▏▎▍▌▋▊▉"[eighths] if eighths and full < width else ""
    text = Text("█" * full + tip.strip(), "bold")
    text.append("░" * (width - full - (1 if tip.strip() else 0)), "dim")
    return text


class BarChart(Static):
    """A title line and one bar per row; it shows what it is given."""

    DEFAULT_CSS = """
    BarChart {
        height: auto;
        padding: 0 1;
    }
    """

    def show(self, title: str, rows: Sequence[Bar]) -> None:
        width = max((len(r.label) for r in rows), default=0)
        text = Text(title, "bold")
        for row in rows:
            text.append("\n")
            text.append_text(one_line(row.label.ljust(width)))
            text.append(" ")
            text.append_text(bar(row.value))
            text.append(" ")
            text.append_text(one_line(row.text))
        self.update(text)
