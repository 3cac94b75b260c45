"""ProblemsTable: the load problems of a run, one row each."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import DataTable

from inspector.results import LoadProblem
from widgets._table import refresh_header
from widgets.literal import one_line


class ProblemsTable(DataTable[Text]):
    """Every file the reader could not use: path, what is wrong, the rule, and whether
    AgentCompass would refuse the whole run because of it."""

    HELP = """\
## Load problems
Each unreadable or invalid file of the run. *refuses run* means AgentCompass itself would
refuse to load the run; the other tasks are still shown.
"""

    DEFAULT_CSS = """
    ProblemsTable {
        height: auto;
        max-height: 8;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.add_column("Effect", key="effect")
        self.add_column("Problem", key="message")
        self.add_column("Path", key="path")
        self.add_column("Rule", key="rule")

    def show(self, problems: Sequence[LoadProblem]) -> None:
        self.clear()
        for problem in problems:
            self.add_row(
                Text("refuses run", "bold red") if problem.blocking else Text("skipped", "yellow"),
                one_line(problem.message, max_chars=90),
                one_line(problem.path or ".", max_chars=50),
                one_line(problem.rule, max_chars=60),
            )
        refresh_header(self)
