"""Bounded memory per task (issue 53, item 1): writing a store file copies its bytes no
more than once, and a read run holds per task what its screens and outputs need."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from inspector.loading import store
from inspector.loading.records import Recalled


def test_writing_a_store_file_holds_its_bytes_once(tmp_path: Path) -> None:
    # About 8 MB of msgpack: joined with its header and digest, the old writer peaked at 3.3 times it.
    record = Recalled({f"run-{n:07d}" + "x" * 60: ((n,), "{}") for n in range(100_000)})
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
    assert store.load(path, Recalled) == record
