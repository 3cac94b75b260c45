"""The inspector never writes into a result directory (DEVELOPERS.md, design rule 3).

Every file of every fixture and conformance run is hashed (with its mode and mtime) before
and after reading, recomputing, checking, listing and exporting it; nothing may change,
and no file may appear or disappear.
"""

from __future__ import annotations

import hashlib
import io
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.results import find_runs, read_run
from inspector.session import score_run
from tests.conftest import FIXTURE_RUNS, conformance_runs


def all_runs() -> list[Path]:
    fixtures = sorted(p for p in FIXTURE_RUNS.iterdir() if p.is_dir()) if FIXTURE_RUNS.is_dir() else []
    return fixtures + conformance_runs()


def snapshot(root: Path) -> dict[str, tuple[str, int, int]]:
    """relative path -> (sha256, mode, mtime_ns) of every file and folder under root."""
    state: dict[str, tuple[str, int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            info = path.lstat()
            digest = ""
            if path.is_file() and not path.is_symlink():
                try:
                    digest = hashlib.sha256(path.read_bytes()).hexdigest()
                except OSError:
                    digest = "unreadable"
            state[str(path.relative_to(root))] = (digest, info.st_mode, info.st_mtime_ns)
    return state


RUNS = all_runs()


@pytest.mark.parametrize("run", RUNS, ids=[f"{r.parent.name}/{r.name}" for r in RUNS])
def test_reading_and_scoring_change_nothing(run: Path) -> None:
    before = snapshot(run)
    session = score_run(read_run(run))
    if session.recomputation is not None:
        session.metrics_json()
        session.summary_markdown()
    for argv in (
        ["report", str(run), "--json"],
        ["report", str(run), "--markdown"],
        ["check", str(run)],
        ["tasks", str(run), "--format", "jsonl"],
    ):
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            main(argv)
    find_runs(run.parent)
    assert snapshot(run) == before
