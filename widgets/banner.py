"""Banner: a one- or few-line notice above a screen's content, hidden when empty."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static


class Banner(Static):
    """A notice (differences from the stored report, a refused run, a failed evaluation).

    ``show([])`` hides it. Add the class ``-error`` for a refusal and ``-warning`` for
    disagreements.
    """

    HELP = """\
## Banner
Says when the stored metrics.json disagrees with the recomputation (which series, which
field), when AgentCompass would refuse the run, or when the evaluation failed.
"""

    DEFAULT_CSS = """
    Banner {
        display: none;
        height: auto;
        max-height: 8;
        padding: 0 1;
        background: $warning-muted;
        color: $text;
    }
    Banner.-error {
        background: $error-muted;
    }
    Banner.-info {
        background: $primary-muted;
    }
    Banner.-shown {
        display: block;
    }
    """

    def show(self, lines: Sequence[Text]) -> None:
        """Show ``lines`` (already literal where they hold result text); empty hides."""
        self.set_class(bool(lines), "-shown")
        self.update(Text("\n").join(lines) if lines else Text())
