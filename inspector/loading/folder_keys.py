"""The keys of task folders' files, held while a run is read with the store on.

A folder's keys are the :data:`~inspector.loading.records.Stat` of its folder, its
``task.json`` and each attempt's ``result.json`` (by number), packed as the run's index
holds them (:data:`~inspector.loading.index.RECORD` bytes a file): :class:`ReadKeys` holds
them for every folder taken from the task store or read, one buffer for all;
:class:`Places` finds a stored folder's keys in what the report store's check found, by
its position, and compares them as bytes (no path made, no integer unpacked).
"""

from __future__ import annotations

import operator
import os
import struct
from bisect import bisect_left
from collections.abc import Iterator
from typing import Any

from inspector.loading.index import HEAD, PACKED, RECORD, WIDTH, Checked, Signature
from inspector.loading.store import COARSE_GRANULARITY_NS, is_racy
from inspector.results.file_io import stat_key


def signature(root: str, rels: list[str]) -> Signature | None:
    """``(rel, *stat_key)`` of each path (not following a final link), None when one cannot
    be stat'ed."""
    out = []
    lstat = os.lstat
    for rel in rels:
        try:
            info = lstat(f"{root}/{rel}")
        except OSError:
            return None
        out.append((rel, *stat_key(info)))
    return tuple(out)


def unchanged(root: str, items: list[tuple[str, tuple[Any, ...], bytes]]) -> list[bool]:
    """For each ``(folder, tail, keys)``, whether its files still have those packed keys
    (a worker process's share): ``tail`` is its attempt numbers (:func:`signed_files`),
    or the other files' paths."""
    out = []
    for folder, tail, keys in items:
        rels = rels_of(folder, tail)
        try:
            seen = b"".join([PACKED.pack(*stat_key(os.lstat(f"{root}/{rel}"))) for rel in rels])
        except (OSError, struct.error):
            seen = b""
        out.append(seen == keys)
    return out


def signature_is_racy(sig: Signature, fence_ns: int) -> bool:
    """Whether any file of ``sig`` is racy (:func:`~inspector.loading.store.is_racy`); a
    folder whose newest stamp is older than the coarse granularity is answered at once."""
    newest = max([max(item[5], item[6]) for item in sig], default=0)
    if newest < fence_ns - COARSE_GRANULARITY_NS:
        return False
    return any(is_racy(item[1:], fence_ns) for item in sig)


def signed_files(entry: Any) -> list[str]:
    """The files a packed signature of ``entry`` is of, in its order."""
    folder = entry.folder
    expected = [folder, f"{folder}/task.json"]
    dirs = entry.attempt_dirs  # AttemptDirs: its own tuple (no iterator); a mapping: keys
    numbers = sorted(getattr(dirs, "numbers", dirs))
    return expected + [f"{folder}/attempt-{number}/result.json" for number in numbers]


def packed_signature(entry: Any, signature: Any) -> bytes | None:
    """A task folder's file signature as :func:`~inspector.loading.index.take` needs it,
    held per task after a read: the stats of its folder, ``task.json`` and each attempt's
    ``result.json`` (in that order: their paths follow from the entry) packed as
    :attr:`~inspector.loading.records.Index.stats` holds them (about 300 bytes for three
    attempts, against 2.4 KB as tuples of paths and integers). None when the signature is
    not of those files or a value does not fit: no index."""
    if [item[0] for item in signature] != signed_files(entry):
        return None  # not the files index.rels() will check
    try:
        return struct.pack(
            f"<{WIDTH * len(signature)}q", *[v for item in signature for v in item[1:]]
        )
    except struct.error:
        return None


def rels_of(folder: str, tail: tuple[Any, ...]) -> list[str]:
    """The files of a folder's keys: ``tail`` its attempt numbers, sorted (else, for
    files of other names, the paths after the folder's own)."""
    if tail and type(tail[0]) is str:
        return [folder, *tail]
    return [folder, f"{folder}/task.json", *(f"{folder}/attempt-{n}/result.json" for n in tail)]


def tail_of(numbers: tuple[int, ...] | None, dirs: dict[int, str] | None) -> tuple[int, ...]:
    """A stored entry's attempt numbers, sorted (as its keys list its attempts); equal
    ones one tuple (most tasks have the same)."""
    tail = tuple(sorted(numbers if numbers is not None else (dirs or {})))
    return _TAILS.setdefault(tail, tail) if len(_TAILS) < 1024 else tail


_TAILS: dict[tuple[int, ...], tuple[int, ...]] = {}


def ask(files: Any, folder: str, tail: tuple[int, ...]) -> tuple[str, Any, bytes] | None:
    """What to check of a stored folder's keys ``files`` (packed, or as tuples):
    ``(folder, tail, packed)`` for :func:`unchanged`; None when
    they are not of that folder."""
    if type(files) is bytes:
        return (folder, tail, files) if len(files) == RECORD * (2 + len(tail)) else None
    rels = [item[0] for item in files]
    if len(rels) < 2 or rels[0] != folder:
        return None
    try:
        packed = b"".join([PACKED.pack(*item[1:]) for item in files])
    except struct.error:
        return None
    return folder, tuple(rels[1:]), packed


class Places:
    """Where each task folder's keys are in what the report store's check found: the
    candidates are walked in order, as the check's listing has them (each folder's span
    of files follows from the attempt numbers of the ones before it). A folder found
    elsewhere (the listing changed since the check) is compared by its paths."""

    def __init__(self, checked: Checked | None, count: int) -> None:
        self.checked = checked
        self.at = HEAD // RECORD  # the files of the run come first
        self.walk = False
        if checked is not None:
            self.listed, self.attempts = checked.listing[0], checked.snapshot.attempts
            self.walk = len(self.listed) == count and len(self.attempts) >= count
            self.changed = sorted(checked.changed)
            self.stats = memoryview(checked.stats)

    def span(self, position: int, folder: str) -> tuple[int, int, Any] | None:
        """The files of the candidate at ``position`` in the check: ``(start, end,
        numbers)``; called for every position in order."""
        if not self.walk:
            return None
        numbers = self.attempts[position]
        if type(numbers) is not tuple:
            self.walk = False
            return None
        start = self.at
        self.at = end = start + 2 + len(numbers)
        return (start, end, numbers) if self.listed[position][0] == folder else None

    def covers(self, span: tuple[int, int, Any] | None, asked: tuple[str, Any, bytes]) -> bool:
        """Whether the check found every file of ``asked`` (:func:`ask`) with its key."""
        checked = self.checked
        if checked is None:
            return False
        folder, tail, packed = asked
        if span is None or span[2] != tail:  # by the paths (rarely)
            values = struct.unpack(f"<{len(packed) // 8}q", packed)
            rels = rels_of(folder, tail)
            sig = tuple((rel, *values[6 * n : 6 * n + 6]) for n, rel in enumerate(rels))
            return checked.covers(sig)
        start, end, _ = span
        changed = self.changed
        at = bisect_left(changed, start)
        if at < len(changed) and changed[at] < end:
            return False
        return self.stats[RECORD * start : RECORD * end] == packed


class ReadKeys:
    """The folders taken from the task store or read while a run is read with the store
    on (for its task store and its index), as columns, not a tuple, a dict slot and a
    bytes object per folder (about 120 bytes beside the keys): each one's entry, where
    AgentCompass finds it first, whether it was taken from the store, and its keys packed
    (:func:`packed_signature`) one folder after the other in one
    buffer, after :data:`~inspector.loading.index.HEAD` bytes of room for the run-level
    files' (when every folder was read, in order, the run's index is made from that
    buffer in place: :func:`~inspector.loading.index.take`)."""

    def __init__(self) -> None:
        self.entries: list[Any] = []
        self.firsts: list[str] = []
        self.taken = bytearray()  # 1: taken from the store
        self.stats = bytearray(HEAD)

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, entry: Any, first: str, packed: bytes, taken: bool = False) -> None:
        self.entries.append(entry)
        self.firsts.append(first)
        self.taken.append(taken)
        self.stats += packed

    def in_order(self, entries: list[Any]) -> bytearray | None:
        """The buffer, when ``entries`` are exactly the folders added, in that order."""
        mine = self.entries
        if len(mine) != len(entries) or not all(map(operator.is_, mine, entries)):
            return None
        return self.stats

    def _spans(self) -> Iterator[tuple[int, int]]:
        at = HEAD
        for entry in self.entries:
            end = at + RECORD * (2 + len(entry.attempt_dirs))
            yield at, end
            at = end

    def by_folder(self) -> dict[str, bytes | None]:
        """Each folder's packed keys, by its folder (when not every folder was read)."""
        stats = self.stats
        spans = self._spans()
        return {entry.folder: bytes(stats[slice(*next(spans))]) for entry in self.entries}

    def taken_folders(self) -> list[str]:
        """The folders taken from the store."""
        return [e.folder for e, taken in zip(self.entries, self.taken, strict=True) if taken]

    def unread(self) -> Iterator[tuple[Any, str, bytes]]:
        """Each folder read (not taken from the store): its entry, where it is found
        first, and its packed keys."""
        rows = zip(self.entries, self.firsts, self.taken, self._spans(), strict=True)
        for entry, first, taken, span in rows:
            if not taken:
                yield entry, first, bytes(self.stats[slice(*span)])
