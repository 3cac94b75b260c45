"""The keys of the files each task folder was read from, kept while a run is read with the
store on (for its task store and its index): as columns, not a tuple, a dict slot and a
bytes object per folder (about 120 bytes beside the keys); the keys packed
(:func:`~inspector.loading.index.packed_signature`) one folder after the other in one
buffer, after :data:`~inspector.loading.index.HEAD` bytes of room for the run-level
files' (when every folder was read, in order, the run's index is made from that buffer in
place: :func:`~inspector.loading.index.take`)."""

from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import Any

from inspector.loading.index import HEAD, RECORD, signed_files, unpacked_signature


class ReadKeys:
    """The folders read: each one's entry, where AgentCompass finds it first, its keys."""

    def __init__(self) -> None:
        self.entries: list[Any] = []
        self.firsts: list[str] = []
        self.stats = bytearray(HEAD)

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, entry: Any, first: str, packed: bytes) -> None:
        self.entries.append(entry)
        self.firsts.append(first)
        self.stats += packed

    def in_order(self, entries: list[Any]) -> bytearray | None:
        """The buffer, when ``entries`` are exactly the folders added, in that order."""
        mine = self.entries
        if len(mine) != len(entries) or not all(map(operator.is_, mine, entries)):
            return None
        return self.stats

    def by_folder(self) -> dict[str, bytes | None]:
        """Each folder's packed keys, by its folder (when not every folder was read)."""
        out: dict[str, bytes | None] = {}
        at = HEAD
        for entry in self.entries:
            end = at + RECORD * len(signed_files(entry))
            out[entry.folder] = bytes(self.stats[at:end])
            at = end
        return out

    def __iter__(self) -> Iterator[tuple[Any, str, tuple[tuple[Any, ...], ...]]]:
        """Each folder's entry, where it is found first, and its keys as tuples."""
        at, stats = HEAD, self.stats
        for entry, first in zip(self.entries, self.firsts, strict=True):
            files = unpacked_signature(entry, stats, at)
            at += RECORD * len(files)
            yield entry, first, files
