"""How the task folders to read are split between reader processes: by bytes as well as by count.

Counting folders is not enough: 89 folders of five 5 MB attempts are 2.2 GB, read in one
process while the other cores idle, when 89 folders of 8 KB attempts are read faster in
one. So a run of fewer than ``readers.PARALLEL_MIN`` folders goes to the reader processes
when its attempt files hold :data:`PARALLEL_BYTES` or more, and its folders are then cut
into chunks of about equal bytes (several per process, so one large folder does not leave
the others idle). The sizes come from ``lstat`` (the files are not opened): first of a
sample of folders (most runs are small and stop there), then of every folder when the run
is worth splitting. A file that cannot be stat'ed counts as empty: the sizes only decide
how the work is shared, never what is read.
"""

from __future__ import annotations

import os
import stat as stat_module
from collections.abc import Callable, Sequence
from typing import Any

# From this many bytes of attempt files on, two processes read a run faster than one
# (about where the 1,500 folders of readers.PARALLEL_MIN stand, at 8 KB attempts).
PARALLEL_BYTES = 32 << 20
# Folders whose sizes are looked at before deciding.
SAMPLE = 32


def folder_bytes(path: str) -> int:
    """The bytes of the ``attempt-*/result.json`` files in the task folder at ``path``
    (regular files only, nothing followed through a link; 0 for what cannot be seen)."""
    total = 0
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if not entry.name.startswith("attempt-"):
                    continue
                try:
                    info = os.lstat(f"{entry.path}/result.json")
                except OSError:
                    continue
                if stat_module.S_ISREG(info.st_mode):
                    total += info.st_size
    except OSError:
        return 0
    return total


def split(
    items: Sequence[Any],
    path_of: Callable[[Any], str],
    *,
    parallel_min: int,
    chunk: int,
    processes: int,
) -> tuple[list[list[Any]], bool]:
    """``items`` (``(folder, ...)`` to read, in order; ``path_of(folder)`` its path) cut into consecutive chunks, and whether
    reader processes should read them.

    ``parallel_min`` folders or more: chunks of at least ``chunk`` folders, about sixteen per
    process (their sizes are not looked at). Fewer: by bytes, as the module says; chunks of
    ``chunk`` folders when they are read here."""
    count = len(items)
    if count >= parallel_min or processes < 2 or count < 2:
        size = max(chunk, count // (16 * processes) + 1)
        chunks = [list(items[i : i + size]) for i in range(0, count, size)]
        return chunks, count >= parallel_min and processes > 1 and len(chunks) > 1
    step = max(1, count // SAMPLE)
    sample = [folder_bytes(path_of(items[i][0])) for i in range(0, count, step)]
    if sum(sample) * count < PARALLEL_BYTES * len(sample):
        return [list(items[i : i + chunk]) for i in range(0, count, chunk)], False
    sizes = [folder_bytes(path_of(item[0])) for item in items]
    target = max(1, sum(sizes) // (16 * processes))
    chunks: list[list[Any]] = []
    current: list[Any] = []
    held = 0
    for item, size in zip(items, sizes, strict=True):
        if current and (held + size > target or len(current) >= chunk):
            chunks.append(current)
            current, held = [], 0
        current.append(item)
        held += size
    chunks.append(current)
    return chunks, len(chunks) > 1
