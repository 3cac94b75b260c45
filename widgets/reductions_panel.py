"""ReductionsPanel: how every series reduced one task, and why."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from inspector.engine.reduction import TaskReduction
from widgets.literal import literal
from widgets.task_table import STATE_STYLES


class ReductionsPanel(Static):
    """One row per series: state, value, has_error, coverage and the engine's reasons."""

    HELP = """\
## Reductions
For each series: the task's state and value, has_error, coverage (attempts recorded,
attempts with the metric, attempts with an ERROR/FATAL issue, of k), and the reasons the
engine gives for every state other than evaluated and for every has_error; *rule* names
a benchmark rule that made the value (a corpus formula, an evaluation-timeout fallback).
"""

    DEFAULT_CSS = """
    ReductionsPanel {
        height: auto;
        padding: 0 1;
    }
    """

    def show(
        self,
        reductions: Sequence[TaskReduction],
        format_value: Callable[[str, float | None], str],
        rules: Mapping[str, str] | None = None,
    ) -> None:
        """``rules``: per series id, the benchmark rule behind the value, said as a reason."""
        table = Table(expand=True, box=None, padding=(0, 1), header_style="bold")
        table.add_column("Series", no_wrap=True)
        table.add_column("State", no_wrap=True)
        table.add_column("Value", justify="right", no_wrap=True)
        table.add_column("has_error", no_wrap=True)
        table.add_column("Coverage", no_wrap=True, ratio=1)
        reasons_of = Text()
        for reduction in reductions:
            coverage = reduction.coverage
            cover = Text(
                f"{coverage.observed} rec · {coverage.valid} obs · {coverage.error} err / {coverage.requested}"
            )
            if reduction.early_stopped:
                cover.append(" · early stop", "dim")
            for reason in reduction.reasons:
                reasons_of.append("\n")
                reasons_of.append_text(literal(reduction.series_id))
                reasons_of.append(f" {reason.code}: ", "bold")
                reasons_of.append_text(literal(reason.text, max_chars=300))
            rule = (rules or {}).get(reduction.series_id)
            if rule:
                reasons_of.append("\n")
                reasons_of.append_text(literal(reduction.series_id))
                reasons_of.append(" rule: ", "bold yellow")
                reasons_of.append_text(literal(rule, max_chars=400))
            table.add_row(
                literal(reduction.series_id),
                Text(reduction.state, STATE_STYLES.get(reduction.state, "")),
                Text(format_value(reduction.series_id, reduction.value)),
                Text(
                    "yes" if reduction.has_error else "no", "red" if reduction.has_error else "dim"
                ),
                cover,
            )
        # The reasons under the table, a line each across the whole width: a column of
        # their own would wrap them a word per line on a narrow screen.
        if reasons_of:
            text = Text()
            text.append("\nReasons", "bold")
            text.append_text(reasons_of)
            self.update(Group(table, text))
        else:
            self.update(Group(table, Text("\nReasons: none (every series evaluated, no error)",
                                          "dim")))  # fmt: skip
