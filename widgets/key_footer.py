"""A footer that shows the keys that fit its width, and never hides the ones that must stay.

Textual's :class:`~textual.widgets.Footer` lays every key in a row and cuts what passes the
right edge, so at 80 columns ``? Help``, ``q Quit`` and ``esc Back`` (the app's keys, listed
last) fall off. :class:`KeyFooter` keeps the keys named in ``keep`` (those three) and the
command palette key, then the screen's main keys (the actions its ``FOOTER_KEYS`` names: the
runs screen's mark / compare / gate, say), then as many of the others as fit, in the
footer's order (the focused widget's keys, the screen's, the app's), the greyed-out ones
(they do nothing now) after all the others: the first key that does not fit and every key
after it are left out. The keys left out still work (they fold behind ``? Help``: the help
screen and the palette list them all).
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import ComposeResult
from textual.dom import NoScreen
from textual.events import Resize
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

KEPT_ACTIONS = frozenset({"help", "quit", "back"})
"""Actions whose keys the footer shows at every width: help, quit and the way back."""
MAIN_KEYS = "FOOTER_KEYS"
"""The screen's class attribute naming its main actions (a frozenset of action names): shown
after the kept keys and before any other, as long as they fit."""


class KeyFooter(Footer):
    """A :class:`Footer` that leaves out the keys that do not fit, never those in ``keep``."""

    def __init__(
        self,
        *,
        keep: Iterable[str] = KEPT_ACTIONS,
        show_command_palette: bool = True,
        id: str | None = None,
    ) -> None:
        super().__init__(show_command_palette=show_command_palette, id=id)
        self.keep = frozenset(keep)
        """The actions whose keys are always shown."""
        self._composed: tuple[object, ...] | None = None
        """What the keys on show were made from (:meth:`_keys_wanted`)."""
        self._widths: dict[FooterKey, int] = {}
        """The columns each key on show takes (:func:`_width`), once measured."""

    def _keys_wanted(self) -> tuple[object, ...] | None:
        """What :meth:`compose` makes the keys from: every binding of the screen with whether
        it works now and its tooltip (``None`` before the screen has its bindings)."""
        if not self._bindings_ready:
            return None
        bindings = tuple(
            (binding, enabled, tooltip)
            for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
        )
        return (self.show_command_palette, self.compact, bindings)

    async def recompose(self) -> None:
        """Make the keys again, unless they would be the same keys. Textual's footer makes
        them again on every change of focus and every refresh of the bindings; two times in
        three nothing has changed, and the keys were most of the app's restyling work."""
        if self.is_attached and self.children and self._composed is not None:
            try:
                if self._keys_wanted() == self._composed:
                    return
            except NoScreen:  # leaving with its screen: Textual's recompose does nothing then
                pass
        await super().recompose()

    def compose(self) -> ComposeResult:
        self._composed = self._keys_wanted()
        self._widths.clear()
        for widget in super().compose():
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                # Born with the style the footer binds it to. Textual's key starts compact
                # and is then bound to the footer's (not compact): a class added and removed
                # again, each restyling the key, for every key at every change of bindings.
                # (The palette key is not bound: it stays compact, as Textual makes it.)
                widget.set_reactive(FooterKey.compact, self.compact)
            yield widget
        self.call_after_refresh(self.fit_keys)

    def on_resize(self, event: Resize) -> None:
        self.call_after_refresh(self.fit_keys)

    @property
    def shown_keys(self) -> list[FooterKey]:
        """The keys on screen now, in the footer's order (the palette key last)."""
        return [key for key in self.query_children(FooterKey) if key.display]

    def fit_keys(self) -> None:
        """Show the kept keys and the longest run of the others, from the first, that fits
        (working keys before greyed-out ones)."""
        keys = list(self.query_children(FooterKey))
        docked = [key for key in keys if key.has_class("-command-palette")]
        kept = [key for key in keys if key.action in self.keep and key not in docked]
        others = [key for key in keys if key not in kept and key not in docked]
        others.sort(key=lambda key: key.has_class("-disabled"))  # stable sort
        widths = self._widths
        for key in keys:
            if key not in widths:  # each key measured once (its label is fixed)
                widths[key] = _width(key)
        room = self.size.width - sum(widths[key] for key in docked + kept)
        try:
            wanted = frozenset(getattr(self.screen, MAIN_KEYS, ()))
        except NoScreen:
            wanted = frozenset()
        main = [key for key in others if key.action in wanted]
        for key in main:
            key.display = widths[key] <= room
            if key.display:
                room -= widths[key]
        others = [key for key in others if key not in main]
        fits = True
        for key in others:
            fits = fits and widths[key] <= room
            key.display = fits
            if fits:
                room -= widths[key]
        for key in kept:
            key.display = True


def _width(key: FooterKey) -> int:
    """The columns ``key`` takes: its label, its padding and border, its margins."""
    return key.render().cell_len + key.styles.gutter.width + key.styles.margin.width
