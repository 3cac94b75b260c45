"""The layer rules hold: import contracts, a pure engine and reader, strict typing below the UI."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import inspector.engine
import inspector.results

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

# Modules that must load without any UI library.
PURE_TOP = (
    "inspector.session",
    "inspector.resolve",
    "inspector.overrides",
    "inspector.audit",
    "inspector.attribution",
    "inspector.explain",
    "inspector.compare",
    "inspector.stats",
    "inspector.run_stats",
    "inspector.paired",
    "inspector.cli_audit",
    "inspector.cli_stats",
    "inspector.cli_diff",
    "inspector.run_check",
    "inspector.check_root",
    "inspector.runs_view",
    "inspector.leaderboard",
)


def _walk(package: ModuleType) -> list[str]:
    name = package.__name__
    return [name, *sorted(m.name for m in pkgutil.walk_packages(package.__path__, name + "."))]


def test_every_engine_and_reader_module_imports_no_ui_library() -> None:
    modules = [*_walk(inspector.engine), *_walk(inspector.results), *PURE_TOP]
    assert "inspector.results.reader" in modules and "inspector.engine.reduction" in modules
    probe = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(proc.stdout) == []


def test_import_contracts_are_kept() -> None:
    proc = subprocess.run(
        [str(BIN / "lint-imports"), "--no-cache"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_engine_reader_and_session_are_strictly_typed() -> None:
    targets = ["inspector/engine", "inspector/results", "inspector/session.py"]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *targets],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
