"""A run's reports, kept in its store for the state of its files its index records: the
report under each plan, the further answers kept with it, and the score table a reopen
after a few changed folders answers from (:mod:`inspector.loading.reopen`).

A lookup answers only while the index matches the files; else the run is read as usual.
Plans given as files (``--hierarchy``, ``--contract``) are never kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from inspector.loading import index as snapshots
from inspector.loading import store as stores
from inspector.loading.processes import in_shared_pool, libc, preload_in_readers
from inspector.loading.records import ENCODER, Index, Outputs, Refusal, Report, Table, decoder
from inspector.overrides import Overrides
from inspector.results.file_io import stat_key

PIECE = 64
"""Folders in a piece of a task store file (about 50 KB at three attempts): read one at a
time (tasks.pieces writes them, :func:`stored` reads them)."""
preload_in_readers(__name__)  # its lookups run in the reader processes


def key_for(overrides: Overrides | None, command: str) -> str | None:
    """The cache key of one command and plan, or None when it cannot be cached."""
    if overrides is None:
        overrides = Overrides()
    if overrides.hierarchy is not None or overrides.contract is not None:
        return None
    plan = [overrides.k, overrides.strategy, overrides.aggregation, overrides.benchmark_id]
    return json.dumps([command, plan])


def run_folder(run_root: Path | str, folder: Path | None = None) -> Path:
    """The store of the run at ``run_root`` (``folder``: the runs folder, else the user's),
    named by its real path."""
    folder = folder or stores.runs_dir()
    if folder is None:
        raise OSError("no user cache folder")
    name = os.path.realpath(run_root).encode("utf-8", "surrogateescape")
    return folder / hashlib.sha256(name).hexdigest()[:32]


def store_file(run_root: Path, folder: Path | None = None) -> Path:
    """Where the run's reports are kept (``folder``: the runs folder, else the user's)."""
    return run_folder(run_root, folder) / "report"


_last: tuple[Any, Any] = (None, None)
"""The last file :func:`_load` took apart (its path, stat key, whether with its score
tables) and what it held: a lookup after it in the same process does not load it again."""


class _Head(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """The first piece of a report store file: all but its index's stats (the next piece) and
    its score tables (pieces after, in ``tables``' order: joined, each one's msgpack)."""

    root: str
    listing: bytes
    attempts: msgspec.Raw  # the index's attempts, decoded only with the stats
    outputs: dict[str, Outputs]
    answers: dict[str, tuple[float, ...]]
    refused: dict[str, Refusal]
    records: dict[str, msgspec.Raw]
    tables: tuple[tuple[str, int], ...]  # each table's name and its pieces (_table_parts)


ATTEMPTS = tuple[tuple[int, ...] | int, ...]  # as records.Index types them


def _load(run_root: Path, folder: Path | None = None, tables: bool = True) -> Report | None:
    """The run's report store (without its score tables unless ``tables``)."""
    global _last
    path = store_file(run_root, folder)
    try:
        seen = (str(path), stat_key(os.stat(path)))
    except OSError:
        return None
    if _last[0] is not None and _last[0][:2] == seen and (_last[0][2] or not tables):
        return _last[1]  # type: ignore[no-any-return]
    found = None
    opened = _opened(path, run_root)
    if opened is not None:
        with opened[0] as handle, contextlib.suppress(OSError, ValueError, KeyError, IndexError):
            found = _report(handle, opened[1], tables)
    _last = ((*seen, tables), found)
    return found


def _opened(path: Path, run_root: Path) -> tuple[Any, _Head] | None:
    """The report store file at ``path`` checked (:func:`~store.checked_record`), open past
    its head, and its head; None when it is not one or not the run ``run_root``'s."""
    opened = stores.checked_record(path) if os.path.exists(path) else None  # as _load
    if opened is None:
        return None
    handle = opened[0]
    try:
        head = decoder(_Head).decode(_piece(handle))
        if head.root == os.path.realpath(run_root):
            return handle, head
    except (OSError, ValueError, KeyError, IndexError):
        pass
    handle.close()
    return None


def _report(handle: Any, head: _Head, tables: bool) -> Report:
    """The report whose ``head`` was read from ``handle``: its stats and tables read next."""
    index = Index(head.listing, decoder(ATTEMPTS).decode(head.attempts), memoryview(_piece(handle)))
    wanted = head.tables if tables else ()
    kept = {name: msgspec.Raw(b"".join([_piece(handle) for _ in range(n)])) for name, n in wanted}
    return Report(head.root, index, head.outputs, head.answers, kept, head.refused, head.records)


def lookup(
    run_root: Path,
    key: str | None,
    *,
    shared: bool = False,
    on_changes: Callable[[snapshots.Checked], None] | None = None,
) -> Any | None:
    """What was stored under ``key`` for this run, if the run has not changed since.
    ``shared``: the caller has threads (the app): the check runs in one of its shared
    reader processes, not beside the interface thread. ``on_changes``: gets what the check
    found when a few files changed (the read that follows need not ``lstat`` the rest)."""
    if key is None or not stores.enabled():
        return None
    if shared:
        # The reader processes were started earlier: tell them where the store is now.
        answers = in_shared_pool(_lookup_in, [(stores.runs_dir(), Path(run_root), key)])
        if answers is not None:
            return answers[0]
    return _lookup_in(None, run_root, key, on_changes)


def peek(run_root: Path, key: str | None) -> Outputs | None:
    """The last outputs stored under ``key`` for this run (:func:`last`), NOT checked."""
    found = last(run_root, key)[0]
    return found if isinstance(found, Outputs) else None


def last(run_root: Path, key: str | None) -> tuple[Outputs | str | None, dict[str, Any]]:
    """The last report under ``key`` NOT checked against the run's files (the app's first
    preview): its outputs, or the line saying why the run could not be scored, and the
    further answers kept beside it; ``(None, {})`` when none is kept. Only the store's head
    is read (not its index's stats nor its score tables), and not kept after."""
    wanted = key is not None and stores.enabled()
    opened = _opened(store_file(run_root), run_root) if wanted else None
    if opened is None or key is None:
        return None, {}
    opened[0].close()
    found = opened[1]  # the head alone: the stats and score tables are not read
    outputs, refused = found.outputs.get(key), found.refused.get(key)
    if outputs is None and refused is not None:
        return refused.line(run_root), found.answers
    return outputs, found.answers


def _lookup_in(
    folder: Path | None,
    run_root: Path,
    key: str,
    on_changes: Callable[[snapshots.Checked], None] | None = None,
) -> Any | None:
    """:func:`lookup` in the cache ``folder`` (None: the user's); ``on_changes`` gets
    what a check that found changed files found. A reader process (``folder`` given)
    keeps nothing of the store after (:data:`_last`), nor the free heap the check left."""
    global _last
    found = _checked(run_root, folder, key, on_changes)
    if folder is not None:
        _last = (None, None)
        libc("malloc_trim", 0)  # the free heap the check left, not kept for the app's life
    kinds = () if found is None else (found.outputs, found.refused, found.answers, found.records)
    return next((kept[key] for kept in kinds if kept.get(key) is not None), None)


def _checked(
    run_root: Path,
    folder: Path | None = None,
    key: str | None = None,
    on_changes: Callable[[snapshots.Checked], None] | None = None,
) -> Report | None:
    """The run's report store when its files are still as its index says (within
    :func:`held`, the block's one check); None when it keeps nothing (under ``key``, when
    given) or the run changed."""
    name = os.path.abspath(run_root)
    loaded = _held.runs.get(name, _UNSEEN)
    if loaded is _UNSEEN:
        loaded = _load(run_root, folder, tables=on_changes is not None)
        kinds = () if loaded is None else (loaded.outputs, loaded.refused, loaded.answers)
        if loaded is None or (
            key is not None and all(key not in k for k in (*kinds, loaded.records))
        ):
            return None  # nothing to check the files for
        found = snapshots.check(run_root, loaded.index)
        if found is None or found.changed:
            if found is not None and on_changes is not None:
                found.tables = loaded.tables
                on_changes(found)
            loaded = None
        if name in _held.runs:
            _held.runs[name] = loaded
    return loaded  # type: ignore[no-any-return]


def state(run_root: Path) -> str | None:
    """A name for the state of the run's files as its store's index records it, when the
    files are still as it says; None when nothing is kept or the run changed."""
    found = _checked(run_root) if stores.enabled() else None
    return None if found is None else snapshots.name(found.index)


class _Held(threading.local):
    def __init__(self) -> None:
        self.runs: dict[str, Any] = {}


_held = _Held()
_UNSEEN = object()


@contextlib.contextmanager
def held(run_root: Path) -> Iterator[None]:
    """Within the block, every lookup for the run answers from one check of its files (the
    first lookup's): its answers are of one state of the run. A store starts a new check."""
    name = os.path.abspath(run_root)
    _held.runs[name] = _UNSEEN
    try:
        yield
    finally:
        _held.runs.pop(name, None)


def store_snapshot(
    run_root: Path,
    snapshot: Any,
    key: str | None,
    value: Any,
    table: Table | None = None,
    extra: dict[str, Any] | None = None,
) -> None:
    """Keep ``value`` (:class:`Outputs`, :class:`Refusal`: why the run could not be scored,
    or a further answer) under ``key``, with ``table`` (its score table) and ``extra``
    (further answers by key), for the run as ``snapshot`` (its index; None: nothing is
    kept) says. What else is kept for the same index stays: the other score tables are
    copied from the file a piece at a time (it is never loaded whole)."""
    if snapshot is None or key is None or not stores.enabled():
        return
    path, root = store_file(run_root), os.path.realpath(run_root)
    attempts = ENCODER.encode(snapshot.attempts)
    old = _same_index(path, run_root, snapshot, attempts)
    was = old[1] if old is not None else _Head(root, b"", msgspec.Raw(b"\x90"), {}, {}, {}, {}, ())
    outputs, answers, refused = dict(was.outputs), dict(was.answers), dict(was.refused)
    records, names = dict(was.records), list(was.tables)
    kept = {name for name, _ in names}
    parts: list[Callable[[], bytes]] = []
    if isinstance(value, Outputs | Refusal):
        outputs.pop(key, None)
        refused.pop(key, None)
        kept.discard(key)
        (refused if isinstance(value, Refusal) else outputs)[key] = value  # type: ignore[index]
        if table is not None:
            parts = _table_parts(table)
    else:
        _answer_in(answers, records, key, value)
    for name, answer in (extra or {}).items():
        _answer_in(answers, records, name, answer)
    if os.path.abspath(run_root) in _held.runs:
        _held.runs[os.path.abspath(run_root)] = _UNSEEN
    global _last
    _last = (None, None)  # written anew: its tables (the whole file's bytes) are not kept
    order = [(n, count) for n, count in names if n in kept] + ([(key, len(parts))] if parts else [])
    head = _Head(root, snapshot.listing, msgspec.Raw(attempts), outputs, answers, refused,
                 records, tuple(order))  # fmt: skip

    def pieces() -> Iterator[bytes]:
        yield from framed(ENCODER.encode(head))
        yield from framed(snapshot.stats)
        for name, count in names:  # the old file's tables after its stats, a piece at a time
            for _ in range(count):
                data = _piece(old[0], skip=name not in kept)  # type: ignore[index]
                yield from framed(data) if name in kept else ()
        for part in parts:  # the new table encoded a part at a time, not whole
            yield from framed(part())

    with old[0] if old is not None else contextlib.nullcontext():
        stores.write_streamed(path, pieces)


def _same_index(path: Path, run_root: Path, snapshot: Any, attempts: bytes) -> Any:
    """The report store file open at its first score table, and its head, when its index is
    ``snapshot`` (``attempts`` encoded; its stats compared a window at a time); else None."""
    opened = _opened(path, run_root)
    if opened is None:
        return None
    handle, head = opened
    with contextlib.suppress(OSError, ValueError, KeyError, IndexError):
        stats = memoryview(snapshot.stats).cast("B")
        same = head.listing == snapshot.listing and head.attempts == msgspec.Raw(attempts)
        if same and _piece(handle, sized=True) == len(stats):
            for at in range(0, len(stats), stores.WINDOW):
                window = stats[at : at + stores.WINDOW]
                if handle.read(len(window)) != window:
                    break
            else:
                return handle, head
    handle.close()
    return None


def _table_parts(table: Table) -> list[Callable[[], bytes]]:
    """``ENCODER.encode(table)`` in parts, each made as it is written (70 MB whole at 1M tasks):
    header, run level and series; each row list; columns' header; each column (joined)."""
    level, series, *rows, columns = msgspec.structs.astuple(table)
    return [
        lambda: array_header(len(rows) + 3) + ENCODER.encode(level) + ENCODER.encode(series),
        *[lambda row=row: ENCODER.encode(row) for row in rows],
        lambda: array_header(len(columns)),
        *[lambda column=column: ENCODER.encode(column) for column in columns],
    ]


def array_header(count: int) -> bytes:
    """msgpack's header of an array of ``count`` items (its shortest form, as msgspec's)."""
    return ENCODER.encode((None,) * count)[: -count or None]  # each None is one byte


def framed(data: Any) -> tuple[bytes, Any]:
    return bin_header(len(data)), data  # a msgpack bin: its header, ``data`` as it is


def _answer_in(answers: dict[str, Any], records: dict[str, Any], key: str, value: Any) -> None:
    """A further answer kept: a tuple of numbers as it is, any other record encoded."""
    if isinstance(value, tuple):
        answers[key] = tuple(value)
    else:
        records[key] = msgspec.Raw(ENCODER.encode(value))


def stored(path: Path, root: str) -> Iterator[tuple[str, msgspec.Raw]] | None:
    """Each folder of the task store file at ``path`` and its entry (:data:`NIL`: gone),
    read a piece at a time; None when it is not a checked store file
    (:func:`~store.checked_record`) of the run ``root``. A piece that is not one ends the
    folders (the rest are read from their files)."""
    opened = stores.checked_record(path) if os.path.exists(path) else None  # as _load
    if opened is None:
        return None
    handle, size = opened
    try:
        end = handle.tell() + size
        if _piece(handle) == ENCODER.encode(root):
            return _folders(handle, end)
    except (OSError, ValueError, KeyError, IndexError):
        pass
    handle.close()
    return None


def _folders(handle: Any, end: int) -> Iterator[tuple[str, msgspec.Raw]]:
    piece = decoder(dict[str, msgspec.Raw])
    with handle:
        while handle.tell() < end:
            try:
                folders = piece.decode(_piece(handle))
            except (OSError, ValueError, KeyError, IndexError):
                return
            yield from folders.items()


def _piece(handle: Any, skip: bool = False, sized: bool = False) -> Any:
    """The bytes of the msgpack bin next in ``handle`` (``skip``: read past them; ``sized``:
    their size, read up to them)."""
    width = {0xC4: 1, 0xC5: 2, 0xC6: 4}[handle.read(1)[0]]
    size = int.from_bytes(handle.read(width), "big")
    if sized:
        return size
    if skip:
        handle.seek(size, 1)
        return b""
    data = handle.read(size)
    if len(data) != size:
        raise ValueError("cut short")
    return data  # type: ignore[no-any-return]


def bin_header(size: int) -> bytes:
    """msgpack's header of a bin of ``size`` bytes (its shortest form, as msgspec's)."""
    width = 1 if size < 1 << 8 else 2 if size < 1 << 16 else 4
    return bytes([0xC3 + width.bit_length()]) + size.to_bytes(width, "big")
