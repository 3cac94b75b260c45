"""FilterInput: the text field that ``/`` focuses on a list screen.

It filters the list as you type (the screen listens to :class:`~textual.widgets.Input.Changed`),
``enter`` opens the first match (the screen listens to ``Input.Submitted``), ``down`` keeps
the filter and goes down into the list (:class:`FilterInput.Left`) and ``escape`` clears it
and gives the list back the focus (:class:`FilterInput.Cleared`), as ``/`` does in lazygit
and k9s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input


class FilterInput(Input):
    """An :class:`Input` whose ``escape`` clears the text and leaves the field."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear_filter", "Clear", tooltip="Clear the filter, back to the list"),
        Binding(
            "down",
            "cursor_down",
            "To the list",
            show=False,
            tooltip="Keep the filter, go to the list",
        ),
    ]

    @dataclass
    class Left(Message):
        """``down``: the filter stays; the list should take the focus."""

        filter_input: FilterInput

        @property
        def control(self) -> FilterInput:
            return self.filter_input

    def action_cursor_down(self) -> None:
        self.post_message(self.Left(self))

    @dataclass
    class Cleared(Message):
        """``escape``: the filter was emptied; the list should take the focus."""

        filter_input: FilterInput

        @property
        def control(self) -> FilterInput:
            return self.filter_input

    def action_clear_filter(self) -> None:
        self.value = ""
        self.post_message(self.Cleared(self))
