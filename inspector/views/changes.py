"""One task of a comparison, its side by set membership, and what "changed" means.

Pure (no textual, no rich, no I/O). :mod:`inspector.views.compare` aligns two sides and
makes one :class:`TaskChange` per task id of either side; everything that lists, counts or
exports changes (the compare screen, ``inspector diff``) reads them from here.

**Change means change.** AgentCompass reports a value with its series' ``display.precision``
decimals (default 4; ``summary.md``, spec §8.3). Two values are *the same* when they are
equal at that precision — ``round(a, p) == round(b, p)``, which is exactly "summary.md
prints the same digits" (a negative zero aside) — so float noise such as ``0.9`` against
``0.8999999999999999`` is no change, and a difference is never shown as ``1.388e-17``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.engine.reduction import TaskReduction
from inspector.engine.vocabulary import plural

DEFAULT_PRECISION = 4
"""AgentCompass's decimals for a value whose series sets no ``display.precision``."""


def precision_of(display: Any) -> int:
    """The decimals AgentCompass reports a series' values with (``summary.md``)."""
    precision = getattr(display, "precision", None)
    return precision if isinstance(precision, int) and precision >= 0 else DEFAULT_PRECISION


def same_value(a: float | None, b: float | None, precision: int = DEFAULT_PRECISION) -> bool:
    """Equal as AgentCompass reports them: both null, or equal at ``precision`` decimals."""
    if a is None or b is None:
        return a is None and b is None
    return round(a, precision) == round(b, precision)


def difference(
    a: float | None, b: float | None, precision: int = DEFAULT_PRECISION
) -> float | None:
    """B − A; exactly 0.0 when the two are the same at the reported precision."""
    if a is None or b is None:
        return None
    return 0.0 if same_value(a, b, precision) else b - a


def delta_text(delta: float | None) -> str:
    """A difference for the eye: ``—`` for none, ``0`` for no change, else signed."""
    if delta is None:
        return "—"
    return "0" if delta == 0 else f"{delta:+.4g}"


@dataclass(frozen=True, slots=True)
class TaskChange:
    """One task id of either side, for one series pair.

    ``in_a`` / ``in_b``: the task id is among side A's / side B's tasks (set membership,
    never a missing row: a series present on one side only has no rows on the other).
    """

    task_id: str
    a: TaskReduction | None
    b: TaskReduction | None
    # The pair's series are binary: only then is a 0 → 1 change a flip.
    binary: bool = True
    in_a: bool = True
    in_b: bool = True
    precision: int = DEFAULT_PRECISION

    @property
    def state_a(self) -> str | None:
        return self.a.state if self.a else None

    @property
    def state_b(self) -> str | None:
        return self.b.state if self.b else None

    @property
    def value_a(self) -> float | None:
        return self.a.value if self.a else None

    @property
    def value_b(self) -> float | None:
        return self.b.value if self.b else None

    @property
    def on_both(self) -> bool:
        """The task has a reduction on both sides (both sides have the task and the series)."""
        return self.a is not None and self.b is not None

    @property
    def state_changed(self) -> bool:
        return self.on_both and self.state_a != self.state_b

    @property
    def error_changed(self) -> bool:
        return self.a is not None and self.b is not None and self.a.has_error != self.b.has_error

    @property
    def value_changed(self) -> bool:
        return self.on_both and not same_value(self.value_a, self.value_b, self.precision)

    @property
    def flip(self) -> str | None:
        """``"0→1"`` or ``"1→0"`` when both sides are evaluated binary values that differ."""
        if not self.binary or not self.value_changed or self.value_a not in (0.0, 1.0):
            return None
        if self.value_b not in (0.0, 1.0):
            return None
        return f"{self.value_a:g}→{self.value_b:g}"

    @property
    def changed(self) -> bool:
        """Moved: on both sides, with a state, value (at the reported precision) or
        ``has_error`` that differs."""
        return self.state_changed or self.value_changed or self.error_changed

    @property
    def kind(self) -> str:
        """A short word for the change: ``flip 0→1``, ``error→evaluated``, ``value up``, ..."""
        if not (self.in_a and self.in_b):
            return "only in A" if self.in_a else "only in B"
        if self.a is None or self.b is None:
            return "series only in B" if self.a is None else "series only in A"
        if self.flip:
            return f"flip {self.flip}"
        if self.state_changed:
            return f"{self.state_a}→{self.state_b}"
        if self.value_changed:
            assert self.value_a is not None and self.value_b is not None
            return "value up" if self.value_b > self.value_a else "value down"
        if self.error_changed:
            return "has_error " + ("gained" if self.b.has_error else "lost")
        return "same"


KIND_ORDER = ("flip 1→0", "flip 0→1", "value down", "value up")
"""How the moved tasks are grouped: losses, gains, then state changes and has_error."""


def moved_groups(changes: tuple[TaskChange, ...]) -> list[tuple[str, tuple[TaskChange, ...]]]:
    """The tasks that moved, grouped by kind (flips and value changes first), each group in
    the order given; the groups' sizes add up to the number of moved tasks."""
    groups: dict[str, list[TaskChange]] = {}
    for change in changes:
        if change.changed:
            groups.setdefault(change.kind, []).append(change)
    order = {kind: i for i, kind in enumerate(KIND_ORDER)}
    kinds = sorted(groups, key=lambda k: (order.get(k, len(order)), k))
    return [(kind, tuple(groups[kind])) for kind in kinds]


def moved_summary(changes: tuple[TaskChange, ...]) -> str:
    """``6 tasks moved: 3 flip 1→0, 2 flip 0→1, 1 error→evaluated`` (or that none did)."""
    groups = moved_groups(changes)
    total = sum(len(g) for _, g in groups)
    if not total:
        return "no task moved"
    parts = ", ".join(f"{len(g)} {kind}" for kind, g in groups)
    return f"{plural(total, 'task')} moved: {parts}"
