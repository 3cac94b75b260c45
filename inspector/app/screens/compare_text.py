"""What the compare screen writes: the sides' names and value headers, the series cells,
the task filters and the columns of the aligned tasks (:mod:`inspector.app.screens.compare`
lays them out), and the messages its workers post."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.message import Message

from inspector.app.titles import middle, plural
from inspector.engine.render import REFERENCE_MARK
from inspector.engine.report import MetricSeries
from inspector.views.changes import delta_text
from inspector.views.compare import PLANS, Comparison, PairedStats, SeriesPair, TaskChange
from inspector.views.stats import Interval
from inspector.views.text_cells import number_text
from widgets.literal import literal, literal_plain
from widgets.record_table import Field
from widgets.virtual_table import Column

SIDE_LABEL_CHARS = 28
"""A value column's header keeps this much of its side's label, cut in the middle."""
NARROW_SIDE_LABEL_CHARS = 12
"""The same below 120 columns (the end of a run folder stays: ``qwen3…000003``)."""
SUBTITLE_SIDE_CHARS = 46
"""The sub-title keeps this much of each side's name (its parts are cut at 48)."""
TINY_SIDE_LABEL_CHARS = 7
"""The same below 100 columns: still which run (``q…00003``, see :func:`short_side`)."""
SERIES_CELLS = {120: None, 100: 24, 0: 18}
"""The series column's width from a screen width on (None: whole); below 100 columns the
value headers keep 7 characters of their sides' names (the lines above name the sides in
full), so every column of the series table, counts included, fits without scrolling
sideways."""


def short_side(label: str, other: str, chars: int) -> str:
    """``label`` in ``chars`` characters, cut so that what tells it from ``other`` stays:
    runs whose folders differ only at the end keep the end (``q…00003``), names that differ
    in the middle keep the middle (``…alpha…`` beside ``…bravo…``), others are cut in the
    middle."""
    if len(label) <= chars:
        return label
    tail = chars - 2
    if label[-tail:] != other[-tail:]:
        return f"{label[:1]}…{label[-tail:]}"
    cut = middle(label, chars)
    if cut != middle(other, chars):
        return cut
    differ = next((i for i, (x, y) in enumerate(zip(label, other, strict=False)) if x != y), None)
    if differ is None:
        return cut
    start = max(0, min(differ, len(label) - (chars - 1)))
    inner = chars - (start > 0)
    end = start + inner
    if end < len(label):
        end -= 1
    return ("…" if start else "") + label[start:end] + ("…" if end < len(label) else "")


def side_name(label: str, line: int) -> str:
    """A side's name whole, on two lines of ``line`` characters at most (the second under
    the first), cut in the middle past that: a run folder's end is what tells sides apart."""
    name = middle(literal_plain(label), 2 * line)
    if len(name) <= line:
        return name
    return f"{name[:line]}\n   {name[line:]}"


def series_cells(width: int) -> int | None:
    return next(cells for least, cells in SERIES_CELLS.items() if width >= least)


FILTERS = ("changes", "flips", "states", "all")
"""Task filters (``ctrl+f``): every changed task (default: a flip, a state, a value or
has_error that differs, or a task on one side only), flips only, state changes only, every
task. ``D`` lists the moved tasks (:data:`MOVED`)."""
MOVED = "moved"
"""The discordant pairs: exactly the tasks on both sides that moved, grouped by kind."""

FILTER_LABELS = {
    MOVED: "moved, grouped by kind",
    "changes": "changed (flips, states, values)",
    "flips": "flips 0→1 / 1→0",
    "states": "state changes",
    "all": "all tasks",
}


__all__ = ["delta_text"]


def value_cell(series: MetricSeries | None) -> Text:
    """The shown value of one side, marked when it is the reference value of a failed
    evaluation (as the overview marks it)."""
    if series is None:
        return Text("—")
    if series.value is None and series.reference_value is not None:
        return Text(f"{series.reference_value:.6g}{REFERENCE_MARK}", "italic yellow")
    return Text(number_text(series.value))


def counts_text(series: MetricSeries | None) -> str:
    if series is None:
        return "—"
    n = series.counts
    return f"{n.total}/{n.evaluated}/{n.error}/{n.unavailable}/{n.invalidated}"


CHANGE_FIELDS: tuple[Field[TaskChange], ...] = (
    Field("task", "task", lambda change: change.task_id, shrink=18, cut="middle"),
    Field("change", "change", lambda change: change.kind),
    Field("state_a", "A state", lambda change: change.state_a or "—"),
    Field("value_a", "A value", lambda change: number_text(change.value_a)),
    Field("state_b", "B state", lambda change: change.state_b or "—"),
    Field("value_b", "B value", lambda change: number_text(change.value_b)),
)


def kept_by(change: TaskChange, task_filter: str) -> bool:
    if task_filter == MOVED:
        return change.changed
    if task_filter == "all":
        return True
    if task_filter == "flips":
        return change.flip is not None
    if task_filter == "states":
        return change.state_changed or change.a is None or change.b is None
    return change.changed or change.a is None or change.b is None


def side_label(c: Comparison, side: str, width: int) -> Text:
    """A value column's header: ``A avg@3`` / ``B k=1 (derived)`` / ``A <run>``."""
    label, other = (c.label_a, c.label_b) if side == "A" else (c.label_b, c.label_a)
    label, other = literal_plain(label), literal_plain(other)
    if width >= 120:
        return Text(f"{side} {short_side(label, other, SIDE_LABEL_CHARS)}")
    if width >= 100:
        return Text(f"{side} {short_side(label, other, NARROW_SIDE_LABEL_CHARS)}")
    # the line above says "(derived)"; the header keeps the plan: "B k=1"
    label = label.removesuffix(" (derived)")
    return Text(f"{side} {short_side(label, other, TINY_SIDE_LABEL_CHARS)}")


def sides_text(c: Comparison, width: int, short: bool = False) -> Text:
    """The lines above the tables: each side's full name (``short``: below 30 rows, on one
    line, keeping where it differs from the other's), its warnings and notes, the tasks on
    one side only, and what the counts columns hold."""
    text = Text()
    line = max(24, width - 5)  # "A: " and the padding
    for side, label, rec in (("A", c.label_a, c.a), ("B", c.label_b, c.b)):
        other = c.label_b if side == "A" else c.label_a
        text.append("A: " if side == "A" else "\nB: ", "bold")
        if short:
            text.append(short_side(literal_plain(label), literal_plain(other), line))
        else:
            text.append(side_name(label, line))
        if c.kind == PLANS and not rec.plan.derived:
            text.append(" (the stored plan)", "dim")
        if c.derivation is not None and c.derived_side == side:
            _equivalence(c, text)
    for warning in c.warnings:
        text.append("\n⚠ ", "bold yellow")
        text.append_text(literal(warning))
    if c.warnings:
        text.append("\n  (the numbers below are not like for like)", "yellow")
    for note in c.notes:
        text.append("\n• ")
        text.append_text(literal(note))
    for side, ids in (("A", c.only_a), ("B", c.only_b)):
        if ids and not c.warnings:
            text.append(f"\n{plural(len(ids), 'task')} only in {side}")
    text.append("\ncounts: total/evaluated/error/unavailable/invalidated", "dim")
    return text


def _equivalence(c: Comparison, text: Text) -> None:
    derivation = c.derivation
    assert derivation is not None
    equivalent = derivation.equivalent
    text.append(
        " · equivalent to having run it: " + ("yes" if equivalent else "no"),
        "bold" if equivalent else "bold yellow",
    )


@dataclass
class StatsReady(Message):
    """Paired statistics for one series pair were computed off the UI thread."""

    label: str
    stats: PairedStats


@dataclass
class SideIntervals(Message):
    """Each side's 95% interval: (series row, "a" / "b") → (the side's series, interval)."""

    intervals: dict[tuple[int, str], tuple[MetricSeries, Interval]]


@dataclass
class ChangesListed(Message):
    """The aligned tasks of a series pair passing a filter (picked in a worker), with the
    columns they need."""

    pair: SeriesPair
    task_filter: str
    changes: tuple[TaskChange, ...]
    columns: tuple[Column, ...]
