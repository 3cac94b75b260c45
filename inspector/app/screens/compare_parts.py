"""The compare screen's waterfall (``W``): where B − A of the series pair came from, its
parts computed in a worker (:func:`inspector.views.decomposition.decomposition_of`), a part
chosen listing its tasks (:mod:`inspector.app.screens.compare` lays the screen out)."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on, work
from textual.message import Message

from inspector.app.host import InspectorScreen
from inspector.views.compare import Comparison, SeriesPair, TaskChange
from inspector.views.decomposition import Decomposition, decomposition_of, part_count, part_name
from inspector.views.tasks import natural_key
from widgets.waterfall import Step, Waterfall

PART = "part"
"""The task filter of a waterfall step: the tasks of one part of the delta."""
NO_PARTS = (
    "no decomposition: this series is on one side only, has no value, or is a benchmark's "
    "own number"
)


@dataclass
class PartsReady(Message):
    """The decomposition of one series pair's delta (None: none), computed off the UI thread."""

    label: str
    parts: Decomposition | None


class PartsScreen(InspectorScreen):
    """What the compare screen does with its waterfall; the screen says how a part's tasks
    are listed (:meth:`list_part`)."""

    comparison: Comparison
    pair: SeriesPair

    def __init__(self) -> None:
        super().__init__()
        self._parts: dict[str, Decomposition | None] = {}
        self.part: tuple[str, frozenset[str]] = ("", frozenset())
        """The waterfall step whose tasks the PART filter lists: (its name, its task ids)."""

    @staticmethod
    def waterfall() -> Waterfall:
        """The widget, hidden until ``W``."""
        widget = Waterfall(id="compare-waterfall")
        widget.display = False
        return widget

    def part_tasks(self, pair: SeriesPair) -> tuple[TaskChange, ...]:
        """The aligned tasks of the chosen part (task id order, 5 before 13)."""
        ids = self.part[1]
        kept = (ch for ch in self.comparison.tasks(pair) if ch.task_id in ids)
        return tuple(sorted(kept, key=lambda ch: natural_key(ch.task_id)))

    def list_part(self) -> None:  # pragma: no cover - the screen lists the tasks
        raise NotImplementedError

    @work(thread=True, exclusive=True, exit_on_error=False, group="compare-parts",
          description="where the delta came from")  # fmt: skip
    def compute_parts(self, pair: SeriesPair) -> None:
        self.post_message(PartsReady(pair.label, decomposition_of(self.comparison, pair)))

    @on(PartsReady)
    def _parts_ready(self, message: PartsReady) -> None:
        self._parts[message.label] = message.parts
        if message.label == self.pair.label:
            self.show_waterfall()

    def show_waterfall(self) -> None:
        """The current pair's parts as a waterfall (when shown)."""
        waterfall = self.query_one(Waterfall)
        if not waterfall.display:
            return
        if self.pair.label not in self._parts:
            self.compute_parts(self.pair)
            return
        d = self._parts[self.pair.label]
        if d is None:
            waterfall.clear_options()
            waterfall.add_option(NO_PARTS)
            return
        steps = [Step(p.group, part_name(d, p), p.value, part_count(p)) for p in d.parts]
        waterfall.show(("A", d.a), steps, ("B", d.b), f"({d.method})")

    def action_waterfall(self) -> None:
        waterfall = self.query_one(Waterfall)
        waterfall.display = not waterfall.display
        if waterfall.display:
            self.show_waterfall()
            waterfall.focus()

    @on(Waterfall.StepChosen)
    def _step_chosen(self, message: Waterfall.StepChosen) -> None:
        d = self._parts.get(self.pair.label)
        part = next((p for p in d.parts if p.group == message.key), None) if d else None
        if d is None or part is None:
            return
        self.part = (part_name(d, part), frozenset(part.task_ids))
        self.list_part()
