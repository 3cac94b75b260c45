"""Choose a what-if plan: re-read the run's attempts as k=1, avg@j / pass@j, or the other strategy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from inspector.engine.recomputation import Recomputation
from inspector.views.lottery import lottery, lottery_text
from inspector.views.tasks import PlanChoice


class WhatIfScreen(ModalScreen[PlanChoice | None]):
    """A list of the derived plans of the open run; **enter** compares one with the stored plan."""

    HELP = """\
# What-if plan
The plans the run's own attempts can be re-scored under: k=1 (attempt 1 only), avg@j and
pass@j on attempts 1..j for j < k, and the other strategy at k. The chosen plan is shown
beside the stored plan in the compare screen, labelled *derived*, with what it can claim:
under pass, attempts skipped after an early success were never run (not failures).
Above the list, the k=1 lottery: the k=1 value the run would have reported had each
attempt j been its only one (scored by the engine's k=1 rules), with min / max / mean,
beside the run's avg@k and pass@k.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without comparing"),
    ]

    DEFAULT_CSS = """
    WhatIfScreen {
        align: center middle;
    }
    WhatIfScreen > Vertical {
        width: 100;
        max-width: 95%;
        height: auto;
        max-height: 90%;
        border: thick $accent;
        background: $surface;
        padding: 0 1;
    }
    WhatIfScreen #whatif-title, WhatIfScreen #whatif-lottery {
        height: auto;
        margin-bottom: 1;
    }
    WhatIfScreen OptionList {
        height: auto;
        max-height: 16;
    }
    """

    def __init__(
        self, stored: str, choices: Sequence[PlanChoice], rec: Recomputation | None = None
    ) -> None:
        super().__init__()
        self.stored = stored
        self.choices = list(choices)
        self.rec = rec

    @property
    def option_list(self) -> OptionList:
        return self.query_one(OptionList)

    def compose(self) -> ComposeResult:
        with Vertical():
            title = Text()
            title.append(f"Compare the stored plan {self.stored} with", "bold")
            title.append("\nderived plans re-read the attempts this run has", "dim")
            if any("not equivalent" in c.hint for c in self.choices):
                title.append(
                    "\nnot equivalent: under pass, attempts after an early success were never "
                    "run; avg would count them as missing",
                    "dim",
                )
            yield Static(title, id="whatif-title")
            if self.rec is not None:
                yield Static(Text("k=1 on each attempt: computing…", "dim"), id="whatif-lottery")
            yield OptionList(
                *(
                    Option(
                        Text.assemble((c.label.ljust(8), "bold"), " ", (c.hint, "dim")), id=c.label
                    )
                    for c in self.choices
                )
            )
            yield Static(Text("enter: compare beside the stored plan · escape: cancel", "dim"),
                         id="whatif-keys")  # fmt: skip
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.option_list.highlighted = 0
        self.option_list.focus()
        if self.rec is not None:
            self._lottery(self.rec)

    @work(thread=True, exclusive=True, exit_on_error=False, group="lottery",
          description="k=1 on each attempt")  # fmt: skip
    def _lottery(self, rec: Recomputation) -> None:
        lines = [lottery_text(lot, rec.plan.strategy) for lot in lottery(rec)]
        self.app.call_from_thread(self._show_lottery, lines)

    def _show_lottery(self, lines: list[str]) -> None:
        text = Text()
        text.append("k=1 on each attempt (attempt j as if the only one):", "bold")
        for line in lines:
            text.append("\n")
            text.append(line)
        self.query_one("#whatif-lottery", Static).update(text)

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[event.option_index])

    def action_cancel(self) -> None:
        self.dismiss(None)
