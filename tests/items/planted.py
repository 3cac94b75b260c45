"""The planted results root (fixtures/make_planted_root.py), made once per test session."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from tests.conftest import ROOT


def generator() -> ModuleType:
    path = ROOT / "fixtures" / "make_planted_root.py"
    spec = importlib.util.spec_from_file_location("make_planted_root", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make(out: Path) -> Path:
    generator().make(out)
    return out
