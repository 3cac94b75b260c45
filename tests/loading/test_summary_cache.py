"""The runs list of a results root kept between listings (issue 16): faster, never
different — an edit to any file a summary is read from is seen, however it was made."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from inspector.loading import many as summary_cache
from inspector.loading import runs_under
from inspector.results.discover import find_runs
from tests.loading.helpers import count_summaries, settle_time_stamps
from tests.results_root import MICRO, PASS, make_results_root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = make_results_root(tmp_path)
    settle_time_stamps()
    return root


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The runs whose files a listing read (the others came from the cache)."""
    return count_summaries(monkeypatch, summary_cache)


def test_an_unchanged_root_is_listed_from_the_cache_as_it_is_read(
    root: Path, reads: list[str]
) -> None:
    first = runs_under(root)
    assert len(reads) == len(first) == 9
    reads.clear()
    assert runs_under(root) == first == find_runs(root)
    assert reads == []


def test_an_edit_in_place_keeping_size_and_time_is_seen(root: Path, reads: list[str]) -> None:
    runs_under(root)
    metrics = root / PASS / "metrics.json"
    before = os.stat(metrics)
    text = metrics.read_bytes()
    assert text.count(b"0.861111111111111") >= 1  # the stored headline value
    edited = text.replace(b"0.861111111111111", b"0.111111111111111")
    with open(metrics, "r+b") as handle:  # in place: same inode, same size
        handle.write(edited)
    os.utime(metrics, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(metrics).st_size == before.st_size
    settle_time_stamps()
    reads.clear()
    listed = runs_under(root)
    assert reads == [PASS]
    assert listed == find_runs(root)
    assert next(r for r in listed if r.relative == PASS).headline_value == 0.111111111111111


def test_new_and_removed_runs_and_task_folders(root: Path, reads: list[str]) -> None:
    runs_under(root)
    shutil.rmtree(root / MICRO)
    shutil.copytree(root / PASS, root / "more" / "k3_pass")
    task = next((root / PASS / "details" / "normal").iterdir())
    shutil.rmtree(task)
    settle_time_stamps()
    reads.clear()
    listed = runs_under(root)
    assert reads == ["more/k3_pass"]
    assert listed == find_runs(root)
    assert MICRO not in {run.relative for run in listed}


def test_a_file_written_as_it_is_listed_is_not_kept(
    root: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    counted = summary_cache.summarize_run
    first = [True]

    def written_meanwhile(path: Path, relative: str = "."):  # type: ignore[no-untyped-def]
        if first[0] and relative == PASS:
            metrics = path / "metrics.json"
            metrics.write_bytes(metrics.read_bytes())  # racy: stamped after the read began
        return counted(path, relative)

    monkeypatch.setattr(summary_cache, "summarize_run", written_meanwhile)
    runs_under(root)
    first[0] = False
    reads.clear()
    runs_under(root)
    assert reads == [PASS]


def test_without_the_cache_every_run_is_read(
    root: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    runs_under(root)
    runs_under(root)
    assert len(reads) == 18


def test_a_malformed_cache_file_is_a_miss(root: Path, reads: list[str]) -> None:
    first = runs_under(root)
    summary_cache.cache_file(root).write_bytes(b"\x00not marshal")
    reads.clear()
    assert runs_under(root) == first
    assert len(reads) == 9
