"""Distribution: a small bar plot of the task values of one series."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from inspector.views.distribution import distribution_rows

BAR = "█"


class Distribution(Static):
    """How the evaluated task values of the selected series are spread.

    One bar per distinct value when there are few of them (binary and avg@k series), else
    ten equal-width bins. The values come from the engine's task reductions.
    """

    HELP = """\
## Distribution
Evaluated task values of the selected series: one bar per distinct value, or ten bins.
Tasks without a value (error, unavailable, invalidated) are not plotted; see the counts.
"""

    DEFAULT_CSS = """
    Distribution {
        height: auto;
        min-height: 3;
        padding: 0 1;
    }
    """

    BAR_WIDTH = 24
    """The longest bar when the widget has not been laid out yet (else: what fits)."""

    _shown: tuple[str, tuple[float, ...]] | None = None

    def show(self, title: str, values: Sequence[float]) -> None:
        """Plot ``values`` under ``title``: label, bar and count on one line each, the bars
        as long as the widget's width leaves (never wrapping a count to the next line)."""
        self._shown = (title, tuple(values))
        text = Text(f"{title}: {len(values)} task values\n", style="bold")
        if not values:
            text.append("no evaluated task", "dim")
            self.update(text)
            return
        rows = self._rows(values)
        largest = max(count for _, count in rows) or 1
        label_width = max(len(label) for label, _ in rows)
        count_width = len(str(largest)) + 1  # " 12", or "· 0"
        room = self.content_size.width - label_width - count_width - 2
        bar_width = self.BAR_WIDTH if self.content_size.width <= 0 else max(3, room)
        for label, count in rows:
            width = round(bar_width * count / largest)
            text.append(f"{label:>{label_width}} ")
            text.append(BAR * width if count else "", "green")
            text.append(f"{'' if count else '·'} {count}\n")
        text.rstrip()
        self.update(text)

    def on_resize(self) -> None:
        if self._shown is not None:
            self.show(*self._shown)

    @staticmethod
    def _rows(values: Sequence[float]) -> list[tuple[str, int]]:
        return distribution_rows(values)
