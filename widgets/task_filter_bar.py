"""TaskFilterBar: series, state / count, category, issue severity / phase / code, text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.events import Resize
from textual.message import Message
from textual.widgets import Input, Select

from inspector.views.audit import InCount, InState
from inspector.views.tasks import STATE_FILTERS, IssueChoices, TaskFilter
from widgets.filter_input import FilterInput
from widgets.literal import one_line

ALL_CATEGORIES = "\x00all"


def _value(select: Select[object]) -> str | None:
    value = select.value
    return value if isinstance(value, str) else None


NARROW = 120
"""Below this width the filters drop their borders (one row instead of three)."""

CHROME = {True: 3, False: 8}
"""Cells a select takes beside its label: compact (narrow) / with its border."""
LABEL_CAP = 36
"""No select asks for more than this many cells of label."""
TEXT_MIN = 14
"""What the text field keeps at least (10 below 100 columns)."""


def fit_widths(
    needs: dict[str, int], room: int, chosen: frozenset[str] = frozenset(), floor: int = 3
) -> dict[str, int]:
    """Label widths for the selects: what each label needs when they all fit ``room``;
    otherwise the widest are narrowed first, one cell at a time, down to ``floor`` — the
    prompts first, then the ``chosen`` ones (a value the user picked stays whole longest)."""
    widths = dict(needs)
    for group in ([k for k in widths if k not in chosen], [k for k in widths if k in chosen]):
        while group and sum(widths.values()) > room:
            widest = max(group, key=lambda key: widths[key])
            if widths[widest] <= floor:
                break
            widths[widest] -= 1
    return widths


class TaskFilterBar(Horizontal):
    """The filters of the tasks screen. Posts :class:`TaskFilterBar.Changed`.

    Below :data:`NARROW` columns the selects and the text field are compact (no border), so
    their labels keep the room the borders took.
    """

    HELP = """\
## Filters
Series, state or count, category, issue severity / phase / code, and text in the task id
or category. *count unavailable* is state error + state unavailable; *count error* is every
task with has_error, whatever its state.
"""

    DEFAULT_CSS = """
    TaskFilterBar {
        height: auto;
    }
    TaskFilterBar SelectCurrent Static#label {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    TaskFilterBar Input {
        width: 1fr;
        min-width: 10;
    }
    TaskFilterBar.-narrow Select, TaskFilterBar.-narrow Input {
        margin-right: 1;
    }
    /* The open list is wider than its narrow select, one line per choice: issue codes
       like evaluation_failed are never wrapped over three lines. */
    TaskFilterBar SelectOverlay {
        width: auto;
        min-width: 36;
        max-width: 70;
    }
    TaskFilterBar SelectOverlay > .option-list--option {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    @dataclass
    class Changed(Message):
        """The user changed a filter."""

        bar: TaskFilterBar
        task_filter: TaskFilter

    def __init__(
        self,
        series_ids: Sequence[str],
        choices: IssueChoices,
        task_filter: TaskFilter,
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._series_ids = list(series_ids)
        self._choices = choices
        self._filter = task_filter
        self._ready = False
        self._labels: dict[str, dict[object, int]] = {}
        """The width in cells of each select's labels by value (its prompt under NULL)."""

    @property
    def task_filter(self) -> TaskFilter:
        return self._filter

    def _select(
        self, options: Sequence[tuple[Text | str, object]], **kwargs: object
    ) -> Select[object]:
        """A Select of ``options``; the widths of its labels are kept for :meth:`_fit`."""
        widths: dict[object, int] = {
            value: (Text(label) if isinstance(label, str) else label).cell_len
            for label, value in options
        }
        widths[Select.NULL] = len(str(kwargs.get("prompt", "")))
        self._labels[str(kwargs["id"])] = widths
        return Select(options, **kwargs)  # type: ignore[arg-type]

    def compose(self) -> ComposeResult:
        f = self._filter
        yield self._select(
            [(one_line(s), s) for s in self._series_ids],
            value=f.series_id,
            allow_blank=False,
            id="series",
            tooltip="Series",
        )
        yield self._select(
            [(label, which) for which, label in STATE_FILTERS],
            value=f.state if f.state in dict(STATE_FILTERS) else Select.NULL,
            prompt="any state",
            id="state",
            tooltip="State or count",
        )
        categories: list[tuple[Text, str]] = [
            (one_line(c, max_chars=40), c) for c in self._choices.categories
        ]
        category_value: str | None = None
        if f.categories is not None:
            if len(f.categories) == 1:
                category_value = next(iter(f.categories))
            else:
                categories.insert(
                    0, (one_line(f"node {f.category_label}", max_chars=40), ALL_CATEGORIES)
                )
                category_value = ALL_CATEGORIES
        yield self._select(
            categories,
            value=category_value if category_value is not None else Select.NULL,
            prompt="category",
            id="category",
            tooltip="Category",
        )
        yield self._select(
            [(s, s) for s in self._choices.severities],
            value=f.severity or Select.NULL,
            prompt="severity",
            id="severity",
            tooltip="Issue severity",
        )
        yield self._select(
            [(p, p) for p in self._choices.phases],
            value=f.phase or Select.NULL,
            prompt="phase",
            id="phase",
            tooltip="Issue phase",
        )
        yield self._select(
            [(one_line(c, max_chars=40), c) for c in self._choices.codes],
            value=f.code or Select.NULL,
            prompt="code",
            id="code",
            tooltip="Issue code",
        )
        yield FilterInput(value=f.text, placeholder="/ text (id, category, reason, code)", id="text")

    def on_mount(self) -> None:
        self._ready = True

    def on_resize(self, event: Resize) -> None:
        narrow = event.size.width < NARROW
        for widget in self.query("Select, Input"):
            widget.compact = narrow  # type: ignore[attr-defined]
        self.set_class(narrow, "-narrow")
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        """Each select as wide as the label it shows needs (an issue code on one line, a
        prompt whole), narrowed widest first when they do not all fit; the text field
        takes the rest. The open list is wider (SelectOverlay above)."""
        if not width:
            return
        narrow = width < NARROW
        chrome = CHROME[narrow]
        selects = list(self.query(Select))
        margins = len(selects) + 1 if narrow else 0
        text = TEXT_MIN if width >= 100 else 10
        room = width - margins - text - chrome * len(selects)
        needs = {}
        chosen = frozenset(s.id or "" for s in selects if s.value is not Select.NULL)
        for select in selects:
            labels = self._labels.get(select.id or "", {})
            shown = labels.get(select.value, labels.get(Select.NULL, 8))
            needs[select.id or ""] = min(max(shown, 4), LABEL_CAP)
        widths = fit_widths(needs, room, chosen)
        for select in selects:
            select.styles.width = widths[select.id or ""] + chrome

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._fit(self.size.width)
        if not self._ready:
            return
        select = event.select
        value = _value(select)
        f = self._filter
        if select.id == "series" and value:
            f = f.with_changes(series_id=value)
        elif select.id == "state":
            chosen = select.value
            f = f.with_changes(state=chosen if isinstance(chosen, InCount | InState) else None)
        elif select.id == "category":
            if value == ALL_CATEGORIES:
                return
            f = f.with_changes(
                categories=frozenset({value}) if value is not None else None,
                category_label=value,
            )
        elif select.id in ("severity", "phase", "code"):
            f = f.with_changes(**{select.id: value})
        self._set(f)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._set(self._filter.with_changes(text=event.value.strip()))

    def _set(self, task_filter: TaskFilter) -> None:
        if task_filter != self._filter:
            self._filter = task_filter
            self.post_message(self.Changed(self, task_filter))
