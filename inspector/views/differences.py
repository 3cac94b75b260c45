"""Where a stored ``metrics.json`` and a recomputed one disagree, named by series and field.

Pure: no I/O, no textual, no rich. ``check`` (CLI), the check of every run under a root and
the overview's banner all read their differences from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Difference:
    """One place where the stored metrics.json and the recomputation disagree."""

    where: str  # "correct.avg@3 counts.error", "report extra", ...
    stored: Any
    recomputed: Any

    def line(self) -> str:
        return f"{self.where}: stored {self.stored!r}, recomputed {self.recomputed!r}"


def same_text(stored_text: str, recomputed_text: str) -> bool:
    """The stored metrics.json is the recomputed one, character for character, so
    :func:`compare_reports` would find no difference — unless it holds a NaN (unequal to
    itself, a difference there): such text is compared the long way."""
    return stored_text == recomputed_text and "NaN" not in stored_text


def compare_reports(stored: Any, recomputed: Mapping[str, Any]) -> list[Difference]:
    """Every field where two metrics.json documents differ, named by series and field."""
    out: list[Difference] = []
    if not isinstance(stored, Mapping):
        return [Difference("metrics.json", stored, "a MetricReport object")]
    for key in ("k", "strategy", "aggregation", "evaluation_failed"):
        if stored.get(key) != recomputed.get(key):
            out.append(Difference(f"report {key}", stored.get(key), recomputed.get(key)))
    # extra named down to the field (frontier_engineering's tables are deep mappings).
    _diff("report extra", stored.get("extra"), recomputed.get("extra"), out)
    stored_series = {
        s.get("series_id"): s for s in stored.get("series") or [] if isinstance(s, Mapping)
    }
    new_series = {s["series_id"]: s for s in recomputed.get("series") or []}
    # In each file's order (a set difference would order them by the hash seed).
    for sid in stored_series:
        if sid not in new_series:
            out.append(Difference(f"{sid}", "present", "absent"))
    for sid in new_series:
        if sid not in stored_series:
            out.append(Difference(f"{sid}", "absent", "present"))
    for sid, new in new_series.items():
        old = stored_series.get(sid)
        if old is None:
            continue
        _diff(sid, old, new, out)
    stored_order = [s for s in stored_series if s in new_series]
    new_order = [s for s in new_series if s in stored_series]
    if stored_order != new_order:
        out.append(Difference("series order", stored_order, new_order))
    return out


def _diff(where: str, old: Any, new: Any, out: list[Difference]) -> None:
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in sorted(set(old) | set(new), key=str):
            label = f"{where} {key}" if " " not in where else f"{where}.{key}"
            if key not in old:
                out.append(Difference(label, "absent", new[key]))
            elif key not in new:
                out.append(Difference(label, old[key], "absent"))
            else:
                _diff(label, old[key], new[key], out)
        return
    # 1 and 1.0 differ in the file, so a type change is a difference too.
    if type(old) is not type(new) or old != new:
        out.append(Difference(where, old, new))
