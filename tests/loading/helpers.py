"""Helpers for the loading tests: copies of runs and rewrites that ordinary tools make."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import msgspec

from inspector.cli import main as cli
from inspector.loading import reports, store
from tests.conftest import conformance_run


def source_run() -> Path:
    """``e2e_k1_micro``: a small run written by AgentCompass itself."""
    return conformance_run("e2e_k1_micro")


def settle_time_stamps() -> None:
    """Wait until files written just now are no longer racy (safely older than the next
    read, see ``is_racy``): only then may a read of them be cached."""
    time.sleep(store.FINE_GRANULARITY_NS / 1e9 + 0.02)


def copy_run(tmp_path: Path, source: Path | None = None) -> Path:
    run = tmp_path / "run"
    shutil.copytree(source or source_run(), run, symlinks=True)
    settle_time_stamps()
    return run


def first_result(run: Path) -> Path:
    return sorted(run.glob("details/normal/*/attempt-1/result.json"))[0]


def flipped_same_size(path: Path) -> bytes:
    """The bytes of ``path`` with its first boolean metric flipped, padded with trailing
    spaces to exactly the same size (so size and modification time can both be kept)."""
    original = path.read_bytes()
    payload = json.loads(original)
    name = next(n for n, v in payload["metrics"].items() if isinstance(v, bool))
    payload["metrics"][name] = not payload["metrics"][name]
    compact = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    assert len(compact) < len(original)
    return compact + b" " * (len(original) - len(compact))


def replace_keeping_mtime(path: Path, data: bytes) -> None:
    """AgentCompass's way of writing (temp file + ``os.replace``), then the old
    modification time put back (``os.utime``, as a restore from a backup does)."""
    before = path.stat()
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def copy_preserving(path: Path, data: bytes, scratch: Path) -> None:
    """``cp -p other path``: the bytes written into the existing file (same inode), then
    the other file's times copied (here: the old time of ``path``)."""
    before = path.stat()
    other = scratch / "other.json"
    other.write_bytes(data)
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    shutil.copy2(other, path)
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def count_summaries(monkeypatch, *modules) -> list[str]:  # type: ignore[no-untyped-def]
    """The runs whose run-level files are read (``summarize_run`` as each of ``modules``
    calls it) from now on; the others came from the cache."""
    from inspector.results import discover

    read: list[str] = []
    summarize = discover.summarize_run

    def counted(path: Path, relative: str = "."):  # type: ignore[no-untyped-def]
        read.append(relative)
        return summarize(path, relative)

    for module in modules:
        monkeypatch.setattr(module, "summarize_run", counted)
    return read


def task_store_file(run: Path) -> Path:
    """Where the store keeps a run's task folders."""
    return reports.run_folder(run) / "tasks"


def report_file(run: Path) -> Path:
    """Where the store keeps a run's index and reports."""
    return reports.run_folder(run) / "report"


def _header(signature: str | None = None) -> bytes:
    return store.MAGIC + (signature or store.code_signature()).encode() + b"\n"


def store_bins(payload: bytes) -> list[bytes]:
    """The bytes of each msgpack bin in a store file's ``payload``, in order (each bin's
    length before it); the bins end where the payload does."""
    bins, at = [], 0
    while at < len(payload):
        width = {0xC4: 1, 0xC5: 2, 0xC6: 4}[payload[at]]
        size = int.from_bytes(payload[at + 1 : at + 1 + width], "big")
        bins.append(payload[at + 1 + width : at + 1 + width + size])
        at += 1 + width + size
    assert at == len(payload)
    return bins


def _bin(data: bytes) -> bytes:
    width = 1 if len(data) < 1 << 8 else 2 if len(data) < 1 << 16 else 4
    return bytes([0xC3 + width.bit_length()]) + len(data).to_bytes(width, "big") + data


def stored_data(path: Path) -> Any:
    """A report store file's record as plain msgpack data (lists, dicts, bytes), its header
    and checksum checked, in the shape of ``records.Report``: ``[root, [listing, attempts,
    stats], outputs, answers, tables, refused, records]`` (the file holds it as bins: the
    rest, the stats, then each score table's pieces)."""
    raw = path.read_bytes()
    assert raw.startswith(_header())
    payload = raw[len(_header()) : -32]
    assert hashlib.sha256(payload).digest() == raw[-32:]
    head, stats, *pieces = store_bins(payload)
    root, listing, attempts, outputs, answers, refused, records, names = msgspec.msgpack.decode(
        head
    )
    kept, at = {}, 0
    for name, count in names:  # each table in pieces: their bytes joined are its msgpack
        kept[name] = msgspec.msgpack.decode(b"".join(pieces[at : at + count]))
        at += count
    assert at == len(pieces)
    return [root, [listing, attempts, stats], outputs, answers, kept, refused, records]


def write_data(path: Path, data: Any, signature: str | None = None) -> None:
    """Write plain data as a report store file would be written (data in
    :func:`stored_data`'s shape, else as one msgpack record), with a valid header (of
    ``signature``, else this code's) and checksum: only its shape can make it a miss."""
    shaped = isinstance(data, list) and len(data) == 7 and isinstance(data[1], list)
    if shaped and len(data[1]) == 3 and isinstance(data[4], dict):
        (listing, attempts, stats), tables = data[1], data[4]
        names = [[name, 1] for name in tables]  # each table in one piece
        head = [data[0], listing, attempts, data[2], data[3], data[5], data[6], names]
        stats = stats if isinstance(stats, bytes) else msgspec.msgpack.encode(stats)
        pieces = [msgspec.msgpack.encode(head), stats]
        payload = b"".join(
            _bin(p) for p in pieces + [msgspec.msgpack.encode(t) for t in tables.values()]
        )
    else:
        payload = msgspec.msgpack.encode(data)
    path.write_bytes(_header(signature) + payload + hashlib.sha256(payload).digest())


def task_store_data(path: Path) -> list[Any]:
    """A task store file as plain msgpack data, its header and checksum checked: each of
    its msgpack bins decoded (the run's root, then its pieces, each a mapping of folder to
    entry), the pieces joined in one mapping."""
    raw = path.read_bytes()
    assert raw.startswith(_header())
    payload = raw[len(_header()) : -32]
    assert hashlib.sha256(payload).digest() == raw[-32:]
    bins = [msgspec.msgpack.decode(data) for data in store_bins(payload)]
    return [bins[0], {folder: entry for piece in bins[1:] for folder, entry in piece.items()}]


def write_task_store(path: Path, data: list[Any]) -> None:
    """Write plain data as the task store is written, each item a msgpack bin (the run's
    root, then a piece), with a valid header and checksum: only its shape can make it a miss."""
    items = [msgspec.msgpack.encode(item) for item in data]
    payload = b"".join(msgspec.msgpack.encode(item) for item in items)  # each a bin
    path.write_bytes(_header() + payload + hashlib.sha256(payload).digest())


def stored_entries(run: Path) -> dict[str, Any]:
    """Each folder of the run's task store (its base, then its delta over it) and its
    entry as msgpack (``tasks.NIL``: gone)."""
    from inspector.loading import reports, tasks

    base = tasks.store_file(run)
    found = dict(reports.stored(base, str(run)) or ())
    found.update(reports.stored(base.with_name("tasks.delta"), str(run)) or ())
    return found
