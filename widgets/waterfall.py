"""Waterfall: a start value, the steps that move it, the end value — one selectable row a step.

``A  0.5278  │``, then per step ``name  +0.1389  ····▇▇▇▇  2 tasks``: each step's bar spans
from the running total before it to the running total after it, on one scale for all rows
(green rises, red falls), so the bars read left to right as the path from A to B.
Selecting a step (enter, click) posts :class:`Waterfall.StepChosen` with its key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from widgets.literal import one_line

BAR_CELLS = 24


@dataclass(frozen=True)
class Step:
    """One step: its key (for :class:`Waterfall.StepChosen`), label, amount and the text after."""

    key: str
    label: str
    value: float
    text: str


def _signed(value: float) -> str:
    text = f"{value:+.4g}"
    return "−" + text[1:] if text.startswith("-") else text


def _span(low: float, high: float, lo: float, scale: float, cells: int) -> tuple[int, int]:
    """The cells ``[start, end)`` of the interval ``[low, high]`` (at least one cell)."""
    if scale <= 0:
        return 0, 1
    start = min(cells - 1, int((low - lo) / scale * cells))
    end = max(start + 1, min(cells, round((high - lo) / scale * cells)))
    return start, end


class Waterfall(OptionList):
    """A start row, one option per step, an end row (the start and end rows are not
    selectable); it shows what it is given."""

    DEFAULT_CSS = """
    Waterfall, Waterfall:focus {
        height: auto;
        max-height: 8;
        border: none;
        padding: 0 1;
    }
    """

    @dataclass
    class StepChosen(Message):
        key: str

    def show(
        self,
        start: tuple[str, float],
        steps: Sequence[Step],
        end: tuple[str, float],
        note: str = "",
    ) -> None:
        """``start`` and ``end``: (label, value); ``note``: the text after the end row."""
        points = [start[1]]
        for step in steps:
            points.append(points[-1] + step.value)
        lo, hi = min([*points, end[1]]), max([*points, end[1]])
        scale = hi - lo
        width = max([len(start[0]), len(end[0]), *(len(s.label) for s in steps)])
        amounts = [f"{start[1]:.4g}", *(_signed(s.value) for s in steps), f"{end[1]:.4g}"]
        figure = max(len(a) for a in amounts)

        def row(label: str, amount: str, span: tuple[int, int], style: str, text: str) -> Text:
            line = one_line(label.ljust(width))
            line.append(f"  {amount:>{figure}}  ")
            first, last = span
            line.append("·" * first, "dim")
            line.append(("█" if style else "│") * (last - first), style or "bold")
            line.append("·" * (BAR_CELLS - last), "dim")
            if text:
                line.append("  ")
                line.append_text(one_line(text))
            return line

        def mark(value: float) -> tuple[int, int]:
            at = _span(value, value, lo, scale, BAR_CELLS)[0]
            return at, at + 1

        options: list[Option] = [
            Option(row(start[0], amounts[0], mark(start[1]), "", ""), disabled=True)
        ]
        for index, step in enumerate(steps):
            low, high = sorted((points[index], points[index + 1]))
            style = "green" if step.value > 0 else "red" if step.value < 0 else "dim"
            span = _span(low, high, lo, scale, BAR_CELLS)
            options.append(
                Option(row(step.label, amounts[index + 1], span, style, step.text), id=step.key)
            )
        options.append(Option(row(end[0], amounts[-1], mark(end[1]), "", note), disabled=True))
        self.clear_options()
        self.add_options(options)
        if steps:
            self.highlighted = 1

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.StepChosen(event.option.id))
