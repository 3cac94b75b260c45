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


ABSENT = "absent"
"""What a difference says of a key one side lacks."""
_COMPARED = ("k", "strategy", "aggregation", "evaluation_failed", "extra", "series")
"""The keys of a MetricReport compared by name above the rest."""


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
    # Any other key on either side (a "headline" planted in the file is content, not bytes).
    for key in sorted(set(stored) | set(recomputed), key=str):
        if key in _COMPARED:
            continue
        old, new = stored.get(key, ABSENT), recomputed.get(key, ABSENT)
        _diff(f"report {key}", old, new, out)
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


def metrics_differences(
    stored_text: str, stored: Any, recomputed_text: str, recomputed: Mapping[str, Any]
) -> list[Difference]:
    """Where a stored metrics.json (``stored_text``, parsed: ``stored``) differs from the
    recomputation, bytes first: identical text has none; otherwise the parsed
    differences, then every key an object repeats (where the last wins when parsed, and a
    first-wins reader, or a person, sees another value), and, when nothing else differs,
    the first line that does (spacing, key order, escapes)."""
    if stored_text == recomputed_text:
        return []
    out = compare_reports(stored, recomputed)
    out.extend(repeated_keys(stored_text, recomputed))
    if not out:
        out.append(_first_line(stored_text, recomputed_text))
    return out


def repeated_keys(text: str, recomputed: Mapping[str, Any]) -> list[Difference]:
    """A difference for each key repeated in one object of ``text``: where it is, each
    value it has in the file, and the recomputed one."""
    import json  # only for a file that differs from the recomputation

    repeats: dict[int, dict[str, list[Any]]] = {}

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        made = dict(items)
        if len(made) < len(items):
            seen: dict[str, list[Any]] = {}
            for key, value in items:
                seen.setdefault(key, []).append(value)
            repeats[id(made)] = {k: v for k, v in seen.items() if len(v) > 1}
        return made

    try:
        document = json.loads(text, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return []
    out: list[Difference] = []
    if repeats:
        _find_repeats(document, [], repeats, recomputed, out)
    return out


def _find_repeats(
    value: Any,
    path: list[Any],
    repeats: dict[int, dict[str, list[Any]]],
    recomputed: Mapping[str, Any],
    out: list[Difference],
) -> None:
    if isinstance(value, dict):
        for key, values in repeats.get(id(value), {}).items():
            where = _named([*path, key], recomputed)
            out.append(Difference(f"{where} (key repeated)", values, _at(recomputed, [*path, key])))
        for key, item in value.items():
            _find_repeats(item, [*path, key], repeats, recomputed, out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _find_repeats(item, [*path, index], repeats, recomputed, out)


def _named(path: list[Any], recomputed: Mapping[str, Any]) -> str:
    """A place in metrics.json named as :func:`compare_reports` names it: ``series_id
    field.sub``, or ``report field``."""
    series = recomputed.get("series") or []
    if len(path) >= 2 and path[0] == "series" and isinstance(path[1], int):
        sid = series[path[1]].get("series_id") if path[1] < len(series) else None
        rest = ".".join(str(part) for part in path[2:])
        return f"{sid or f'series[{path[1]}]'} {rest}".rstrip()
    return "report " + ".".join(str(part) for part in path)


def _at(document: Any, path: list[Any]) -> Any:
    """The value at ``path`` in ``document``, or ``"absent"``."""
    for part in path:
        try:
            document = document[part]
        except (KeyError, IndexError, TypeError):
            return "absent"
    return document


FIRST_LINE = "metrics.json line "
"""Where the one difference of a metrics.json whose content equals the recomputation's
and whose bytes do not (spacing, key order, escapes) is: ``metrics.json line N``."""
SAME_CONTENT = "same content, different bytes"
"""What ``check`` says of such a file: no number changed (AgentCompass's writer is
canonical, so the file is still not as AgentCompass wrote it)."""


def same_content(wheres: list[str]) -> bool:
    """Whether differences at ``wheres`` (as :func:`metrics_differences` gives them) are of
    the bytes alone: none, or only the first line that differs."""
    return not wheres or (len(wheres) == 1 and wheres[0].startswith(FIRST_LINE))


def _first_line(stored_text: str, recomputed_text: str) -> Difference:
    """The first line where two texts differ, numbered from 1."""
    stored_lines = stored_text.split("\n")
    new_lines = recomputed_text.split("\n")
    for number, (old, new) in enumerate(zip(stored_lines, new_lines, strict=False), 1):
        if old != new:
            return Difference(f"{FIRST_LINE}{number}", old, new)
    number = min(len(stored_lines), len(new_lines)) + 1
    old = stored_lines[number - 1] if number <= len(stored_lines) else "absent"
    new = new_lines[number - 1] if number <= len(new_lines) else "absent"
    return Difference(f"{FIRST_LINE}{number}", old, new)
