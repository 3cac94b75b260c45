"""The keys of a run's files: has one changed since it was read? One listing and one
``lstat`` per file.

A file's key is git's index's (:func:`~inspector.results.file_io.stat_key`), packed as
:data:`RECORD` bytes (``docs/decisions/loading-internals.md``); a task folder's are those
of the folder, its ``task.json`` and each attempt's ``result.json``. A run's
:class:`~inspector.loading.records.Index` holds the keys of every file its report depends
on and a digest of the folder listing; :func:`check` finds which changed.
"""

from __future__ import annotations

import array
import dataclasses
import functools
import hashlib
import os
import struct
import sys
from bisect import bisect_left
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.loading.processes import halves_in_fork
from inspector.loading.records import ENCODER, Index
from inspector.loading.store import ABSENT, COARSE_GRANULARITY_NS, is_racy
from inspector.results.file_io import stat_key
from inspector.results.listing import RUN_FILES, list_task_folders, repr_pieces, running_files

if TYPE_CHECKING:  # pragma: no cover
    from inspector.results.reader import Run

PACKED = struct.Struct("<6q")
"""One file's stat key in :attr:`Index.stats`: six signed 64-bit integers."""
RECORD = PACKED.size
WIDTH = 6
RUNNING_ENTRY = -1
"""In :attr:`Index.attempts`: the entry is a ``running/`` folder."""
HEAD = RECORD * len(RUN_FILES)
"""The run-level files' keys start :attr:`Index.stats` (:func:`take` fills them in)."""


@functools.lru_cache(maxsize=1024)
def _ends(numbers: Any) -> tuple[str, ...]:
    """What follows a folder's name in the paths of its keyed files (its own first), given
    its attempt numbers, sorted, or :data:`RUNNING_ENTRY`."""
    if numbers == RUNNING_ENTRY:
        return ("", "/task.json")
    return ("", "/task.json", *(f"/attempt-{number}/result.json" for number in numbers))


def rels_of(folder: str, numbers: Any) -> list[str]:
    """The files of a folder's keys, given its attempt numbers, sorted."""
    return [folder + end for end in _ends(numbers)]


def rels(index: Index, listing: tuple[Any, ...]) -> list[str] | None:
    """Every file of the index, given the run's current (same) listing."""
    folders = _folders(listing)
    if len(folders) != len(index.attempts):
        return None
    out = list(RUN_FILES)
    for folder, numbers in zip(folders, index.attempts, strict=True):
        out += [folder + end for end in _ends(numbers)]
    return out


def _folders(listing: tuple[Any, ...]) -> list[str]:
    """The entries of a listing: its candidates' folders, then its ``running/`` ones."""
    return [folder for folder, _ in listing[0]] + list(listing[1])


def files_per_entry(attempts: Any) -> list[int]:
    """How many files the index holds of each entry, given its attempt numbers."""
    running = RUNNING_ENTRY
    return [2 if numbers == running else 2 + len(numbers) for numbers in attempts]


def tail_of(dirs: Any) -> tuple[int, ...]:
    """Attempt numbers, sorted (as keys list attempts), of ``dirs``: an ``AttemptDirs``, a
    mapping by number, or the numbers; equal ones one tuple (most tasks have the same)."""
    tail = tuple(sorted(getattr(dirs, "numbers", dirs) or ()))
    return _TAILS.setdefault(tail, tail) if len(_TAILS) < 1024 else tail


_TAILS: dict[tuple[int, ...], tuple[int, ...]] = {}


def keys_of(root: str, rels: list[str]) -> bytes | None:
    """The keys of the paths (not following a final link), packed; None when one cannot
    be stat'ed or a value does not fit."""
    try:
        return b"".join([PACKED.pack(*stat_key(os.lstat(f"{root}/{rel}"))) for rel in rels])
    except (OSError, struct.error):
        return None


def pack(keys: Any) -> bytes | None:
    """Files' keys (:data:`~records.Stat` each; a task folder's as :func:`rels_of` lists
    its files) packed as :attr:`Index.stats` holds them (about 300 bytes for three
    attempts, against 2.4 KB as tuples); None when one is missing or does not fit."""
    try:
        return b"".join([PACKED.pack(*key) for key in keys])
    except (TypeError, struct.error):
        return None


def racy(keys: bytes | bytearray, fence_ns: int) -> bool:
    """Whether a file of ``keys`` (packed) is racy (:func:`~store.is_racy`); keys whose
    newest stamp is older than the coarse granularity are answered at once."""
    values: Any
    if sys.byteorder == "little":
        values = memoryview(keys).cast("q")  # unpacked one at a time as read
    else:  # pragma: no cover - big-endian
        values = struct.unpack(f"<{len(keys) // 8}q", keys)
    newest = max(max(values[4::WIDTH], default=0), max(values[5::WIDTH], default=0))
    if newest < fence_ns - COARSE_GRANULARITY_NS:
        return False
    return any(
        is_racy(tuple(values[at : at + WIDTH]), fence_ns)  # type: ignore[arg-type]
        for at in range(0, len(values), WIDTH)
    )


def ask(files: bytes, folder: str, tail: tuple[int, ...]) -> tuple[str, Any, bytes] | None:
    """What to check of a stored folder's packed keys ``files``: ``(folder, tail, files)``
    for :func:`unchanged`; None when they are not of that many files."""
    return (folder, tail, files) if len(files) == RECORD * (2 + len(tail)) else None


def unchanged(root: str, items: list[tuple[str, tuple[Any, ...], bytes]]) -> list[bool]:
    """For each :func:`ask` ``(folder, tail, keys)``, whether its files still have those
    keys (a worker process's share)."""
    return [keys_of(root, rels_of(folder, tail)) == keys for folder, tail, keys in items]


def listing_digest(listing: tuple[Any, ...]) -> bytes:
    """SHA-256 of ``repr(listing)``, made a piece at a time (not marshal: its bytes depend
    on how objects are shared)."""
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
    # ``run.signatures``: per folder its packed keys, or (every folder read, in order)
    # the task store's ``ReadKeys``, which holds or maps them all (not copied).
    pieces: list[bytes] = []
    attempts: list[Any] = []
    signed, files = run.signatures, 0  # files: of the task folders
    joined = not isinstance(signed, dict)
    try:
        for rel in RUN_FILES:
            pieces.append(PACKED.pack(*run.seen[rel]))  # type: ignore[misc]
        for entry in run.entries:
            if entry.state == "running":
                attempts.append(RUNNING_ENTRY)
                for rel in running_files(entry.folder):
                    pieces.append(PACKED.pack(*run.seen[rel]))  # type: ignore[misc]
                continue
            numbers = tail_of(entry.attempt_dirs)
            attempts.append(numbers)
            if joined:
                if len(pieces) > len(RUN_FILES):
                    return None  # a task folder after a running/ one: not in that order
                files += 2 + len(numbers)
                continue
            packed = signed[entry.folder]
            if packed is None:
                return None
            pieces.append(packed)
    except (KeyError, TypeError, struct.error):
        return None  # struct.error: a value that does not fit
    head, tail = b"".join(pieces[: len(RUN_FILES)]), b"".join(pieces[len(RUN_FILES) :])
    del pieces
    if racy(head + tail, run.read_started_ns):
        return None  # a file written as it was read: read the run again next time
    # A ReadKeys holds only keys found not racy (each read folder's checked as it was
    # placed, against the task store's fence, taken before any task file was read; each
    # taken folder's are of files unchanged since they were stored so).
    packed = signed.joined(head, tail, files) if joined else head + tail
    if packed is None:
        return None
    run.index = Index(listing_digest(run.listing), tuple(attempts), packed)
    run.signatures = {}  # joined in the index (which holds one copy of them)
    return run.index  # type: ignore[no-any-return]


FORK_MIN = 20_000  # files: from so many, a forked child checks half of them
CHANGES_MAX = 64
"""A check notes at most this many changed files (then it stops: the run is read as usual)."""


@dataclasses.dataclass
class Checked:
    """What a :func:`check` of a snapshot found: every file of it (:func:`rels`) had its
    key in ``stats``, except those at the positions in ``changed`` (the task store takes
    the folders it finds so as checked: :class:`Places`). Also the listing found, the
    snapshot checked, and the score tables the report store kept beside it (raw)."""

    stats: bytes
    changed: frozenset[int]
    listing: tuple[Any, ...]
    snapshot: Index
    tables: Any = b""


def check(root: Path, snapshot: Index) -> Checked | None:
    """Which files of the snapshot changed: None when the listing changed or more than
    :data:`CHANGES_MAX` files did (or one could not be checked). From :data:`FORK_MIN`
    files on, a forked child checks half of the task folders."""
    base = os.path.abspath(root)
    listing = list_task_folders(Path(base))
    if listing_digest(listing) != snapshot.listing:
        return None
    folders = _folders(listing)
    attempts, stats = snapshot.attempts, snapshot.stats
    if len(folders) != len(attempts):
        return None
    if RECORD * (len(RUN_FILES) + sum(files_per_entry(attempts))) != len(stats):
        return None
    whole = memoryview(stats)
    parts: Any = None
    if len(stats) >= RECORD * FORK_MIN:
        half = len(folders) // 2
        at = RECORD * (len(RUN_FILES) + sum(files_per_entry(attempts[:half])))
        first = (base, RUN_FILES, folders[:half], attempts[:half], whole[:at], 0)
        second = (base, (), folders[half:], attempts[half:], whole[at:], at // RECORD)
        parts = halves_in_fork(_changed, first, second)
    if parts is None:
        parts = (_changed(base, RUN_FILES, folders, attempts, whole, 0), [])
    if any(part is None for part in parts):
        return None
    changed = [at for part in parts for at in part]
    if len(changed) > CHANGES_MAX:
        return None
    return Checked(stats, frozenset(changed), listing, snapshot)


BLOCK = 4096
"""Task folders whose keys :func:`_changed` compares at once."""
_DIRECTORY = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY


def _changed(
    base: str, head: Any, folders: list[str], attempts: Any, stats: Any, offset: int
) -> list[int] | None:
    """The positions (plus ``offset``) of the files whose key is not in ``stats``: the
    files ``head``, then each folder's (:func:`rels`); None after more than
    :data:`CHANGES_MAX` of them, or when one cannot be stat'ed. Keys are compared as
    bytes, :data:`BLOCK` folders at once."""
    try:
        fd: int | None = os.open(base, _DIRECTORY)
        prefix = ""
    except OSError:
        fd, prefix = None, f"{base}/"
    lstat, key, absent, stats = os.lstat, stat_key, ABSENT, memoryview(stats)
    seen = array.array("q")
    extend = seen.extend
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
            folder = prefix + folder
            for end in _ends(numbers):
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


class Places:
    """Where each task folder's keys are in what a :func:`check` found: the candidates
    (``(folder, state)``) are walked in order, as its listing has them (each folder's
    span of files follows from the attempt numbers of the ones before it). A folder found
    elsewhere (the listing changed since the check) is found by its paths."""

    def __init__(self, checked: Checked | None, candidates: Sequence[tuple[str, Any]]) -> None:
        self.checked, self.candidates, self.at, self.walk = (
            checked,
            candidates,
            len(RUN_FILES),
            False,
        )
        self.starts = array.array("q")  # per candidate walked: where its files start, or -1
        self.positions: dict[str, int] = {}  # rel -> its position, made when first asked
        if checked is not None:
            count = len(candidates)
            self.listed, self.attempts = checked.listing[0], checked.snapshot.attempts
            self.walk = len(self.listed) == count and len(self.attempts) >= count
            self.changed = sorted(checked.changed)
            self.stats = memoryview(checked.stats)

    def covers(self, position: int, asked: tuple[str, Any, bytes]) -> bool:
        """Whether the check found every file of ``asked`` (:func:`ask`), the candidate at
        ``position``, with its key (asked in any order)."""
        folder, tail, packed = asked
        checked = self.checked
        if checked is None:
            return False
        starts = self.starts
        while len(starts) <= position:  # the walk, up to ``position``
            at = len(starts)
            numbers = self.attempts[at] if self.walk else None
            if type(numbers) is not tuple:  # a running/ entry, or no walk: by the paths
                self.walk = False
                starts.append(-1)
                continue
            same = self.listed[at][0] == self.candidates[at][0]
            starts.append(self.at if same else -1)
            self.at += 2 + len(numbers)
        start = starts[position]
        if start >= 0 and self.attempts[position] == tail:
            return self._found(start, start + 2 + len(tail)) == packed
        positions = self.positions  # by the paths (rarely)
        if not positions:
            every = rels(checked.snapshot, checked.listing) or []
            positions.update((rel, at) for at, rel in enumerate(every))
        where = [positions.get(rel, -1) for rel in rels_of(folder, tail)]
        found = [self._found(at, at + 1) if at >= 0 else None for at in where]
        return None not in found and b"".join(found) == packed  # type: ignore[arg-type]

    def _found(self, start: int, end: int) -> memoryview | None:
        """The keys the check found of the files ``start`` to ``end``; None when one
        changed."""
        at = bisect_left(self.changed, start)
        if at < len(self.changed) and self.changed[at] < end:
            return None
        return self.stats[RECORD * start : RECORD * end]
