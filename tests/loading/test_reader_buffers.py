"""A reader process reads file after file into the same pages (issue 53).

Without it, the buffer of every large file came fresh from the kernel and went back to it
when freed: one page fault per 4 KB read, half of the CPU of reading 2.2 GB of 5 MB
attempt files. Counted in page faults of the reader processes, not timed.
"""

from __future__ import annotations

import resource
import shutil
from pathlib import Path

import pytest

from inspector.loading import Loaded, read
from tests.conftest import conformance_run
from tests.loading.helpers import settle_time_stamps

SOURCE = "e2e_k3_avg_category_mean"  # 10 task folders, 3 attempts each
PAD = 4 << 20  # about 4 MB of trailing JSON whitespace per attempt (120 MB in all)


def faults_of_children() -> int:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt


def test_reader_processes_reuse_their_read_buffers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    monkeypatch.setenv("INSPECTOR_WORKERS", "2")
    run = tmp_path / "run"
    shutil.copytree(conformance_run(SOURCE), run, symlinks=True)
    results = sorted(run.glob("details/*/*/attempt-*/result.json"))
    for number, result in enumerate(results):  # sizes differ, as real trajectories do
        result.write_bytes(result.read_bytes() + b" " * (PAD + 4099 * number))
    settle_time_stamps()
    pages = sum(result.stat().st_size for result in results) // 4096

    before = faults_of_children()
    loaded = read(run)  # 120 MB: two reader processes (by bytes)
    faults = faults_of_children() - before

    expected = (conformance_run(SOURCE) / "metrics.json").read_text()
    assert isinstance(loaded, Loaded) and loaded.session.metrics_json() == expected
    assert faults > 0, "no reader process was used"
    # A fresh buffer for every file: a fault per page read (about 31,000 here); reused:
    # the first files' pages and the readers' own start (a few thousand).
    assert faults < pages // 2, f"{faults} page faults reading {pages} pages"
