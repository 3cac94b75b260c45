"""Fixture runs for the app tests.

The tests use ``fixtures/runs/<name>``. When that folder has not been generated yet, the
runs are written once per session by ``fixtures/make_fixtures.py`` into a temporary
``runs/`` folder (same layout, same last two path parts on screen).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_RUNS, ROOT

NAMES = (
    "k1_micro",
    "k3_avg_hierarchy",
    "k3_pass",
    "k1_evaluation_failed",
    "load_problems",
    "hostile",
    "compare_a",
    "compare_b",
    "k3_avg_first_attempt",
)


@pytest.fixture(scope="session")
def runs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding the sample runs."""
    if all((FIXTURE_RUNS / name).is_dir() for name in NAMES):
        return FIXTURE_RUNS
    out = tmp_path_factory.mktemp("generated") / "runs"
    subprocess.run(
        [sys.executable, str(ROOT / "fixtures" / "make_fixtures.py"), "--out", str(out)],
        check=True,
        capture_output=True,
    )
    return out


@pytest.fixture(scope="session")
def run_path(runs_root: Path):  # type: ignore[no-untyped-def]
    """``run_path(name)``: the path of one sample run."""

    def get(name: str) -> Path:
        return runs_root / name

    return get
