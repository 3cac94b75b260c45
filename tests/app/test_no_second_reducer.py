"""Design rule 2: no widget or screen reduces or averages numbers on its own."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

FORBIDDEN_CALLS = {"fsum", "mean", "fmean", "median", "reduce"}
FORBIDDEN_MODULES = {"statistics", "inspector.engine.aggregation", "inspector.engine.reducers"}


def _sources() -> list[Path]:
    return sorted((ROOT / "widgets").glob("*.py")) + sorted(
        (ROOT / "inspector" / "app").rglob("*.py")
    )


def test_no_averaging_in_the_ui() -> None:
    offenders = []
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name in FORBIDDEN_CALLS:
                    offenders.append(f"{path.name}:{node.lineno} calls {name}")
            if isinstance(node, ast.ImportFrom) and node.module in FORBIDDEN_MODULES:
                offenders.append(f"{path.name}:{node.lineno} imports {node.module}")
            if isinstance(node, ast.Import):
                offenders += [
                    f"{path.name}:{node.lineno} imports {a.name}"
                    for a in node.names
                    if a.name in FORBIDDEN_MODULES
                ]
    assert offenders == []
