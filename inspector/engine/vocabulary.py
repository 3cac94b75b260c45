"""The words of the audit, one name each: the four task states and the five counts.

A state is what AgentCompass's per-task reduction says of one task for one series; a count is
one of the five numbers a series carries in ``metrics.json`` (``counts``). ``error`` is both:
a state, and a count that overlaps the others (a task with an ERROR issue may still be
evaluated). Every module names them through these types and tuples, so a misspelt state
is a type error, not a filter that silently matches nothing.
"""

from __future__ import annotations

from typing import Final, Literal, TypeGuard

State = Literal["evaluated", "error", "unavailable", "invalidated"]
"""A task's state for one series (spec §6)."""

Count = Literal["total", "evaluated", "error", "unavailable", "invalidated"]
"""One of the five counts of a series, in ``metrics.json``'s ``counts``."""

EVALUATED: Final = "evaluated"
ERROR: Final = "error"
UNAVAILABLE: Final = "unavailable"
INVALIDATED: Final = "invalidated"
TOTAL: Final = "total"

STATES: Final[tuple[State, ...]] = (EVALUATED, ERROR, UNAVAILABLE, INVALIDATED)
"""Every state, in the order AgentCompass counts them."""

COUNTS: Final[tuple[Count, ...]] = (TOTAL, EVALUATED, ERROR, UNAVAILABLE, INVALIDATED)
"""The five counts, in ``metrics.json``'s order."""


def is_count(word: object) -> TypeGuard[Count]:
    """Whether ``word`` names a count."""
    return word in COUNTS


def plural(n: int, word: str) -> str:
    """``1 task``, ``2 tasks``, ``0 runs``: the one place a count gets its noun (every screen,
    command and flag reason says it through this)."""
    return f"{n} {word}{'' if n == 1 else 's'}"
