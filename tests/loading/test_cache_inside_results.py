"""A cache folder that lies inside the results read is not used: nothing is written there.

``XDG_CACHE_HOME`` (or ``HOME``) may point inside the results: GitLab CI caches only paths
under the project folder (``XDG_CACHE_HOME=$CI_PROJECT_DIR/.cache``), and ``inspector gate
.`` then gates that folder. Each command runs in its own process here, as in CI, with its
reader processes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_RUNS, ROOT


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def _inspector(argv: list[str], cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cache),
           "INSPECTOR_WORKERS": "2"}  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "inspector", *argv], capture_output=True, text=True, env=env,
        cwd=ROOT, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    for name in ("a", "b"):
        shutil.copytree(FIXTURE_RUNS / "k1_micro", root / "team" / name)
    return root


def test_a_cache_inside_the_root_read_is_not_written(root: Path) -> None:
    before = _files(root)
    cache = root / ".cache"
    for argv in (["gate", str(root)], ["leaderboard", str(root)], ["items", str(root)],
                 ["check", "--cached", str(root)], ["stats", str(root)]):  # fmt: skip
        done = _inspector(argv, cache)
        assert done.returncode in (0, 1), done.stderr
        assert _files(root) == before, argv
        said = [line for line in done.stderr.splitlines() if str(cache) in line]
        assert len(said) == 1 and "inside the results" in said[0], done.stderr


def test_a_cache_inside_a_run_read_is_not_written(root: Path, tmp_path: Path) -> None:
    run, other = root / "team" / "a", root / "team" / "b"
    before = _files(run)
    for argv in (["report", str(run)], ["tasks", str(run)], ["stats", str(run)],
                 ["diff", str(other), str(run)],
                 ["export", str(run), "--format", "csv", "--out", str(tmp_path / "out")]):  # fmt: skip
        done = _inspector(argv, run / ".c")
        assert done.returncode == 0, done.stderr
        assert _files(run) == before, argv


def test_a_cache_beside_the_results_is_written(root: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    done = _inspector(["gate", str(root)], cache)
    assert done.returncode == 1, done.stderr  # k1_micro fails the default error rate
    assert any(p.is_file() for p in cache.rglob("*")), "the store should be written there"
    assert "inside the results" not in done.stderr
