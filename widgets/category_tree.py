"""CategoryTree: a series' hierarchy or categories, per node its value, counts and weight."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from inspector.engine.hierarchy import HierarchyNode, node_weights
from inspector.engine.render import format_value
from inspector.engine.report import MetricBreakdown, MetricSeries
from widgets.literal import cut_middle, literal

NAME_WIDTH = 26
"""The node column's width (with the tree's guides) when the tree's width is not known."""
FIXED_WIDTH = 9 + 8 + 5 * 5
"""The value, its 95% interval and the five counts after the name: they never fold."""
WEIGHTS_WIDTH = 3 * 6 + 11
"""aggw, wght, share and the aggregation: shown when the tree is wide enough."""
AGGREGATION_WIDTH = 11
"""The aggregation column, the first to go so that names stay whole (the plan panel and
the explain screen name it too)."""
MIN_NAME = 24
EXPANDER_WIDTH = 2
SHORT_AGGREGATIONS = {"leaf": "", "weighted_by_count": "by_count"}
GUIDE_WIDTH = 3
INTERVAL_WIDTH = 7
REFERENCE_STYLE = "italic yellow"


@dataclass(frozen=True)
class NodeData:
    """What a tree node stands for: a hierarchy node or a category, and its category keys.

    ``path`` is set on hierarchy nodes and ``category`` on category leaves; a group of
    categories (all of them, those outside the hierarchy) has neither.
    """

    label: str
    categories: frozenset[str]
    path: str | None = None
    category: str | None = None


def node_line(data: NodeData | None) -> Text:
    """The node under the cursor in full, for a status line (its name may be cut above)."""
    text = Text()
    if data is not None:
        text.append_text(literal(data.path or data.label))
        if data.category is None:
            n = len(data.categories)
            text.append(f" · {n} {'category' if n == 1 else 'categories'}", "dim")
        text.append(" · enter: its tasks · l: ledger · h: explain", "dim")
    return text


def _cell(text: str, width: int, style: str = "") -> Text:
    return Text(text.rjust(width)[:width] + " ", style)


def node_row(
    name: str,
    indent: int,
    part: MetricBreakdown | None,
    series: MetricSeries,
    *,
    weight: str = "",
    share: str = "",
    aggregation: str = "",
    interval: str = "",
    name_width: int = NAME_WIDTH,
    weights: int = 2,
) -> Text:
    """One tree label laid out in columns that line up whatever the indent.

    ``indent`` is where the tree starts the label: guides plus the expander of a branch.
    A name longer than its column is cut in the middle (``build-and-…-management``);
    ``weights``: 2 the weight and aggregation columns, 1 the weights only, 0 neither.
    """
    width = max(8, name_width - indent)
    label = cut_middle(literal(name), width)
    label.truncate(width, overflow="ellipsis", pad=True)
    row = Text()
    row.append_text(label)
    row.append(" ")
    if part is None:
        row.append_text(_cell("-", 8, "dim"))
        row.append_text(_cell("", INTERVAL_WIDTH))
        counts = ("",) * 5
    else:
        if part.value is not None:
            row.append_text(_cell(format_value(part.value, series), 8, "bold"))
        elif part.reference_value is not None:
            row.append_text(
                _cell(format_value(part.reference_value, series) + "ʳ", 8, REFERENCE_STYLE)
            )
        else:
            row.append_text(_cell("-", 8, "dim"))
        row.append_text(_cell(interval, INTERVAL_WIDTH, "dim"))
        c = part.counts
        counts = tuple(
            str(v) for v in (c.total, c.evaluated, c.error, c.unavailable, c.invalidated)
        )
    for value in counts:
        row.append_text(_cell(value, 4))
    if not weights:
        return row
    agg_weight = (
        "" if part is None or part.aggregation_weight is None else f"{part.aggregation_weight:g}"
    )
    row.append_text(_cell(agg_weight, 5))
    row.append_text(_cell(weight, 5))
    row.append_text(_cell(share, 5))
    if weights > 1:
        row.append(" " + SHORT_AGGREGATIONS.get(aggregation, aggregation), "dim")
    return row


def header_row(name_width: int = NAME_WIDTH, weights: int = 2) -> Text:
    row = Text(style="bold")
    row.append("node".ljust(name_width - EXPANDER_WIDTH) + " ")
    row.append("value".rjust(8) + " ")
    row.append("95% CI".rjust(INTERVAL_WIDTH) + " ")
    for name in ("tot", "eval", "err", "unav", "inv"):
        row.append(name.rjust(4) + " ")
    if not weights:
        return row
    row.append("aggw".rjust(5) + " ")
    row.append("wght".rjust(5) + " ")
    row.append("share".rjust(5) + " ")
    if weights > 1:
        row.append(" aggregation")
    return row


def category_interval_key(category: str) -> str:
    """The key of a category's interval text (hierarchy nodes use their path)."""
    return f"category:{category}"


def indent_of(depth: int, branch: bool) -> int:
    """Columns the tree draws before a label at ``depth`` (root = 0)."""
    return GUIDE_WIDTH * depth + (EXPANDER_WIDTH if branch else 0)


def name_need(series: MetricSeries, root: HierarchyNode | None) -> int:
    """The name column's width that shows every node and category name whole."""
    need = [len(key) + indent_of(2, False) for key in series.categories]
    if root is not None and series.hierarchy:
        need.extend(
            len(node.name) + indent_of(node.path.count("/") + 1, not node.is_leaf)
            for node in root.walk()
        )
    return max(need, default=0)


class CategoryTree(Tree[NodeData | None]):
    """The hierarchy of the selected series (when the run has one) and its flat categories.

    Columns: value (ʳ marks a reference value), ``95% CI`` (its interval's bounds, ``.54–.99``),
    the five counts, aggregation_weight
    (``aggw``), the configured weight (``wght``), the share after re-normalisation among
    valued siblings, and the node's aggregation. **enter** lists the tasks under a node.
    """

    HELP = """\
## Categories
Per node: value (ʳ = reference value), `95% CI` (its 95% interval, `.54–.99`), counts
total / evaluated / error / unavailable / invalidated, `aggw` (aggregation_weight), the
configured weight `wght`, the `share` the node gets after re-normalisation among its valued
siblings, and the node's aggregation.
Categories that no hierarchy leaf names count in the series but not in `overall`.
Press **enter** on a node to list its tasks.
"""

    DEFAULT_CSS = """
    CategoryTree {
        height: 1fr;
        min-height: 6;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose", "Open node", tooltip="List the tasks under this node"),
    ]

    @dataclass
    class NodeChosen(Message):
        """The user asked for the tasks under a node."""

        tree: CategoryTree
        series_id: str
        data: NodeData

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(header_row(), data=None, id=id)
        self.guide_depth = GUIDE_WIDTH
        self._series_id = ""
        self._intervals: Mapping[str, str] = {}
        self._shown: tuple[MetricSeries, HierarchyNode | None, Mapping[str, str]] | None = None
        self._layout: tuple[int, int] = (NAME_WIDTH, 2)
        self._name_need = MIN_NAME
        """The name column that shows every name of the tree whole (its indent included)."""

    def show(
        self,
        series: MetricSeries,
        root: HierarchyNode | None,
        intervals: Mapping[str, str] | None = None,
    ) -> None:
        """Rebuild the tree for ``series``; ``root`` is the plan's hierarchy, if any.

        ``intervals``: the text of the ``95% CI`` column per hierarchy path and per
        ``category:<key>`` (see :func:`category_interval_key`). Rebuilt for the same
        series (a reload, new intervals), the cursor stays on the node it was on.
        """
        keep = self.node_data if series.series_id == self._series_id else None
        self._series_id = series.series_id
        self._intervals = intervals or {}
        self._shown = (series, root, self._intervals)
        self._name_need = name_need(series, root)
        self._layout = self._fit(self.size.width)
        self.clear()
        self.root.set_label(header_row(*self._layout))
        self.root.expand()
        if root is not None and series.hierarchy:
            self._add_hierarchy(self.root, root, series, 1, "")
            named = {n.name for n in root.walk() if n.is_leaf}
            outside = [key for key in series.categories if key not in named]
            if outside:
                group = self.root.add(
                    Text("categories outside the hierarchy", "italic"),
                    data=NodeData("outside the hierarchy", frozenset(outside)),
                    expand=True,
                )
                self._add_categories(group, series, outside, 2)
        flat = self.root.add(
            Text(f"categories ({len(series.categories)})", "italic"),
            data=NodeData("all categories", frozenset(series.categories)),
            expand=root is None or not series.hierarchy,
        )
        self._add_categories(flat, series, list(series.categories), 2)
        self.move_cursor_to_line(self._line_of(keep) if keep is not None else 1)

    def _fit(self, width: int) -> tuple[int, int]:
        """The name column's width and which weight columns fit in ``width`` (2, 1, 0 as
        :func:`node_row`): the aggregation goes first when names would be cut."""
        if width <= 0:
            return NAME_WIDTH, 2
        room = width - 3 - FIXED_WIDTH  # the scrollbar and a space
        whole = max(MIN_NAME, self._name_need)
        if room - WEIGHTS_WIDTH >= whole:
            return room - WEIGHTS_WIDTH, 2
        if room - WEIGHTS_WIDTH + AGGREGATION_WIDTH >= whole:
            return room - WEIGHTS_WIDTH + AGGREGATION_WIDTH, 1
        weights = 2 if room - WEIGHTS_WIDTH >= MIN_NAME else 0
        return max(MIN_NAME, room - (WEIGHTS_WIDTH if weights else 0)), weights

    def on_resize(self) -> None:
        shown = self._shown
        if shown is not None and self._fit(self.size.width) != self._layout:
            self.show(*shown)

    def _line_of(self, data: NodeData) -> int:
        """The line of the node standing for the same thing as ``data`` (else line 1)."""
        for line in range(self.last_line + 1):
            node = self.get_node_at_line(line)
            if node is not None and node.data == data:
                return line
        return 1

    def _add_hierarchy(
        self,
        parent: TreeNode[NodeData | None],
        node: HierarchyNode,
        series: MetricSeries,
        depth: int,
        share: str,
    ) -> None:
        part = series.hierarchy.get(node.path)
        weight = "" if node.weight is None else f"{node.weight:g}"
        data = NodeData(node.path, frozenset(n.name for n in node.walk() if n.is_leaf), node.path)
        label = node_row(
            node.name,
            indent_of(depth, not node.is_leaf),
            part,
            series,
            weight=weight,
            share=share,
            aggregation=node.aggregation,
            interval=self._intervals.get(node.path, ""),
            name_width=self._layout[0],
            weights=self._layout[1],
        )
        if node.is_leaf:
            parent.add_leaf(label, data=data)
            return
        branch = parent.add(label, data=data, expand=True)
        shares: Mapping[str, float] = node_weights(node, series.hierarchy)
        for child in node.children:
            child_share = f"{shares[child.path]:.3f}" if child.path in shares else ""
            self._add_hierarchy(branch, child, series, depth + 1, child_share)

    def _add_categories(
        self,
        parent: TreeNode[NodeData | None],
        series: MetricSeries,
        keys: list[str],
        depth: int,
    ) -> None:
        for key in keys:
            interval = self._intervals.get(category_interval_key(key), "")
            part = series.categories.get(key)
            parent.add_leaf(
                node_row(
                    key,
                    indent_of(depth, False),
                    part,
                    series,
                    interval=interval,
                    name_width=self._layout[0],
                    weights=self._layout[1],
                ),
                data=NodeData(key, frozenset({key}), category=key),
            )

    @property
    def node_data(self) -> NodeData | None:
        """What the node under the cursor stands for (None on the header row)."""
        node = self.cursor_node
        return None if node is None else node.data

    def action_choose(self) -> None:
        node = self.cursor_node
        if node is None or node.data is None:
            return
        self.post_message(self.NodeChosen(self, self._series_id, node.data))
