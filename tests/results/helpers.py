"""Helpers for the results tests: where the conformance runs are, and small file utilities."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
CONFORMANCE = (REPO / "../shared/conformance").resolve()
RUN_NAMES = sorted(path.name for path in CONFORMANCE.iterdir() if path.is_dir()) if CONFORMANCE.is_dir() else []

needs_conformance = pytest.mark.skipif(not CONFORMANCE.is_dir(), reason=f"{CONFORMANCE} does not exist")


def task_dirs(run: Path, state: str) -> list[Path]:
    """The task folders of one state folder, sorted by name."""
    return sorted(path for path in (run / "details" / state).iterdir() if path.is_dir())


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def dump(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def tree_fingerprint(root: Path) -> dict[str, str]:
    """Every entry under root: file content hashes, link targets, folders."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[rel] = "link:" + str(path.readlink())
        elif path.is_dir():
            found[rel] = "dir"
        else:
            found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found
