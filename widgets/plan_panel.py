"""PlanPanel: the plan of a recomputation and where each part of it came from."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, ConsoleOptions, RenderResult
from rich.padding import Padding
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
Under the benchmark, its own rules that made values on screen (a corpus formula, the
fallback recorded when an evaluation times out) and the report's `extra` (dataset
revision, scoring note), as the result files hold them. A derived (what-if) plan is
labelled as such.
"""

    DEFAULT_CSS = """
    PlanPanel {
        height: auto;
        padding: 0 1;
    }
    """

    def show(
        self, plan: Plan, aggregation: str, rules: Sequence[tuple[str, str, str]] = ()
    ) -> None:
        """Describe ``plan``; ``aggregation`` is the report's (hierarchy wins); ``rules``
        are (key, value, source) rows of the benchmark's rules and the report's extra."""
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
        for key, value, source in rules:  # the benchmark's: next to it, not below the contract
            table.add_row(one_line(key), one_line(value, max_chars=300), one_line(source))
        table.add_row("k", Text(str(plan.k)), one_line(sources.get("k", "")))
        table.add_row("strategy", Text(plan.strategy), one_line(sources.get("strategy", "")))
        said = sources.get("aggregation", "")
        if aggregation != plan.aggregation:  # the hierarchy replaced the requested mode
            was = f"the default {plan.aggregation}" if said.startswith("default") else said
            said = f"from the hierarchy; replaces {was}"
        table.add_row("aggregation", Text(aggregation), one_line(said))
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
        self.update(table.text)


class _Rows:
    """Each key with its value, the source under them, dimmed and indented, laid out for
    the width the panel has: the value beside its key when both fit on a line, else under
    it; wrapped lines keep their indent, so a source path breaks at its own spaces, or
    after a dot inside a long name, instead of being folded inside a narrow column
    ("request.benchma / rk.id", "request.execution.attempt / s.k")."""

    KEY_WIDTH = 12

    def __init__(self) -> None:
        self.rows: list[tuple[str, Text, Text]] = []

    @property
    def text(self) -> _Rows:
        return self

    def add_row(self, key: str | Text, value: Text, source: Text | str) -> None:
        key_text = key.plain if isinstance(key, Text) else key
        self.rows.append((key_text, value, source if isinstance(source, Text) else Text(source)))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        for key, value, source in self.rows:
            if len(key) < self.KEY_WIDTH and self.KEY_WIDTH + value.cell_len <= width:
                yield Text.assemble((key.ljust(self.KEY_WIDTH - 1), "bold"), " ", value)
            else:
                yield Text(key, "bold")
                if value.plain:
                    yield Padding(broken(value, width - 2), (0, 0, 0, 2))
            if source.plain:
                source = broken(source, width - 2)
                source.stylize("dim")
                yield Padding(source, (0, 0, 0, 2))


BREAKS = " ./-_"
"""Where a line may break: at a space (dropped), or after a dot, slash, dash or underscore."""


def broken(text: Text, width: int) -> Text:
    """``text`` on lines of at most ``width`` cells, each broken at its last space, else
    after its last ``.``/``/``/``-``/``_`` ("request.execution." / "attempts.k", not
    "request.execution.attempt" / "s.k"), else where the line ends."""
    plain = text.plain
    width = max(1, width)
    lines: list[Text] = []
    start = 0
    while len(plain) - start > width:
        window = plain[start : start + width + 1]
        space = window.rfind(" ")
        if space > 0:
            lines.append(text[start : start + space])
            start += space + 1
            continue
        cut = max(window[:width].rfind(c) for c in BREAKS[1:]) + 1
        cut = cut if cut > 0 else width
        lines.append(text[start : start + cut])
        start += cut
    lines.append(text[start:])
    out = Text("\n").join(lines)
    out.overflow = "fold"  # a line of wide characters longer than it looks still folds
    return out
