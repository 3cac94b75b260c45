"""Text tables for a terminal: widths in terminal cells, and ids that only look the same.

A column is as wide as its widest cell measured in terminal cells, not in code points: a
CJK character or an emoji takes two cells, a combining accent none (the standard library's
Unicode database, as wcwidth measures). Two ids that read the same but differ (``café``
written with ``é``, U+00E9, and with ``e`` and a combining acute accent, U+0065 U+0301: NFC
and NFD twins) are told apart by the code points of their non-ASCII characters, e.g.
``café [twin: U+0065 U+0301]``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

_ZERO_WIDTH = {"Mn", "Me", "Cf"}


def number_text(value: float | None) -> str:
    """A number as every text table shows it: six significant digits, "—" for none."""
    return "—" if value is None else f"{value:.6g}"


def cell_width(text: str) -> int:
    """How many terminal cells ``text`` takes (text already made visible: no controls)."""
    if text.isascii():
        return len(text)
    width = 0
    for ch in text:
        if unicodedata.category(ch) in _ZERO_WIDTH:
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def pad(text: str, width: int) -> str:
    """``text`` followed by spaces up to ``width`` cells."""
    return text + " " * max(0, width - cell_width(text))


def code_points(text: str) -> str:
    """The code points of ``text``'s non-ASCII characters, each with the character a
    combining mark sits on: ``U+0065 U+0301`` for NFD ``é``."""
    clusters: list[list[str]] = []
    for ch in text:
        if clusters and unicodedata.combining(ch):
            clusters[-1].append(ch)
        else:
            clusters.append([ch])
    shown = [ch for cluster in clusters if not "".join(cluster).isascii() for ch in cluster]
    return " ".join(f"U+{ord(ch):04X}" for ch in shown)


def tell_twins_apart(texts: Iterable[str]) -> dict[str, str]:
    """For texts equal to another after NFC normalisation but not as strings: the text with
    its code points, ``café [twin: U+00E9]``; texts without a twin are not in the answer."""
    by_form: dict[str, set[str]] = {}
    for text in texts:  # ASCII too: the Kelvin sign U+212A is NFC "K"
        by_form.setdefault(unicodedata.normalize("NFC", text), set()).add(text)
    return {
        text: f"{text} [twin: {code_points(text) or 'ASCII'}]"
        for group in by_form.values()
        if len(group) > 1
        for text in group
    }
