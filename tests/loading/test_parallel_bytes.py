"""Reader processes are chosen by bytes, not only by folder count (issue 53).

A run of a few large task folders (89 attempts of 5 MB) was read in one process because it
has fewer than ``readers.PARALLEL_MIN`` folders; now its bytes send it to every reader
process, cut into chunks of about equal bytes, and what is read is the same.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from inspector.loading import Loaded, read
from inspector.loading import readers as parallel
from inspector.loading.records import entry_record
from inspector.results.reader import Run, read_run
from tests.conftest import conformance_run
from tests.loading.helpers import settle_time_stamps, stored_entries

SOURCE = "e2e_k3_avg_category_mean"  # 10 task folders, 3 attempts each
PAD = 400_000  # bytes of trailing JSON whitespace added to each attempt of the big folder


def padded_run(tmp_path: Path) -> tuple[Path, str]:
    """A copy of the source run whose third task folder holds about 1.2 MB of attempts
    (valid JSON: whitespace after each document); its folder name."""
    run = tmp_path / "run"
    shutil.copytree(conformance_run(SOURCE), run, symlinks=True)
    big = sorted(run.glob("details/*/*/task.json"))[2].parent
    for result in big.glob("attempt-*/result.json"):
        result.write_bytes(result.read_bytes() + b" " * PAD)
    settle_time_stamps()
    return run, big.name


def view(run: Run | Loaded) -> list[tuple]:  # type: ignore[type-arg]
    """The entries read, as the task store keeps them."""
    entries = run.session.run.entries if isinstance(run, Loaded) else run.entries
    return [entry_record(entry) for entry in entries]


def read_through_the_door(run: Path) -> Loaded:
    loaded = read(run)
    assert isinstance(loaded, Loaded)
    return loaded


@pytest.fixture
def pools(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, list[list[str]]]]:
    """(processes, folder names per chunk) of every pool started."""
    started: list[tuple[int, list[list[str]]]] = []
    original = parallel.EntryLoad._start_pool

    def spy(self, pool_size):  # type: ignore[no-untyped-def]
        original(self, pool_size)
        if self.futures:
            names = [[item[0].rpartition("/")[2] for item in chunk] for chunk in self.chunks]
            started.append((pool_size, names))

    monkeypatch.setattr(parallel.EntryLoad, "_start_pool", spy)
    monkeypatch.setenv("INSPECTOR_WORKERS", "2")
    return started


@pytest.mark.parametrize("cache", ["0", "1"])
def test_few_large_folders_use_every_reader_process(
    cache: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pools: list[tuple[int, list[list[str]]]],
) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE", cache)
    monkeypatch.setattr(parallel, "PARALLEL_BYTES", 1_000_000)  # the run holds about 1.4 MB
    run, big = padded_run(tmp_path)
    assert len(list(run.glob("details/*/*/task.json"))) < parallel.PARALLEL_MIN
    plain = read_run(run)  # one process, no cache

    loaded = read_through_the_door(run)

    assert pools, "a run of 1.4 MB in 10 folders was read in one process"
    processes, chunks = pools[0]
    assert processes == 2
    assert [big] in chunks, f"the large folder shares its chunk: {chunks}"
    assert [name for chunk in chunks for name in chunk] == [
        entry.folder.rpartition("/")[2] for entry in plain.entries
    ]
    assert view(loaded) == view(plain)
    expected = (conformance_run(SOURCE) / "metrics.json").read_text()
    assert loaded.session.metrics_json() == expected
    if cache == "1":  # what the readers sent back is cached in the right places
        again = read_through_the_door(run)
        assert again.cache_hits == len(stored_entries(run)) == len(plain.entries)
        assert view(again) == view(plain)


def test_a_small_run_stays_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pools: list[tuple[int, list[list[str]]]]
) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    run, _ = padded_run(tmp_path)  # 1.4 MB: far below PARALLEL_BYTES
    assert view(read_through_the_door(run)) == view(read_run(run))
    assert pools == []


def test_chunks_hold_about_equal_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    sizes = {"a": 10, "b": 10, "c": 5000, "d": 10, "e": 3000, "f": 10, "g": 10}
    monkeypatch.setattr(parallel, "folder_bytes", lambda path: sizes[path])
    monkeypatch.setattr(parallel, "PARALLEL_BYTES", 100)
    items = [(name, "normal", name) for name in sizes]

    chunks, parallel_read = parallel.split(items, lambda folder: folder, processes=2)

    assert parallel_read
    assert [item for chunk in chunks for item in chunk] == items  # in order, each once
    names = [[item[0] for item in chunk] for chunk in chunks]
    assert ["c"] in names and ["e"] in names
    assert len(chunks) >= 2 * 2


def test_many_folders_are_not_stat_ed_to_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_stat(path: str) -> int:
        raise AssertionError(f"{path} stat'ed")

    monkeypatch.setattr(parallel, "folder_bytes", no_stat)
    items = [(f"f{i}", "normal", f"f{i}") for i in range(3000)]
    chunks, parallel_read = parallel.split(items, lambda folder: folder, processes=2)
    assert parallel_read and [i for c in chunks for i in c] == items
    few = items[:20]
    monkeypatch.setattr(parallel, "folder_bytes", lambda path: 1000)  # 20 kB in all
    chunks, parallel_read = parallel.split(few, lambda folder: folder, processes=2)
    assert not parallel_read and chunks == [few]


def test_a_long_listing_starts_its_readers_from_the_fork_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pools: list[tuple[int, list[list[str]]]]
) -> None:
    """Readers forked from a caller that has listed a million folders each count its
    pages again (480 MB a reader); from FORK_SERVER_FROM folders they start from the fork
    server: none is this process's child, and what is read is the same."""
    import os

    from inspector.loading import processes

    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    monkeypatch.setattr(parallel, "PARALLEL_BYTES", 1_000_000)
    monkeypatch.setattr(processes, "FORK_SERVER_FROM", 5)  # the run has 10 folders
    parents: list[int] = []
    original = parallel.EntryLoad._start_pool

    def spy(self, pool_size):  # type: ignore[no-untyped-def]
        original(self, pool_size)
        if self.pool is not None:
            parents.extend(self.pool.submit(os.getppid).result() for _ in range(4))

    monkeypatch.setattr(parallel.EntryLoad, "_start_pool", spy)
    run, _ = padded_run(tmp_path)
    loaded = read_through_the_door(run)

    assert parents, "no reader processes started"
    assert os.getpid() not in parents, "the readers were forked from this process"
    assert view(loaded) == view(read_run(run))
