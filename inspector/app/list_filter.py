"""``/`` on a list screen: filter as you type, ``enter`` opens the first match, ``escape``
clears and gives the list back the focus (as ``/`` does in lazygit and k9s).

:class:`FilteredList` is the base of the list screens that have no filter of their own (the
flaky tasks, the issues); it owns the one :class:`~widgets.filter_input.FilterInput` of the
screen (class ``list-find``, hidden until ``/``) and asks the screen for the rest:
:meth:`~FilteredList.refilter` (show the rows holding :attr:`~FilteredList.needle`),
:meth:`~FilteredList.open_first` and :meth:`~FilteredList.list_widget`.
"""

from __future__ import annotations

from textual import on
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Input

from inspector.app.host import InspectorScreen
from widgets.filter_input import FilterInput

FIND = Binding(
    "slash",
    "find",
    "Find",
    tooltip="Filter as you type; enter opens the first match, escape clears",
)


def holds(needle: str, *texts: str) -> bool:
    """Whether any of ``texts`` holds ``needle`` (already case-folded), ignoring case."""
    return not needle or any(needle in text.casefold() for text in texts)


class FilteredList(InspectorScreen):
    """A list screen with ``/``: compose :meth:`filter_input` where the field should sit."""

    def filter_input(self, placeholder: str) -> FilterInput:
        """The field ``/`` focuses, hidden until then."""
        field = FilterInput(placeholder=placeholder, classes="list-find")
        field.display = False
        return field

    @property
    def needle(self) -> str:
        """The filter's text, case-folded ("" when there is no filter)."""
        return self.query_one(".list-find", FilterInput).value.strip().casefold()

    def refilter(self) -> None:
        """Show the rows that hold :attr:`needle`."""
        raise NotImplementedError

    def open_first(self) -> None:
        """Open the first row shown (``enter`` in the field)."""
        raise NotImplementedError

    def list_widget(self) -> Widget:
        """The list the filter narrows (it takes the focus back on ``escape``)."""
        raise NotImplementedError

    def action_find(self) -> None:
        field = self.query_one(".list-find", FilterInput)
        field.display = True
        field.focus()

    @on(Input.Changed, ".list-find")
    def _find_changed(self) -> None:
        self.refilter()

    @on(Input.Submitted, ".list-find")
    def _find_submitted(self) -> None:
        self.open_first()

    @on(FilterInput.Cleared, ".list-find")
    def _find_cleared(self) -> None:
        self.query_one(".list-find", FilterInput).display = False
        self.list_widget().focus()

    @on(FilterInput.Left, ".list-find")
    def _find_left(self) -> None:
        self.list_widget().focus()
