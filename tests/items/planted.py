"""The planted results root (fixtures/make_planted_root.py), made once per test session."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from tests.conftest import script


def generator() -> ModuleType:
    return script("fixtures/make_planted_root.py")


def make(out: Path) -> Path:
    generator().make(out)
    return out
