"""A run's index: has it changed since it was read? A cheap check for reopening it.

An :class:`~inspector.loading.records.Index` covers every file a run's report depends on — the run-level files, each
task folder, its ``task.json`` and its attempts' ``result.json`` (and the task folders under
``running/``) — keyed as git's index keys files (device, inode, mode, size, mtime_ns,
ctime_ns: :func:`~inspector.results.file_io.stat_key`) as the reader saw them while reading,
plus the task folder listing. Checking it again costs one listing and one ``lstat`` per
file and parses nothing. A file replaced through a temporary file has a new inode and
change time, a file edited in place a new change time, whatever its modification time was
set back to; a run with a file written too recently to tell (racy) is not stored.

It is kept compactly: a digest of the listing, each entry's attempt numbers (from which
the paths follow) and the stats packed as bytes (:data:`RECORD` per file: taken apart and
compared as bytes, they cost no Python integers to load, check or store).
"""

from __future__ import annotations

import array
import functools
import hashlib
import os
import struct
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.loading.processes import halves_in_fork, in_shared_pool, preload_in_readers
from inspector.loading.records import ENCODER, Index
from inspector.loading.store import ABSENT, COARSE_GRANULARITY_NS, is_racy
from inspector.results.file_io import stat_key
from inspector.results.listing import RUN_FILES, list_task_folders, repr_pieces, running_files

if TYPE_CHECKING:  # pragma: no cover
    from inspector.results.reader import Run

preload_in_readers(__name__)  # its _changed runs in the reader processes

PACKED = struct.Struct("<6q")
"""One file's :data:`~inspector.results.file_io.Stat` in :attr:`Index.stats`: six signed
64-bit integers (a value that does not fit is not cached)."""
RECORD = PACKED.size
Signature = tuple[tuple[Any, ...], ...]
"""Per file of a task folder ``(rel, device, inode, mode, size, mtime_ns, ctime_ns)``."""
"""Bytes per file in :attr:`Index.stats`."""


def pack(stat: tuple[int, ...]) -> bytes | None:
    """A stat key as :attr:`Index.stats` holds it (None when a value does not fit)."""
    try:
        return PACKED.pack(*stat)
    except struct.error:
        return None


WIDTH = 6
"""Integers per file in a :data:`~inspector.results.file_io.Stat`."""
RUNNING_ENTRY = -1
"""In :attr:`Index.attempts`: the entry is a ``running/`` folder."""
HEAD = RECORD * len(RUN_FILES)
"""The run-level files' keys start :attr:`Index.stats`: a buffer of the task folders'
keys made as they are read starts with room for them (:func:`take` fills it)."""


def rels(index: Index, listing: tuple[Any, ...]) -> list[str] | None:
    """Every file of the index, given the run's current (same) listing."""
    candidates, running, _ = listing
    folders = [folder for folder, _ in candidates] + list(running)
    if len(folders) != len(index.attempts):
        return None
    out = list(RUN_FILES)
    # Most entries have the same attempt numbers: their suffixes are made once.
    tails: dict[Any, list[str]] = {}
    for folder, numbers in zip(folders, index.attempts, strict=True):
        tail = tails.get(numbers)
        if tail is None:
            tail = tails[numbers] = _tail(numbers)
        out.append(folder)
        out += [folder + end for end in tail]
    return out


def _tail(numbers: Any) -> list[str]:
    """What follows a task folder's name in the paths of its files (:func:`rels`)."""
    if numbers == RUNNING_ENTRY:
        return ["/task.json"]
    return ["/task.json", *(f"/attempt-{number}/result.json" for number in numbers)]


def packed_is_racy(packed: bytes, fence_ns: int) -> bool:
    """Whether a file of a packed signature is racy (:func:`~store.is_racy`)."""
    values = _values(packed)
    newest = max(max(values[4::WIDTH], default=0), max(values[5::WIDTH], default=0))
    if newest < fence_ns - COARSE_GRANULARITY_NS:
        return False
    return any(
        is_racy(tuple(values[at : at + WIDTH]), fence_ns)  # type: ignore[arg-type]
        for at in range(0, len(values), WIDTH)
    )


def _values(packed: bytes) -> Any:
    """The integers of packed stats, unpacked one at a time as they are read."""
    if sys.byteorder == "little":
        return memoryview(packed).cast("q")
    return struct.unpack(f"<{len(packed) // 8}q", packed)  # pragma: no cover - big-endian


def listing_digest(listing: tuple[Any, ...]) -> bytes:
    """SHA-256 of ``repr(listing)`` (not marshal: its bytes depend on how objects are
    shared), made 4,096 folders at a time: whole, at a million it is 100 MB of text."""
    digest = hashlib.sha256()
    for piece in repr_pieces(listing):
        digest.update(piece.encode("utf-8", "surrogateescape"))
    return digest.digest()


def take(run: Run) -> Index | None:
    """The index of a run just read (with the cache on), or None when some file could
    not be stat'ed (then nothing is cached)."""
    if run.index is not None:  # taken before: the signatures are in it
        return run.index  # type: ignore[no-any-return]
    if run.seen is None or run.listing is None:
        return None
    # The stats as bytes, joined once (as Python integers they cost 1.2 KB a task while
    # the store is written); equal attempt numbers one tuple. ``run.signatures``: per
    # folder its packed_signature, or all after :data:`HEAD` (filled in place, not copied).
    pieces: list[bytes] = []
    attempts: list[Any] = []
    shared: dict[Any, Any] = {}
    signed, files = run.signatures, 0  # files: of the task folders
    joined = type(signed) is bytearray
    try:
        for rel in RUN_FILES:
            pieces.append(PACKED.pack(*run.seen[rel]))  # type: ignore[misc]
        for entry in run.entries:
            if entry.state == "running":
                attempts.append(RUNNING_ENTRY)
                for rel in running_files(entry.folder):
                    pieces.append(PACKED.pack(*run.seen[rel]))  # type: ignore[misc]
                continue
            dirs = entry.attempt_dirs  # AttemptDirs: its own tuple; a mapping: its keys
            numbers = tuple(sorted(getattr(dirs, "numbers", dirs)))
            attempts.append(shared.setdefault(numbers, numbers))
            if joined:
                if len(pieces) > len(RUN_FILES):
                    return None  # a task folder after a running/ one: not in that order
                files += 2 + len(numbers)
                continue
            packed = signed[entry.folder]  # tasks.packed_signature's
            if packed is None:
                return None
            pieces.append(packed)
    except (KeyError, TypeError):
        return None
    except struct.error:
        return None  # a value that does not fit: not cached
    if joined:
        if len(signed) != HEAD + RECORD * files:
            return None
        signed[:HEAD] = b"".join(pieces[: len(RUN_FILES)])
        signed += b"".join(pieces[len(RUN_FILES) :])
        packed = signed
    else:
        packed = b"".join(pieces)
    del pieces
    # No stamp within the coarsest granularity of the fence: none is racy (one pass in C
    # instead of a call per file).
    if packed_is_racy(packed, run.read_started_ns):
        return None  # a file written as it was read: read the run again next time
    run.index = Index(listing_digest(run.listing), tuple(attempts), packed)
    run.signatures = {}  # joined in the index (which holds one copy of them)
    return run.index  # type: ignore[no-any-return]


# From this many files on, a single-threaded caller checks half of them in a forked child.
FORK_MIN = 20_000
CHANGES_MAX = 64
"""A check notes at most this many changed files (then it stops: the run is read as usual)."""


class Checked:
    """What a check of a snapshot found: every file of :attr:`rels` had its ``stats`` key
    at the check, except those at the positions in ``changed`` (the task cache takes the
    folders whose files it covers as checked: no second ``lstat`` of them). Also the
    listing found (:func:`~inspector.results.run_files.listing_key`), the snapshot checked,
    and what the report store kept beside it (its score tables, raw)."""

    def __init__(
        self, stats: bytes, changed: frozenset[int], listing: tuple[Any, ...], snapshot: Index
    ) -> None:
        self.stats, self.changed, self.listing, self.snapshot = stats, changed, listing, snapshot
        self.tables: Any = b""
        self.positions: dict[str, int] = {}  # rel -> its position in rels, filled by covers()

    @functools.cached_property
    def rels(self) -> list[str]:
        """Every file of the snapshot, in its order (made only when asked: at a million
        tasks, five million paths; an unchanged run's check never needs them)."""
        return rels(self.snapshot, self.listing) or []

    def covers(self, signature: tuple[tuple[Any, ...], ...]) -> bool:
        """True when every file of a task cache signature was found with that key."""
        positions = self.positions
        if not positions:
            positions.update((rel, at) for at, rel in enumerate(self.rels))
        stats, changed = self.stats, self.changed
        try:
            for item in signature:
                at = positions.get(item[0])
                if at is None or at in changed:
                    return False
                if stats[RECORD * at : RECORD * at + RECORD] != pack(item[1:]):
                    return False
        except (TypeError, IndexError):
            return False
        return True


def check(root: Path, snapshot: Index, *, shared: bool = False) -> Checked | None:
    """Which files of the snapshot changed: None when the listing changed or more than
    :data:`CHANGES_MAX` files did (or one could not be checked).

    The task folders are split in two halves, each ``lstat``-ed by its own process, the
    paths made as they go (never the whole list) and the keys compared in blocks as
    bytes. ``shared``: the caller has threads (the app): a large check is split between
    its shared reader processes; otherwise half of it is checked in a forked child.
    """
    base = os.path.abspath(root)
    listing = list_task_folders(Path(base))
    if listing_digest(listing) != snapshot.listing:
        return None
    candidates, running, _ = listing
    folders = [folder for folder, _ in candidates] + list(running)
    attempts, stats = snapshot.attempts, snapshot.stats
    if len(folders) != len(attempts):
        return None
    if RECORD * (len(RUN_FILES) + _count(attempts)) != len(stats):
        return None
    whole = memoryview(stats)
    parts = None
    if len(stats) >= RECORD * FORK_MIN:
        half = len(folders) // 2
        at = RECORD * (len(RUN_FILES) + _count(attempts[:half]))
        first = (base, RUN_FILES, folders[:half], attempts[:half], whole[:at], 0)
        second = (base, (), folders[half:], attempts[half:], whole[at:], at // RECORD)
        if shared:
            # A threaded caller: its interface thread would otherwise share the
            # interpreter with the check. (Sent pickled: the keys as bytes.)
            calls = [(*call[:4], bytes(call[4]), call[5]) for call in (first, second)]
            answers = in_shared_pool(_changed, calls)
            parts = None if answers is None else tuple(answers)
        else:
            # lstat costs a few microseconds in the kernel; two cores halve it.
            parts = halves_in_fork(_changed, first, second)
    if parts is None:
        parts = (_changed(base, RUN_FILES, folders, attempts, whole, 0), [])
    if any(part is None for part in parts):
        return None
    changed = [at for part in parts for at in part]
    if len(changed) > CHANGES_MAX:
        return None
    return Checked(stats, frozenset(changed), listing, snapshot)


def _count(attempts: Any) -> int:
    """How many files the index holds of entries with these attempt numbers."""
    running = RUNNING_ENTRY
    return sum([2 if numbers == running else 2 + len(numbers) for numbers in attempts])


BLOCK = 4096
"""Task folders whose keys :func:`_changed` compares at once."""
_DIRECTORY = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY


def _changed(
    base: str, head: Any, folders: list[str], attempts: Any, stats: Any, offset: int
) -> list[int] | None:
    """The positions (plus ``offset``) of the files whose key is not in ``stats``: the
    files ``head``, then per folder (with its attempt numbers) the folder, its task.json
    and each attempt's result.json; None after more than :data:`CHANGES_MAX` of them, or
    when one cannot be stat'ed. Each ``lstat`` is relative to a descriptor of ``base``
    (``O_PATH``: no read permission needed; without one, the full paths). The keys go
    into an array of 64-bit integers (no tuple or bytes kept per file), compared with
    the snapshot's bytes a block of folders at a time (one ``memcmp``); only a block that
    differs is compared file by file."""
    try:
        fd: int | None = os.open(base, _DIRECTORY)
        prefix = ""
    except OSError:
        fd, prefix = None, f"{base}/"
    lstat, key, absent, stats = os.lstat, stat_key, ABSENT, memoryview(stats)
    seen = array.array("q")
    extend = seen.extend
    tails: dict[Any, list[str]] = {}
    out: list[int] = []
    done = 0  # files compared so far

    def compare() -> bool:
        nonlocal done
        if sys.byteorder != "little":  # pragma: no cover - big-endian
            seen.byteswap()
        size = len(seen) // WIDTH
        got = seen.tobytes()
        expected = stats[RECORD * done : RECORD * (done + size)].tobytes()
        if got != expected:
            spans = [slice(RECORD * at, RECORD * at + RECORD) for at in range(size)]
            out.extend(offset + done + at for at, s in enumerate(spans) if got[s] != expected[s])
        del seen[:]
        done += size
        return len(out) <= CHANGES_MAX

    try:
        for rel in head:
            try:
                extend(key(lstat(prefix + rel, dir_fd=fd)))
            except FileNotFoundError:
                extend(absent)
        for number, (folder, numbers) in enumerate(zip(folders, attempts, strict=True), 1):
            tail = tails.get(numbers)
            if tail is None:
                tail = tails[numbers] = ["", *_tail(numbers)]
            folder = prefix + folder
            for end in tail:
                try:
                    extend(key(lstat(folder + end, dir_fd=fd)))
                except FileNotFoundError:
                    extend(absent)
            if number % BLOCK == 0 and not compare():
                return None
        return out if compare() else None
    except (OSError, OverflowError):
        return None
    finally:
        if fd is not None:
            os.close(fd)


def name(index: Index) -> str:
    """A name for the state of a run's files an index records (the first 32 hex digits of
    the SHA-256 of its record)."""
    return hashlib.sha256(ENCODER.encode(index)).hexdigest()[:32]


def name_read(run: Run) -> str | None:
    """:func:`name` of the run as it was just read (None: its index cannot be taken)."""
    index = take(run)
    return None if index is None else name(index)
