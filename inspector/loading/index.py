"""A run's index: has it changed since it was read? One listing and one ``lstat`` per file.

An :class:`~inspector.loading.records.Index` keys every file a run's report depends on (the
run-level files; per task folder the folder, ``task.json`` and each attempt's
``result.json``; the ``running/`` folders) as git's index does
(:func:`~inspector.results.file_io.stat_key`), plus a digest of the folder listing; the
stats are packed as bytes (``docs/decisions/loading-internals.md``).
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
Signature = tuple[tuple[Any, ...], ...]
"""Per file of a task folder ``(rel, device, inode, mode, size, mtime_ns, ctime_ns)``."""
RUNNING_ENTRY = -1
"""In :attr:`Index.attempts`: the entry is a ``running/`` folder."""
HEAD = RECORD * len(RUN_FILES)
"""The run-level files' keys start :attr:`Index.stats` (:func:`take` fills them in)."""


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
    if sys.byteorder == "little":
        values: Any = memoryview(packed).cast("q")  # unpacked one at a time as read
    else:  # pragma: no cover - big-endian
        values = struct.unpack(f"<{len(packed) // 8}q", packed)
    newest = max(max(values[4::WIDTH], default=0), max(values[5::WIDTH], default=0))
    if newest < fence_ns - COARSE_GRANULARITY_NS:
        return False
    return any(
        is_racy(tuple(values[at : at + WIDTH]), fence_ns)  # type: ignore[arg-type]
        for at in range(0, len(values), WIDTH)
    )


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
    # ``run.signatures``: per folder its packed_signature, or all of them after HEAD in
    # one buffer (filled in place, not copied). Equal attempt numbers: one tuple.
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
    if packed_is_racy(packed, run.read_started_ns):
        return None  # a file written as it was read: read the run again next time
    run.index = Index(listing_digest(run.listing), tuple(attempts), packed)
    run.signatures = {}  # joined in the index (which holds one copy of them)
    return run.index  # type: ignore[no-any-return]


FORK_MIN = 20_000  # files: from so many, a forked child checks half of them
CHANGES_MAX = 64
"""A check notes at most this many changed files (then it stops: the run is read as usual)."""


class Checked:
    """What a check of a snapshot found: every file of :attr:`rels` had its ``stats`` key,
    except those at the positions in ``changed`` (the task store takes the folders whose
    files it :meth:`covers` as checked). Also the listing found, the snapshot checked, and
    the score tables the report store kept beside it (raw)."""

    def __init__(
        self, stats: bytes, changed: frozenset[int], listing: tuple[Any, ...], snapshot: Index
    ) -> None:
        self.stats, self.changed, self.listing, self.snapshot = stats, changed, listing, snapshot
        self.tables: Any = b""
        self.positions: dict[str, int] = {}  # rel -> its position in rels, filled by covers()

    @functools.cached_property
    def rels(self) -> list[str]:
        """Every file of the snapshot, in its order (made only when asked)."""
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
                if stats[RECORD * at : RECORD * at + RECORD] != PACKED.pack(*item[1:]):
                    return False
        except (TypeError, IndexError, struct.error):
            return False
        return True


def check(root: Path, snapshot: Index) -> Checked | None:
    """Which files of the snapshot changed: None when the listing changed or more than
    :data:`CHANGES_MAX` files did (or one could not be checked). From :data:`FORK_MIN`
    files on, a forked child checks half of the task folders."""
    base = os.path.abspath(root)
    listing = list_task_folders(Path(base))
    if listing_digest(listing) != snapshot.listing:
        return None
    candidates, running, _ = listing
    folders = [folder for folder, _ in candidates] + list(running)
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


def files_per_entry(attempts: Any) -> list[int]:
    """How many files the index holds of each entry, given its attempt numbers."""
    running = RUNNING_ENTRY
    return [2 if numbers == running else 2 + len(numbers) for numbers in attempts]


BLOCK = 4096
"""Task folders whose keys :func:`_changed` compares at once."""
_DIRECTORY = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY


def _changed(
    base: str, head: Any, folders: list[str], attempts: Any, stats: Any, offset: int
) -> list[int] | None:
    """The positions (plus ``offset``) of the files whose key is not in ``stats``: the
    files ``head``, then per folder (with its attempt numbers) the folder, its task.json
    and each attempt's result.json; None after more than :data:`CHANGES_MAX` of them, or
    when one cannot be stat'ed. Keys are compared as bytes, :data:`BLOCK` folders at once."""
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
