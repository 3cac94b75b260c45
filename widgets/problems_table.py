"""ProblemsTable: the load problems of a run, one row each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from inspector.results.problems import LoadProblem
from widgets._table import ListTable, refresh_header
from widgets.literal import cut_middle, literal, one_line

PATH_CELLS = 40
"""A path is cut in the middle past this (its end names the file)."""


def problem_text(problem: LoadProblem, where: str) -> Text:
    """One problem in full: the file (``where``), what is wrong, the rule, its effect."""
    text = Text()
    for label, value in (
        ("file", where),
        ("problem", problem.message),
        ("rule", problem.rule),
        ("effect", effect_text(problem.effect).plain),
    ):
        text.append(f"{label:8}", "bold")
        text.append_text(literal(value, multiline=True, max_chars=4000))
        text.append("\n")
    text.append("o: read the file in $PAGER · escape: close", "dim")
    return text


EFFECT_STYLES = {"refuses run": "bold red", "skipped": "yellow", "noted": "dim"}

EFFECT_WORDS = {
    "refuses run": "AgentCompass would refuse the run",
    "skipped": "not used",
    "noted": "still used",
}
"""What each effect means for the file, said in the title and in each row."""


def effect_text(effect: str) -> Text:
    """An effect and what it means for the file: ``skipped: not used``, ``noted: still used``."""
    words = EFFECT_WORDS.get(effect)
    return Text(f"{effect}: {words}" if words else effect, EFFECT_STYLES.get(effect, ""))


def problems_title(problems: Sequence[LoadProblem]) -> str:
    """``Load problems (2) — 1 skipped: not used · 1 noted: still used; press p to browse``."""
    counts: dict[str, int] = {}
    for problem in problems:
        counts[problem.effect] = counts.get(problem.effect, 0) + 1
    said = " · ".join(
        f"{n} {effect}: {EFFECT_WORDS.get(effect, '')}" for effect, n in counts.items()
    )
    return f"Load problems ({len(problems)}) — {said}; press p to browse"


class ProblemsTable(ListTable[Text]):
    """Every file the reader could not use: path, what is wrong, the rule, and whether
    AgentCompass would refuse the whole run because of it."""

    HELP = """\
## Load problems
Each unreadable or invalid file of the run. *refuses run* means AgentCompass itself would
refuse to load the run; *skipped*: the file or task is left out, the other tasks are still
shown; *noted*: the file is still read (a v2 `run_info.json`). **enter** shows a problem
in full.
"""

    @dataclass
    class ProblemChosen(Message):
        """The user pressed enter on a problem."""

        table: ProblemsTable
        problem: LoadProblem

    DEFAULT_CSS = """
    ProblemsTable {
        height: auto;
        max-height: 8;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.problems: list[LoadProblem] = []

    def on_mount(self) -> None:
        # the file before what is wrong with it: a long message must not push the path
        # off-screen (enter shows the problem in full)
        self.add_column("Effect", key="effect")
        self.add_column("Path", key="path")
        self.add_column("Problem", key="message")
        self.add_column("Rule", key="rule")

    def show(self, problems: Sequence[LoadProblem]) -> None:
        self.clear()
        self.problems = list(problems)
        for problem in problems:
            self.add_row(
                effect_text(problem.effect),
                cut_middle(one_line(problem.path or ".", max_chars=500), PATH_CELLS),
                one_line(problem.message, max_chars=90),
                one_line(problem.rule, max_chars=60),
            )
        refresh_header(self)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if 0 <= event.cursor_row < len(self.problems):
            self.post_message(self.ProblemChosen(self, self.problems[event.cursor_row]))
