"""The layer rules hold: import contracts, a pure engine, reader and views, strict typing below
the UI (issue 12)."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import inspector.app
import inspector.engine
import inspector.results
import inspector.views

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

PURE_PACKAGES = (inspector.engine, inspector.results, inspector.views)
"""Every module of these packages must load without any UI library (design rule 1)."""
PURE_TOP = (
    "inspector.session",
    "inspector.resolve",
    "inspector.overrides",
    "inspector.answers.run",
    "inspector.answers.check",
    "inspector.answers.root",
    "inspector.user_files",
    "inspector.output_files",
    "inspector.gate_policy",
    "inspector.cli.main",
    "inspector.cli.report",
    "inspector.cli.check",
    "inspector.cli.tasks",
    "inspector.cli.stats",
    "inspector.cli.diff",
    "inspector.cli.export",
    "inspector.cli.check_root",
    "inspector.cli.leaderboard",
    "inspector.cli.sql",
    "inspector.api",
)
"""Modules above the views that load without one too (the app is only imported to run it)."""


def _walk(package: ModuleType) -> list[str]:
    name = package.__name__
    return [name, *sorted(m.name for m in pkgutil.walk_packages(package.__path__, name + "."))]


def test_every_engine_reader_and_view_module_imports_no_ui_library() -> None:
    modules = [name for package in PURE_PACKAGES for name in _walk(package)] + list(PURE_TOP)
    for module in ("inspector.results.reader", "inspector.engine.reduction", "inspector.views.audit",
                   "inspector.results.lazy", "inspector.views.tasks", "inspector.views.documents"):
        assert module in modules
    probe = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(proc.stdout) == []


def test_the_package_faces_load_nothing_lazily() -> None:
    """No PEP 562 ``__getattr__`` on a face: a name is imported from its own module."""
    for package in (*PURE_PACKAGES, inspector.app):
        assert "__getattr__" not in vars(package), package.__name__


def test_import_contracts_are_kept() -> None:
    proc = subprocess.run(
        [str(BIN / "lint-imports"), "--no-cache"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_engine_reader_session_and_views_are_strictly_typed() -> None:
    targets = ["inspector/engine", "inspector/results", "inspector/session.py", "inspector/views"]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *targets],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
