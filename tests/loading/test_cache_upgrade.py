"""An upgrade never serves an old number: every cache file is keyed by the code that shaped
it (issue 50's stand-in for an upgrade: the reader changed in a copy of the package, the
cache warm from the old one)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import FIXTURE_RUNS, ROOT

READER_LINE = '        category = task_category(index["category"])\n'


def _report(package: Path, run: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "inspector", "report", str(run), "--json"],
        env={**os.environ, "PYTHONPATH": str(package), **env},
        cwd=package,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_changed_reader_is_never_served_from_a_warm_cache(tmp_path: Path) -> None:
    package = tmp_path / "package"
    shutil.copytree(
        ROOT / "inspector", package / "inspector", ignore=shutil.ignore_patterns("__pycache__")
    )
    run = tmp_path / "k3_avg_hierarchy"
    shutil.copytree(FIXTURE_RUNS / "k3_avg_hierarchy", run)
    first = _report(package, run)
    assert first.returncode == 0, first.stderr
    cache = Path(os.environ["XDG_CACHE_HOME"])
    assert any(p.is_file() for p in cache.rglob("*")), "the first report wrote no cache"
    assert _report(package, run).stdout == first.stdout  # warm: the same bytes

    # the "upgrade": the reader now drops every task's category
    quick = package / "inspector" / "results" / "quick.py"
    text = quick.read_text(encoding="utf-8")
    assert text.count(READER_LINE) == 1
    quick.write_text(text.replace(READER_LINE, "        category = None\n"), encoding="utf-8")

    upgraded = _report(package, run)
    uncached = _report(package, run, INSPECTOR_CACHE="0")
    assert upgraded.returncode == uncached.returncode
    assert uncached.stdout != first.stdout  # the change moves the numbers
    assert upgraded.stdout == uncached.stdout  # and the warm cache serves the new ones
