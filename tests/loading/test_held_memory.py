"""Bounded memory per task (issue 53, item 1): writing a store file copies its bytes no
more than once, and a read run holds per task what its screens and outputs need."""

from __future__ import annotations

import os
import struct
import tracemalloc
from pathlib import Path
from typing import Any

import msgspec
import pytest

from inspector import loading
from inspector.loading import index, store
from inspector.results.file_io import stat_key
from tests.loading.helpers import copy_run


class Big(msgspec.Struct):
    runs: dict[str, tuple[tuple[int, ...], str]]


def test_writing_a_store_file_holds_its_bytes_once(tmp_path: Path) -> None:
    # About 8 MB of msgpack: joined with its header and digest, the old writer peaked at 3.3 times it.
    record = Big({f"run-{n:07d}" + "x" * 60: ((n,), "{}") for n in range(100_000)})
    path = tmp_path / "cache" / "store"
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        assert store.write_atomically(path, record)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    size = path.stat().st_size
    assert size > 7_000_000
    assert peak < 2 * size, (peak, size)  # the bytes once, and msgpack's growing buffer
    assert store.load(path, Big) == record


def _lstat_keys(run: Path, entry: Any) -> bytes:
    folder = run / entry.folder
    paths = [folder, folder / "task.json"]
    paths += [folder / f"attempt-{n}" / "result.json" for n in sorted(entry.attempt_dirs)]
    return b"".join(struct.pack("<6q", *stat_key(os.lstat(p))) for p in paths)


@pytest.mark.parametrize("opening", ["first", "warm"])
def test_a_read_run_holds_each_folders_file_keys_packed(opening: str, tmp_path: Path) -> None:
    """Per task folder the session keeps the keys of the files it was read from, for the
    run's index: as 48 bytes per file (was a tuple of paths and integers, 2.4 KB per task
    of three attempts), the same keys, and the index made from them is the same."""
    run = copy_run(tmp_path)
    if opening == "warm":
        assert isinstance(loading.read(run), loading.Loaded)
    result = loading.read(run)
    assert isinstance(result, loading.Loaded)
    assert (result.cache_hits > 0) == (opening == "warm")
    session_run = result.session.run
    published = [e for e in session_run.entries if e.state != "running"]
    assert published
    for entry in published:
        held = session_run.signatures[entry.folder]
        assert type(held) is bytes
        assert held == _lstat_keys(run, entry)
    made = index.take(session_run)
    assert made is not None
    assert made.stats.endswith(b"".join(_lstat_keys(run, e) for e in published[-1:]))


def test_a_warm_reopen_keeps_no_report_store_loaded(tmp_path: Path) -> None:
    """The report store looked up on a warm reopen (its score tables: the whole file's
    bytes, about 300 bytes a task) is not kept once the report is stored again."""
    from inspector.loading import reports

    run = copy_run(tmp_path)
    assert isinstance(loading.read(run), loading.Loaded)
    result = loading.read(run)
    assert isinstance(result, loading.Loaded) and result.cache_hits > 0
    assert reports._last == (None, None)


def test_entries_from_records_share_their_schema_version() -> None:
    """Every task of a run has the same ``schema_version``: one string, not one per task
    (69 bytes each)."""
    from inspector.loading.records import ENCODER, EntryRec, decoder, task_entry

    raw = ENCODER.encode(
        [
            EntryRec(
                None,
                f"details/normal/t{n}",
                "normal",
                False,
                None,
                (),
                None,
                (),
                "agentcompass.task.v3",
            )
            for n in range(2)
        ]
    )
    first, second = [task_entry(rec) for rec in decoder(list[EntryRec]).decode(raw)]
    assert first.schema_version == "agentcompass.task.v3"
    assert first.schema_version is second.schema_version
