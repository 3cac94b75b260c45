"""Bounded memory per task (issue 53, item 1): writing a store file copies its bytes no
more than once, and a read run holds per task what its screens and outputs need."""

from __future__ import annotations

import hashlib
import os
import struct
import tracemalloc
from pathlib import Path
from typing import Any

import msgspec
import pytest

from inspector import loading
from inspector.loading import index, reports, store
from inspector.results.file_io import stat_key
from tests.loading.helpers import copy_run, store_bins


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
    """The session keeps the keys of the files each task folder was read from, for the
    run's index: as 48 bytes per file (was a tuple of paths and integers, 2.4 KB per task
    of three attempts), the same keys; once the index is taken (the report stored), only
    in it: one string, not a string per folder beside it."""
    run = copy_run(tmp_path)
    if opening == "warm":
        assert isinstance(loading.read(run), loading.Loaded)
    result = loading.read(run)
    assert isinstance(result, loading.Loaded)
    assert (result.cache_hits > 0) == (opening == "warm")
    session_run = result.session.run
    published = [e for e in session_run.entries if e.state != "running"]
    assert published
    assert session_run.index is not None and session_run.signatures == {}
    made = index.take(session_run)
    assert made is session_run.index
    assert made.stats.endswith(b"".join(_lstat_keys(run, e) for e in published))


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


@pytest.fixture(scope="module")
def alike_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2,000 generated tasks x k=3 (more than one process reads: the records path), most
    of them alike as in a real run (binary outcomes, a few issues and missing attempts)."""
    import subprocess
    import sys

    from tests.loading.helpers import settle_time_stamps

    run = tmp_path_factory.mktemp("alike") / "run"
    script = Path(__file__).resolve().parents[2] / "fixtures" / "make_large_run.py"
    argv = ["--out", str(run), "--tasks", "2000", "--k", "3", "--trajectory-kb", "0.5"]
    subprocess.run([sys.executable, str(script), *argv, "--workers", "1"], check=True)
    settle_time_stamps()
    return run


def _read_traced(run: Path) -> tuple[float, float, int]:
    """Bytes held once the run is read, the peak while it was (both above what was
    allocated before), and its tasks."""

    with pytest.MonkeyPatch.context() as patch:  # imports and lasting caches are not held
        patch.setenv("INSPECTOR_CACHE", "0")
        assert isinstance(loading.read(run), loading.Loaded)
    result, held, peak = _traced(lambda: loading.read(run))
    assert isinstance(result, loading.Loaded) and result.session.recomputation is not None
    return held, peak, len(result.session.run.entries)


def _traced(call: Any) -> tuple[Any, int, int]:
    """What ``call()`` gives, the bytes held after it (collected) and its peak, both above
    what was allocated before."""
    import gc

    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = call()
        gc.collect()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, held - before, peak - before


def test_a_read_run_holds_under_1400_bytes_a_task(
    alike_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cache off, a run of alike tasks: alike attempts and attempt mappings are one object
    each, no retry counts one shared mapping, one task id string per task (1,768 bytes a
    task before, 1,135 now)."""
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    held, _, tasks = _read_traced(alike_run)
    assert tasks == 2000
    assert held / tasks < 1400, held / tasks


def test_writing_the_store_on_first_open_raises_the_peak_little(
    alike_run: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The task store is written a folder at a time, from the entries the session holds
    and their file keys packed in one buffer: a first open peaks within 1.3 times a read
    with the cache off (1.19 at 2,000 tasks; was 4.1: every folder's record and file keys
    as objects, then the whole store as objects and as one msgpack string)."""
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    _, off, _ = _read_traced(alike_run)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    _, first, _ = _read_traced(alike_run)
    from inspector.loading.reports import stored
    from inspector.loading.tasks import store_file

    assert stored(store_file(alike_run), str(alike_run)) is not None
    assert first < 1.3 * off, (first, off)
    warm = loading.read(alike_run)  # the store written so reads back, every folder
    assert isinstance(warm, loading.Loaded) and warm.cache_hits == 2000


def test_alike_attempts_are_one_object() -> None:
    from inspector.engine.model import Attempt, alike_attempts

    def made(correct: bool) -> dict[int, Attempt]:
        return {n: Attempt(n, "completed", {"correct": correct}) for n in (1, 2)}

    first, second = alike_attempts(made(True)), alike_attempts(made(True))
    assert first is second and first == made(True)
    assert alike_attempts(made(False)) is not first
    # Equal values of other types (1 == True) and float zeros are not taken for alike.
    ones = alike_attempts({1: Attempt(1, "completed", {"correct": 1})})
    assert type(ones[1].metrics["correct"]) is int

    def zero() -> dict[int, Attempt]:
        return {1: Attempt(1, "completed", {"score": -0.0})}

    assert alike_attempts(zero())[1] is not alike_attempts(zero())[1]


@pytest.mark.parametrize("files", [1, 6, 2000])
def test_the_report_store_is_bins_its_rest_its_stats_then_each_table(
    files: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report store file: header, msgpack bins (all but the index's stats and the
    score tables; the stats as they are; each table's parts), digest: each read on its own. A
    store for the same index keeps the other tables (copied a piece at a time), and one
    for another index keeps nothing of the old file."""
    from inspector.loading import reports
    from inspector.loading.records import ENCODER, Column, Index, Outputs, RunLevel, Table
    from tests.loading.helpers import report_file, stored_data

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    run = tmp_path / "run"
    run.mkdir()
    stats = bytes(range(256)) * (files * 48 // 256) + b"\x07" * (files * 48 % 256)
    snapshot = Index(b"d" * 32, ((1, 2), -1), stats)
    outputs = Outputs((("a", "b"),), ("note",), "{}", None, None, 3)
    level = RunLevel(None, None, None, None, None, ())
    table = Table(level, ("s",), ["t"], [True], [None], [()], [Column([0.5], [None], [False])])
    reports.store_snapshot(run, snapshot, "k", outputs, table)
    reports.store_snapshot(run, snapshot, "j", outputs, None, {"q": (1.0,)})
    reports.store_snapshot(run, snapshot, "i", outputs, table)
    raw = report_file(run).read_bytes()
    header = store.MAGIC + store.code_signature().encode() + b"\n"
    assert raw.startswith(header)
    parts = [part() for part in reports._table_parts(table)]  # made one at a time
    assert b"".join(parts) == ENCODER.encode(table) and len(parts) == 6 + len(table.columns)
    framed = b"".join(reports.bin_header(len(part)) + part for part in parts)
    assert raw.endswith(framed + raw[-store.DIGEST :])
    assert reports.bin_header(len(stats)) + stats in raw  # as they are
    data = stored_data(report_file(run))
    assert data[1] == [b"d" * 32, [[1, 2], -1], stats]
    assert set(data[2]) == {"k", "j", "i"} and data[3] == {"q": [1.0]}
    assert list(data[4]) == ["k", "i"] and data[4]["k"] == data[4]["i"]
    other = Index(b"e" * 32, ((1, 2), -1), stats)
    reports.store_snapshot(run, other, "j", outputs)
    data = stored_data(report_file(run))
    assert data[1][0] == b"e" * 32 and list(data[2]) == ["j"] and data[4] == {}


def test_the_task_store_is_written_in_pieces_each_its_length_before_it(
    alike_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The task store file: header, msgpack bins (the run's root, then pieces of at most
    ``PIECE`` folders, each msgspec's msgpack of a map of folder to entry), digest. Each
    piece's length comes before it, so the file is read a piece at a time."""
    from inspector.loading.records import ENCODER, KeptEntry
    from inspector.loading.reports import PIECE, stored
    from inspector.loading.tasks import store_file

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert isinstance(loading.read(alike_run), loading.Loaded)
    raw = store_file(alike_run).read_bytes()
    header = store.MAGIC + store.code_signature().encode() + b"\n"
    payload = raw[len(header) : -store.DIGEST]
    assert raw == header + payload + hashlib.sha256(payload).digest()
    bins = store_bins(payload)  # each bin's length before it, ending where the payload does
    assert bins[0] == ENCODER.encode(str(alike_run))
    pieces = [msgspec.msgpack.decode(b, type=dict[str, KeptEntry]) for b in bins[1:]]
    assert [ENCODER.encode(piece) for piece in pieces] == bins[1:]
    assert len(pieces) > 1 and all(0 < len(piece) <= PIECE for piece in pieces)
    folders = [folder for piece in pieces for folder in piece]
    assert len(set(folders)) == len(folders) == 2000
    found = stored(store_file(alike_run), str(alike_run))
    assert found is not None and [folder for folder, _ in found] == folders
    assert stored(store_file(alike_run), "/another/run") is None


def test_the_listing_digest_is_made_in_pieces() -> None:
    """The digest of a run's folder listing is SHA-256 of its repr, made a few thousand
    folders at a time: digesting 60,000 folders holds a quarter of their repr's size
    (the whole repr and its encoding before: 2 times it)."""
    import hashlib

    from inspector.loading.index import listing_digest

    folders = tuple((f"details/normal/task-{n:06d}-" + "x" * 60, "normal") for n in range(60_000))
    odd = ((), (("a\udcff", "b"),), (["l"], ("r", "s"), ()), (1, 2), "x")
    for listing in [(folders, ("running/r",), (("p", "m", "R", True),)), *odd]:
        text = repr(listing).encode("utf-8", "surrogateescape")
        assert listing_digest(listing) == hashlib.sha256(text).digest()
    size = len(repr(folders))
    tracemalloc.start()
    try:
        listing_digest((folders, (), ()))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < size / 3, (peak, size)


def test_a_folder_read_is_kept_for_the_store_in_its_packed_keys(alike_run: Path) -> None:
    """While a run is read with the store on, each folder read is kept as its entry, where
    it is found first and its file keys packed in one buffer (ReadKeys): under 60 bytes
    beside its 240 bytes of keys (123 before: a tuple, a dict slot and a bytes object per
    folder)."""
    import gc

    from inspector.loading.index import keys_of
    from inspector.loading.readers import entry_files
    from inspector.loading.tasks import TaskCache

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECTOR_CACHE", "0")
        result = loading.read(alike_run)
    assert isinstance(result, loading.Loaded)
    entries = [e for e in result.session.run.entries if e.state != "running"]
    root = str(alike_run)
    cache = TaskCache(alike_run, reuse=False)
    cache.fence = 2**62  # nothing is racy
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        keys = 0
        for entry in entries:
            packed = keys_of(root, entry_files(entry))
            assert packed is not None
            keys += len(packed)
            cache.read.add(entry, entry.folder, packed)
        del packed
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(entries) == 2000 and keys == 2000 * 5 * 48
    assert (held - keys) / len(entries) < 60, (held - keys) / len(entries)


def test_a_reopen_after_a_change_indexes_the_keys_its_readers_saw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Some folders from the store, one read again: the index takes the read folder's keys
    as its reader saw them (a file changed after it was read must not be recorded as
    read), without a second ``lstat`` of its files."""
    from inspector.loading import readers
    from tests.loading.helpers import first_result, flipped_same_size, settle_time_stamps

    run = copy_run(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert isinstance(loading.read(run), loading.Loaded)
    changed = first_result(run)
    changed.write_bytes(flipped_same_size(changed))
    settle_time_stamps()
    stat_again: list[str] = []
    real = readers.stat_or_absent

    def stat(path: str) -> Any:
        stat_again.append(path)
        return real(path)

    monkeypatch.setattr(readers, "stat_or_absent", stat)
    result = loading.read(run)
    assert isinstance(result, loading.Loaded) and result.cache_hits > 0
    assert stat_again == []
    index_now = index.take(result.session.run)
    assert index_now is not None
    published = [e for e in result.session.run.entries if e.state != "running"]
    assert index_now.stats.endswith(b"".join(_lstat_keys(run, e) for e in published))


def test_a_warm_read_decodes_the_task_store_a_folder_at_a_time(
    alike_run: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A warm read takes each folder from the task store on its own (decoded, checked and
    made an entry at once, its keys kept packed): above what it holds after, it peaks at
    the store file's bytes and under 1.5 KB a folder (4.5 KB before: every folder decoded
    at once, held to the end of the read), and under twice a read with the cache off
    (3.4 times before; 1.4 now)."""
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    _, off, _ = _read_traced(alike_run)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    first = loading.read(alike_run)  # the store written
    assert isinstance(first, loading.Loaded) and first.cache_hits == 0
    size = (reports.run_folder(alike_run) / "tasks").stat().st_size
    held, warm, tasks = _read_traced(alike_run)
    assert tasks == 2000 and loading.read(alike_run).cache_hits == 2000  # type: ignore[union-attr]
    assert (warm - held - size) / tasks < 1500, (warm - held - size) / tasks
    assert warm < 2 * off, (warm, off)


@pytest.mark.parametrize("checked", [True, False])
def test_a_warm_look_up_holds_a_piece_of_the_task_store_not_its_file(
    alike_run: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, checked: bool
) -> None:
    """The task store file is read a piece at a time: a warm look-up that takes every
    folder from it peaks, above the entries it makes, at a small part of the file's size
    (0.06-0.14 times it at 2,000 tasks; the whole file and a view of it per folder
    before: 1.04-1.07 times it). Either with what the report store's check found (every
    folder taken as it is read) or without (checked a block of folders at a time)."""

    from inspector.loading import reports, tasks
    from inspector.results.reader import list_run

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(tasks, "CHECK_BLOCK", 100)
    assert isinstance(loading.read(alike_run), loading.Loaded)  # both stores written
    size = tasks.store_file(alike_run).stat().st_size
    found = None
    if checked:
        kept = reports._load(alike_run)
        assert kept is not None
        found = index.check(alike_run, kept.index)
        assert found is not None and not found.changed
    listed = list_run(alike_run)
    entries: list[Any] = [None] * len(listed.candidates)
    cache = tasks.TaskCache(alike_run)
    args = (entries, listed.candidates, listed.first_location, found, False)
    missing, held, peak = _traced(lambda: cache.look_up(*args))
    assert missing == [] and cache.hits == len(entries) == 2000
    assert peak - held < size / 5, (peak - held, size)


@pytest.mark.parametrize("value", ["answer", "report"])
def test_a_store_for_the_same_index_copies_the_other_tables_a_piece_at_a_time(
    alike_run: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str
) -> None:
    """Storing a further answer, or a report under another plan, for the index the report
    store keeps (the app's store after its warm read) keeps the other score tables, copied
    from the file a piece at a time: the peak above what is held is the tables (0.28 and
    0.50 times the file at 2,000 tasks; the whole file loaded before, as a new process
    does: 1.29 and 1.54 times it)."""
    from inspector.loading import reports
    from inspector.loading.records import Outputs, Table, decoder

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert isinstance(loading.read(alike_run), loading.Loaded)  # both stores written
    monkeypatch.setattr(store, "WINDOW", 1 << 14)  # read, and written, 16 KB at a time
    monkeypatch.setattr(store, "_BUFFER", 1 << 14)
    size = reports.store_file(alike_run).stat().st_size
    kept = reports._load(alike_run)
    assert kept is not None and len(kept.tables) == 1
    (key,) = kept.tables
    snapshot, outputs = kept.index, kept.outputs[key]
    table = decoder(Table).decode(kept.tables[key])
    other = reports.key_for(loading.Overrides(k=1), "outputs")
    monkeypatch.setattr(reports, "_last", (None, None))  # as the app's process: none loaded
    if value == "answer":
        _, held, peak = _traced(lambda: reports.store_snapshot(alike_run, snapshot, "q", (1.0,)))
    else:
        _, held, peak = _traced(
            lambda: reports.store_snapshot(alike_run, snapshot, other, outputs, table)
        )
    again = reports._load(alike_run)
    assert again is not None and again.tables[key] == kept.tables[key]
    assert isinstance(again.outputs[key], Outputs)
    # One table copied a piece at a time (and the new one, encoded), windows of the rest.
    tables = (1 if value == "answer" else 2) * len(kept.tables[key])
    assert peak - held < tables + size / 10, (peak - held, tables, size)


def test_a_first_store_writes_the_score_table_a_part_at_a_time(
    alike_run: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The report store's first write (a run read for the first time) encodes its score
    table a part at a time as it writes it (each row list, each column), never whole: the
    peak above what is held stays below the table's msgpack (0.88 times it at 2,000 tasks:
    the largest part, a column, and its encoder's growing buffer; 1.36 before, the whole
    of it and its growth). At 1M tasks the table's msgpack is about 70 MB."""
    from inspector.loading import reports
    from inspector.loading.records import ENCODER, Table, decoder

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert isinstance(loading.read(alike_run), loading.Loaded)  # both stores written
    monkeypatch.setattr(store, "_BUFFER", 1 << 14)  # written 16 KB at a time
    kept = reports._load(alike_run)
    assert kept is not None and len(kept.tables) == 1
    (key,) = kept.tables
    snapshot, outputs = kept.index, kept.outputs[key]
    table = decoder(Table).decode(kept.tables[key])
    size = len(ENCODER.encode(table))
    reports.store_file(alike_run).unlink()
    monkeypatch.setattr(reports, "_last", (None, None))
    _, held, peak = _traced(
        lambda: reports.store_snapshot(alike_run, snapshot, key, outputs, table)
    )
    again = reports._load(alike_run)
    assert again is not None and again.tables[key] == kept.tables[key]
    assert peak - held < size, (peak - held, size)


def test_a_preview_reads_the_report_stores_head_and_a_readers_check_no_table(
    alike_run: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The app's unchecked preview reads the report store's head (its outputs), not its
    index's stats nor its score tables: its peak is a small part of the file (0.05 times
    it at 2,000 tasks; the whole file before: 1.24 times it). A reader's check reads the stats (the
    check needs them), not the score tables (only a reopen after changes needs those)."""
    from inspector.loading import reports

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert isinstance(loading.read(alike_run), loading.Loaded)  # both stores written
    monkeypatch.setattr(store, "WINDOW", 1 << 14)
    size = reports.store_file(alike_run).stat().st_size
    key = reports.key_for(None, "outputs")
    monkeypatch.setattr(reports, "_last", (None, None))
    kept = reports._load(alike_run)
    assert kept is not None and len(kept.tables) == 1
    tables = len(kept.tables[key])
    monkeypatch.setattr(reports, "_last", (None, None))
    del kept
    found, _, peak = _traced(lambda: reports.last(alike_run, key))
    assert found[0] is not None
    assert peak < size / 10, (peak, size)
    pieces: list[int] = []
    read = reports._piece
    monkeypatch.setattr(reports, "_piece", lambda *a, **k: pieces.append(1) or read(*a, **k))
    assert reports._lookup_in(store.runs_dir(), alike_run, key) is not None
    assert len(pieces) == 2, pieces  # the head, the stats: not the table
    assert tables > size / 10


def test_the_report_store_is_not_kept_loaded_after_a_preview_or_a_readers_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report store's file (its score tables and its index's keys: 310 MB at 1M tasks)
    is taken apart without copying the keys (a view of the file's bytes), and is not kept
    loaded after the app's unchecked preview (it was, while the run was read: the app's
    memory) nor in a reader process after its check (it was, for the app's life)."""
    from inspector.loading import reports

    run = copy_run(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert isinstance(loading.read(run), loading.Loaded)
    key = reports.key_for(None, "outputs")
    kept = reports._load(run)
    assert kept is not None and type(kept.index.stats) is memoryview
    assert reports._last[1] is kept
    monkeypatch.setattr(reports, "_last", (None, None))
    outputs, _ = reports.last(run, key)  # the head alone read, nothing kept
    assert outputs is not None and reports._last == (None, None)
    assert reports._lookup_in(store.runs_dir(), run, key) == outputs  # as a reader does
    assert reports._last == (None, None)
    assert reports._lookup_in(None, run, key) == outputs  # in the caller: kept for its store
    assert reports._last[1] is not None


def test_a_readers_check_gives_back_the_free_heap_it_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shared reader process that checked the report store gives back the free heap the
    check left (glibc keeps up to ``HEAP_FREE_KEPT`` in a reader: 64 MB), not kept idle for
    the app's life; the caller's own lookup does not trim its heap."""
    from inspector.loading import reports

    run = copy_run(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert isinstance(loading.read(run), loading.Loaded)
    key = reports.key_for(None, "outputs")
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(reports, "libc", lambda *args: calls.append(args) or True)
    assert reports._lookup_in(None, run, key) is not None
    assert calls == []
    assert reports._lookup_in(store.runs_dir(), run, key) is not None  # as a reader does
    assert calls == [("malloc_trim", 0)]


def _files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _resident_kb(folder: Path) -> list[int]:
    """The resident KB of each mapping of a file in ``folder`` (``/proc/self/smaps``)."""
    found, inside = [], False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split(maxsplit=1)[0]
            if "-" in head and all(c in "0123456789abcdef-" for c in head):
                inside = str(folder) in line
            elif inside and head == "Rss:":
                found.append(int(line.split()[1]))
    return found


def _first_open_held(run: Path, monkeypatch: pytest.MonkeyPatch, cache: Path) -> tuple[Any, int]:
    """A first open of ``run`` (its store written into ``cache``): what it gives and the
    bytes it holds after, above a read with the cache off."""
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    off, _, _ = _read_traced(run)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    result, held, _ = _traced(lambda: loading.answer(run))
    assert isinstance(result, loading.Loaded) and result.outputs is not None
    return result, held - off


def test_a_first_open_keeps_its_folders_keys_in_an_unnamed_file(
    alike_run: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """From ``tasks.SPILL`` bytes of keys on, a read writes its folders' file keys to an
    unnamed file in the cache folder as they come and its index maps that file (240 bytes
    a task at k=3, 240 MB at a million tasks, held beside the run's entries before): a
    first open holds under 60 bytes a task more than a read with the cache off (15; 267
    on main). The report, the index's keys and both stores are those of a read holding
    them, the cache folder holds nothing else, and a warm read takes every folder."""
    from inspector.loading import tasks

    monkeypatch.setattr(tasks, "SPILL", 1 << 16, raising=False)  # 2,000 tasks: 480 KB of keys
    spilled, extra = _first_open_held(alike_run, monkeypatch, tmp_path / "spilled")
    assert extra / 2000 < 60, extra / 2000
    made = spilled.session.run.index
    assert type(made.stats) is memoryview  # the spill file, mapped
    if os.path.exists("/proc/self/smaps"):  # its pages let go as the report store was written
        assert _resident_kb(tmp_path / "spilled") == [0]
    published = [e for e in spilled.session.run.entries if e.state != "running"]
    assert len(published) == 2000
    assert bytes(made.stats).endswith(b"".join(_lstat_keys(alike_run, e) for e in published))
    monkeypatch.setattr(tasks, "SPILL", 1 << 40, raising=False)  # all held, as before
    held, _ = _first_open_held(alike_run, monkeypatch, tmp_path / "held")
    assert type(held.session.run.index.stats) is bytearray
    assert spilled.outputs == held.outputs
    assert bytes(made.stats) == bytes(held.session.run.index.stats)
    assert _files_under(tmp_path / "spilled") == _files_under(tmp_path / "held")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "spilled"))
    warm = loading.read(alike_run)
    assert isinstance(warm, loading.Loaded) and warm.cache_hits == 2000


@pytest.mark.parametrize("failing", ["no file", "a write"])
def test_keys_not_written_to_a_file_are_held(
    failing: str, alike_run: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No spill file (no ``O_TMPFILE``, a folder that cannot be made), or a write to it
    failing (a full disk) part way: the keys not written are held, those written read
    back, and the index and stores are the same."""
    from inspector.loading import tasks

    monkeypatch.setattr(tasks, "SPILL", 1 << 16)
    if failing == "no file":
        monkeypatch.setattr(store, "spill_file", lambda folder: -1)
    else:
        writes = [0]
        pwrite = os.pwrite

        def full(fd: int, data: Any, offset: int) -> int:
            writes[0] += 1
            if writes[0] > 3:
                raise OSError(28, "No space left on device")
            return pwrite(fd, data, offset)

        monkeypatch.setattr(tasks.os, "pwrite", full)
    result, _ = _first_open_held(alike_run, monkeypatch, tmp_path / "failing")
    monkeypatch.undo()
    stats = result.session.run.index.stats
    assert type(stats) is bytearray
    if failing == "a write":
        assert writes[0] > 3
    published = [e for e in result.session.run.entries if e.state != "running"]
    assert stats.endswith(b"".join(_lstat_keys(alike_run, e) for e in published))
    monkeypatch.setattr(tasks, "SPILL", 1 << 40)
    held, _ = _first_open_held(alike_run, monkeypatch, tmp_path / "held")
    assert result.outputs == held.outputs
    assert _files_under(tmp_path / "failing") == _files_under(tmp_path / "held")


def test_a_task_stores_keys_go_with_it_without_the_cyclic_collector(
    alike_run: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A read's ``ReadKeys`` (and its unnamed file, up to 240 MB at a million tasks) is
    freed as soon as its task store is, even where it is never saved (a read that failed,
    an audit's small run) and the cyclic collector is paused or the objects frozen (every
    read freezes what it built): it refers to its folder by name, not to the store."""
    import gc
    import weakref

    from inspector.loading import tasks

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(tasks, "SPILL", 1 << 10)
    entry = loading.read(alike_run).session.run.entries[0]
    cache = tasks.TaskCache(alike_run)
    for _ in range(30):  # 30 folders' keys: past SPILL, so an unnamed file is open
        cache.read.add(entry, entry.folder, b"\0" * index.RECORD * 5)
    assert cache.read.fd >= 0
    held, fd = weakref.ref(cache.read), cache.read.fd
    enabled = gc.isenabled()
    gc.disable()
    try:
        del cache
        assert held() is None
        with pytest.raises(OSError):
            os.fstat(fd)  # closed with it
    finally:
        if enabled:
            gc.enable()
