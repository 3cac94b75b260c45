"""The keys of a screen, read once from its bindings, for the help screen and the palette.

The footer shows the bindings; :func:`screen_keys` reads the same bindings (and the
screen's ``PALETTE`` titles for some of their actions), so the footer, the help screen and
the command palette name the same keys with the same words.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.dom import DOMNode
from textual.screen import Screen

from inspector.app.host import InspectorScreen


@dataclass(frozen=True)
class Key:
    """One active key of a screen."""

    shown: str
    """The key as the footer shows it (``x``, ``ctrl+f``, ``?``)."""
    description: str
    """The footer's word for it (``Export``)."""
    tooltip: str
    """What it does, in a sentence."""
    enabled: bool
    """False when greyed out (it does nothing here now)."""
    action: str
    node: DOMNode
    """Where the action runs (the screen, a widget or the app)."""
    palette_title: str | None = None
    """A command title of the screen's own for the key (``sort: next field``)."""

    def run(self) -> object:
        """Do what the key does."""
        return self.node.run_action(self.action)


def screen_keys(screen: Screen[object]) -> list[Key]:
    """Every key of ``screen`` that says what it does, in the footer's order."""
    titles = screen.PALETTE if isinstance(screen, InspectorScreen) else {}
    keys = []
    for active in screen.active_bindings.values():
        binding = active.binding
        if not binding.description and not binding.tooltip:
            continue
        keys.append(
            Key(
                shown=screen.app.get_key_display(binding),
                description=binding.description,
                tooltip=active.tooltip or binding.tooltip or "",
                enabled=active.enabled,
                action=binding.action,
                node=active.node,
                palette_title=titles.get(binding.action.split("(")[0]),
            )
        )
    return keys
