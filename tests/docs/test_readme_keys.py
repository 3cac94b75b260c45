"""The README's table of keys names only keys the app binds."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

from textual.app import App
from textual.binding import Binding

import inspector.app
import widgets

ROOT = Path(__file__).resolve().parents[2]
NAMES = {
    "/": "slash",
    "?": "question_mark",
    ":": "colon",
    ".": "full_stop",
    ",": "comma",
    "[": "left_square_bracket",
    "]": "right_square_bracket",
}
"""The README shows a key as the footer does; Textual names it so."""


def _table_keys() -> list[str]:
    """Every key in the first column of the README's table under ``## Keys`` (``1``–``4``:
    each digit of the range)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Keys\n", 1)[1].split("\n## ", 1)[0]
    keys = []
    for cell in re.findall(r"^\| (`.*?) \|", section, re.M):
        named = re.findall(r"`([^`]+)`", cell)
        if "`–`" in cell:
            low, high = (int(key) for key in named)
            named = [str(digit) for digit in range(low, high + 1)]
        keys.extend(named)
    return keys


def _bound_keys() -> set[str]:
    """Every key bound by a class of the app or its widgets, and Textual's palette key."""
    bound = {App.COMMAND_PALETTE_BINDING}
    for package in (inspector.app, widgets):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            for value in vars(importlib.import_module(module.name)).values():
                if getattr(value, "__module__", None) != module.name:
                    continue  # Textual's own widgets bind keys the app may not
                for binding in getattr(value, "BINDINGS", None) or ():
                    key = binding.key if isinstance(binding, Binding) else binding[0]
                    bound.update(key.split(","))
    return bound


def test_the_readme_has_one_table_of_keys() -> None:
    assert len(_table_keys()) >= 30


def test_every_key_in_the_readme_is_bound() -> None:
    bound = _bound_keys()
    missing = [key for key in _table_keys() if NAMES.get(key, key) not in bound]
    assert missing == []
