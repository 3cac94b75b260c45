"""Where a delta came from: B − A of a series pair in parts that sum to it exactly, in words.

Pure (no textual, no rich, no I/O). The parts are the engine's
(:mod:`inspector.engine.decomposition`: the Shapley split over the groups of changes —
tasks only in A, tasks only in B, tasks whose state changed, values up, values down, weight
changes); this module names them, caps their task lists for JSON, writes the few lines of
``inspector diff`` and the one sentence of the gate's regression message.
"""

from __future__ import annotations

from typing import Any

from inspector.engine.decomposition import Decomposition, Part, decompose_series
from inspector.engine.vocabulary import EVALUATED, plural
from inspector.views.compare import Comparison, SeriesPair

__all__ = [
    "decomposition_json",
    "decomposition_lines",
    "decomposition_of",
    "decomposition_sentence",
    "part_count",
    "part_name",
    "signed",
]

TASK_IDS_SHOWN = 50
"""Task ids listed per part in JSON (the rest counted in ``task_ids_left_off``)."""

NAMES = {
    "only_a": "tasks only in A",
    "only_b": "tasks only in B",
    "state": "tasks whose state changed",
    "up": "values up",
    "down": "values down",
    "weights": "weight changes",
}
FLIP_NAMES = {"up": "flips up (0→1)", "down": "flips down (1→0)"}


def decomposition_of(c: Comparison, pair: SeriesPair | None = None) -> Decomposition | None:
    """B − A of the pair's series in parts; None when the pair is on one side only, a side
    has no value, or the series is one the decomposition does not rebuild (a sum, a
    benchmark's own number)."""
    pair = pair or c.pair()
    if pair.a is None or pair.b is None:
        return None
    binary = pair.binary and c.one_attempt
    return decompose_series(c.a, c.b, pair.a, pair.b, binary=binary)


def part_name(d: Decomposition, part: Part) -> str:
    """``tasks only in A``, ``flips down (1→0)`` (binary, one attempt a side), ``values up``, ..."""
    if d.binary and part.group in FLIP_NAMES:
        return FLIP_NAMES[part.group]
    return NAMES[part.group]


def signed(value: float) -> str:
    """``+0.0139`` / ``−0.03`` (a true minus sign), 4 significant digits."""
    text = f"{value:+.4g}"
    return "−" + text[1:] if text.startswith("-") else text


def decomposition_json(d: Decomposition | None) -> dict[str, Any] | None:
    """The decomposition for ``diff --format json`` (task ids capped at TASK_IDS_SHOWN)."""
    if d is None:
        return None
    return {
        "method": d.method,
        "a": d.a,
        "b": d.b,
        "delta": d.total,
        "evaluations": d.evaluations,
        "null_mixes": d.null_mixes,
        "parts": [
            {
                "group": p.group,
                "name": part_name(d, p),
                "value": p.value,
                "tasks": len(p.task_ids),
                "task_ids": list(p.task_ids[:TASK_IDS_SHOWN]),
                "task_ids_left_off": max(0, len(p.task_ids) - TASK_IDS_SHOWN),
                "nodes": list(p.nodes),
            }
            for p in d.parts
        ],
    }


def part_count(part: Part) -> str:
    """A part's size: ``2 tasks``; a weight change: its moved tasks and reweighted nodes."""
    n = len(part.task_ids)
    if part.group != "weights":
        return _tasks(n)
    if part.nodes == ("(aggregation)",):
        return "another aggregation" + (f", {_tasks(n)} in another category" if n else "")
    said = [f"{_tasks(n)} in another category" if n else "",
            f"{len(part.nodes)} nodes reweighted" if part.nodes else ""]  # fmt: skip
    return ", ".join(w for w in said if w)


def _tasks(n: int) -> str:
    return plural(n, "task")


def _what(d: Decomposition, part: Part, c: Comparison | None, pair: SeriesPair | None) -> str:
    """What a part is made of, in words (``3 flips down``, ``4 tasks no longer evaluated``)."""
    n = len(part.task_ids)
    if part.group == "weights":
        return f"weight changes ({part_count(part)})"
    if part.group == "state":
        moved = _evaluated_moves(part, c, pair)
        if moved is None:
            return f"{_tasks(n)} whose state changed"
        gained, lost = moved
        if gained == n:
            return f"{_tasks(n)} now evaluated"
        if lost == n:
            return f"{_tasks(n)} no longer evaluated (error, unavailable or invalidated)"
        said = [f"{gained} now evaluated" if gained else "", f"{lost} no longer" if lost else ""]
        said = [w for w in said if w] or ["none to or from evaluated"]
        return f"{_tasks(n)} whose state changed ({', '.join(said)})"
    if part.group in ("up", "down"):
        if d.binary:
            return f"{plural(n, 'flip')} {part.group}"
        return f"{_tasks(n)} with values {part.group}"
    return f"{_tasks(n)} only in {'A' if part.group == 'only_a' else 'B'}"


def _evaluated_moves(
    part: Part, c: Comparison | None, pair: SeriesPair | None
) -> tuple[int, int] | None:
    """Of the part's tasks: how many became evaluated, how many stopped being evaluated."""
    if c is None or pair is None:
        return None
    ids = set(part.task_ids)
    moves = [(ch.state_a, ch.state_b) for ch in c.tasks(pair) if ch.task_id in ids]
    gained = sum(1 for a, b in moves if a != EVALUATED and b == EVALUATED)
    lost = sum(1 for a, b in moves if a == EVALUATED and b != EVALUATED)
    return gained, lost


def decomposition_sentence(
    d: Decomposition, c: Comparison | None = None, pair: SeriesPair | None = None
) -> str:
    """``−0.041: −0.03 from 4 tasks no longer evaluated (...), −0.015 from 3 flips down, …``:
    the delta, then every non-zero part, largest first (``c``/``pair`` let the state
    part say which way the tasks went)."""
    parts = sorted((p for p in d.parts if p.value != 0), key=lambda p: -abs(p.value))
    said = ", ".join(f"{signed(p.value)} from {_what(d, p, c, pair)}" for p in parts)
    return f"{signed(d.total)}: {said or 'no part'} ({d.method})"


def decomposition_lines(
    d: Decomposition | None, c: Comparison | None = None, pair: SeriesPair | None = None
) -> list[str]:
    """The few lines of ``inspector diff``: one per part, then how it was split."""
    if d is None or not d.parts:
        return []  # nothing moved: nothing to explain
    lines = [f"where B − A = {signed(d.total)} came from ({d.method}; the parts sum to it):"]
    for p in d.parts:
        lines.append(f"  {signed(p.value):>9} from {_what(d, p, c, pair)}")
    if d.null_mixes:
        lines.append(
            f"  ({d.null_mixes} of {d.evaluations} mixes had no evaluated task: counted as 0)"
        )
    return lines
