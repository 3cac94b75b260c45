"""Every snapshot on disk belongs to a collected snapshot test.

syrupy fails a run that leaves a snapshot unused (a test renamed, deleted or skipped
conditionally), but not under pytest-xdist, where each worker sees only its share of the
tests. This test restores that check for the suite as the README runs it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _collected() -> set[Path]:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", str(HERE)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    expected: set[Path] = set()
    for line in out.splitlines():
        if "::" not in line:
            continue
        module, *names = line.split("::")
        if not names or names[-1] == "test_every_snapshot_belongs_to_a_test":
            continue
        expected.add(HERE / "__snapshots__" / Path(module).stem / (".".join(names) + ".svg"))
    return expected


def test_every_snapshot_belongs_to_a_test() -> None:
    on_disk = set((HERE / "__snapshots__").rglob("*.svg"))
    unused = sorted(str(p.relative_to(HERE)) for p in on_disk - _collected())
    assert not unused, f"snapshots no test uses (delete them or restore their tests): {unused}"
