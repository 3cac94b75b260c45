"""PlanPanel: the plan of a recomputation and where each part of it came from."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from inspector.engine.plan import Plan
from widgets.literal import one_line


class PlanPanel(Static):
    """k, strategy, aggregation, hierarchy and contract, each with its source."""

    HELP = """\
## Plan
How the run was recomputed: k, strategy, aggregation, hierarchy and metric contract, and
where each came from (run_info.json, built-in table, stored metrics.json, ...).
A derived (what-if) plan is labelled as such.
"""

    DEFAULT_CSS = """
    PlanPanel {
        height: auto;
        padding: 0 1;
    }
    """

    def show(self, plan: Plan, aggregation: str) -> None:
        """Describe ``plan``; ``aggregation`` is the report's (hierarchy wins)."""
        table = _Rows()
        sources = plan.sources
        contract = plan.contract
        metrics = ", ".join(
            f"{metric_id} ({spec.kind})" for metric_id, spec in contract.metrics.items()
        )
        table.add_row(
            "benchmark", one_line(plan.benchmark_id or "-"), one_line(sources.get("benchmark", ""))
        )
        table.add_row("model", one_line(plan.model_id or "-"), "")
        table.add_row("k", Text(str(plan.k)), one_line(sources.get("k", "")))
        table.add_row("strategy", Text(plan.strategy), one_line(sources.get("strategy", "")))
        table.add_row("aggregation", Text(aggregation), one_line(sources.get("aggregation", "")))
        table.add_row(
            "hierarchy",
            Text("yes" if plan.hierarchy else "none"),
            one_line(sources.get("hierarchy", "")),
        )
        table.add_row(
            "contract",
            one_line(f"primary {contract.primary_id}; {metrics}", max_chars=120),
            one_line(sources.get("contract", "")),
        )
        for key, value in sources.items():
            if key not in ("benchmark", "k", "strategy", "aggregation", "hierarchy", "contract"):
                table.add_row(one_line(key), Text(""), one_line(value))
        if plan.derived:
            table.add_row("derived", one_line(plan.derived), Text("what-if plan", "yellow"))
        self.update(table.table)


class _Rows:
    """A key column and a value column; the source goes under the value, dimmed."""

    def __init__(self) -> None:
        self.table = Table.grid(padding=(0, 1))
        self.table.add_column(style="bold", no_wrap=True)
        self.table.add_column(overflow="fold")

    def add_row(self, key: str | Text, value: Text, source: Text | str) -> None:
        cell = Text().append_text(value)
        source_text = source if isinstance(source, Text) else Text(source)
        if source_text.plain:
            cell.append("\n")
            cell.append_text(source_text)
            cell.stylize("dim", len(value.plain) + 1)
        self.table.add_row(key, cell)
