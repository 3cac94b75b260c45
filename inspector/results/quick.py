"""The usual task folder, read in one pass.

Nearly every task folder of a large run is the plain case: a folder of the final state it
is first found in, a regular ``task.json`` (schema v3, published, named after its task) and
one regular ``result.json`` per attempt, each well-formed. :func:`read_plain_task` reads
that case with one ``open`` per folder and per file (each file opened relative to its open
task folder, an attempt folder's kind from one ``lstat``, no folder listed), and builds the
entry with the same validators as :func:`~inspector.results.tasks.load_published`
(``check_index_attempts``, ``shape_attempt``, ``shape_plan``, ``task_category``); a
result file is decoded by :func:`~inspector.results.lean.lean_result` (its trajectory
checked, not built), else parsed by orjson, and the usual attempt (known status, no
issue) is made at once by :func:`~inspector.results.lean.plain_attempt`, which gives what
``shape_attempt`` would. A result file of any size is read so (one large
attempt does not send its whole task to the careful reader), but one of 1 MiB or more
that the lean parse cannot answer is not parsed whole here. Anything else — a symbolic
link, a missing or special file, a file that orjson cannot parse or that needs an exact parse, a
legacy schema, a duplicate folder, any rule broken — makes it decline (None), and the
folder is read by ``load_published``, which says exactly what is wrong. Where it does not
decline, its entry equals ``load_published``'s (tests compare them on every fixture).
"""

from __future__ import annotations

import os
import stat as stat_module
import sys
from collections.abc import Collection
from typing import Any

import orjson

from inspector.engine.model import NO_RETRIES, ON_DISK, Attempt, TaskRecord, alike_attempts
from inspector.results.file_io import READ_FLAGS, Stat, read_all, stat_key
from inspector.results.layout import (
    SHARED_TASK_KEYS,
    TASK_SCHEMA,
    AttemptDirs,
    StateName,
    task_directory_name,
)
from inspector.results.lean import lean_result, payload_of, plain_attempt
from inspector.results.run_files import RunFiles
from inspector.results.runinfo import MIN_SIZE
from inspector.results.tasks import TaskEntry
from inspector.results.validate import (
    DetailError,
    check_index_attempts,
    shape_attempt,
    shape_plan,
    task_category,
)

_BIG = float(2**63)
_FLAGS = READ_FLAGS | os.O_NOFOLLOW
_S_ISREG = stat_module.S_ISREG
_S_ISDIR = stat_module.S_ISDIR
# A task folder, never through a link, opened for reading (as the listing it replaces needed).
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _read(
    name: str, rel: str, stats: dict[str, Stat] | None, dir_fd: int, limit: int = MIN_SIZE
) -> bytes | None:
    """The bytes of a regular file ``name`` in the folder open as ``dir_fd`` (not through a
    final link), smaller than ``limit`` (by default the size from which a file is no longer
    cheap to parse whole); None otherwise. Its key goes in ``stats`` (when there is one)."""
    try:
        fd = os.open(name, _FLAGS, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not _S_ISREG(info.st_mode) or info.st_size >= limit:
            return None
        data = read_all(fd, info.st_size, None)
        if data is None or len(data) >= limit:
            return None
        if stats is not None:
            stats[rel] = stat_key(info)
        return data
    except OSError:
        return None
    finally:
        os.close(fd)


def _read_object(
    name: str, rel: str, stats: dict[str, Stat] | None, dir_fd: int
) -> dict[str, Any] | None:
    """:func:`_read` parsed by orjson, when that gives an object."""
    data = _read(name, rel, stats, dir_fd)
    return None if data is None else _parsed_object(data)


def _parsed_object(data: bytes) -> dict[str, Any] | None:
    """``data`` parsed by orjson, when that gives an object."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return value if type(value) is dict else None


def read_plain_task(
    files: RunFiles,
    folder: str,
    state: StateName,
    first_location: str,
    strategies: Collection[str],
    signed: bool = True,
) -> Any:
    """The TaskEntry of a plain published task folder, or None (then ``load_published``
    reads it). On success ``files.stats`` holds the key of the folder and of each file read
    (when ``signed``; else nothing is kept, and the folder, a directory by how it is
    opened, is not stat'ed: a read without a cache makes no signature).
    """
    if first_location != folder or state == "v2":
        return None
    parent, _, name = folder.rpartition("/")
    if files.link_problem(parent, strict=True) is not None:
        return None
    try:
        dir_fd = os.open(files.full_path(folder), _DIR_FLAGS)
    except OSError:
        return None
    try:
        stats = {folder: stat_key(os.fstat(dir_fd))} if signed else None
        entry = _read_folder(folder, state, name, dir_fd, strategies, stats)
    except OSError:
        return None
    finally:
        os.close(dir_fd)
    if entry is not None and stats is not None:
        files.stats = stats
    return entry


def _read_folder(
    folder: str,
    state: StateName,
    name: str,
    dir_fd: int,
    strategies: Collection[str],
    stats: dict[str, Stat] | None,
) -> Any:
    """:func:`read_plain_task` of the folder open as ``dir_fd`` (a directory: it was opened
    with ``O_DIRECTORY``); the key of each file read goes in ``stats`` (when there is one)."""
    task_file = f"{folder}/task.json"
    index = _read_object("task.json", task_file, stats, dir_fd)
    if index is None or index.get("schema_version") != TASK_SCHEMA:
        return None
    for key in SHARED_TASK_KEYS:
        if key not in index:
            return None
    task_id = index.get("task_id")
    raw_plan = index["attempt_plan"]
    if type(task_id) is not str or (
        type(raw_plan) is dict and type(raw_plan.get("k")) is float and abs(raw_plan["k"]) >= _BIG
    ):
        return None
    try:
        if task_directory_name(task_id) != name:
            return None
        tokens = check_index_attempts(index, task_id)
    except (ValueError, DetailError):
        return None
    payloads = []
    shaped: list[tuple[str, int, Attempt]] = []  # (number, retry count, attempt)
    for number, token in tokens.items():
        try:  # a folder, not a link
            if not _S_ISDIR(os.stat(token, dir_fd=dir_fd, follow_symlinks=False).st_mode):
                return None
        except OSError:
            return None
        rel = f"{folder}/{token}/result.json"
        # Of any size: the lean parse checks a large trajectory as JSON without building it.
        data = _read(f"{token}/result.json", rel, stats, dir_fd, sys.maxsize)
        if data is None:
            return None
        result = lean_result(data)  # the trajectory checked, not built
        if result is not None:
            attempt = plain_attempt(result, number)
            if attempt is not None:  # the usual attempt, shaped at once
                if result.retry_count < 0:
                    return None
                shaped.append((number, result.retry_count, attempt))
                continue
        payload = payload_of(result) if result is not None else None
        if payload is None:
            if len(data) >= MIN_SIZE:
                return None  # load_published parses it without its trajectory, or whole
            payload = _parsed_object(data)
            if payload is None:
                return None
        count = payload.get("retry_count", -1)
        if type(count) is not int or count < 0:
            return None
        metrics = payload.get("metrics")
        if type(metrics) is dict:
            for value in metrics.values():
                if type(value) is float and abs(value) >= _BIG:
                    return None
        payloads.append((number, payload))
    attempts: dict[int, Attempt] = {}
    retry_counts: dict[int, int] = {}
    for number, count, attempt in shaped:
        if count:
            retry_counts[int(number)] = count
        attempts[int(number)] = attempt
    try:
        for number, payload in payloads:
            count = payload.pop("retry_count")
            if count:
                retry_counts[int(number)] = count
            if payload:
                attempts[int(number)] = shape_attempt(payload, number)
        if not attempts:
            return None
        k, strategy = shape_plan(raw_plan, max(attempts), strategies)
        if any(number > k for number in retry_counts):
            return None
        category = task_category(index["category"])
    except DetailError:
        return None
    # Positional, in field order (as entry_data.trusted_entry): once per task of a run.
    return TaskEntry(
        task_id,
        folder,
        state,
        True,
        TaskRecord(
            task_id,
            category,
            k,
            strategy,
            alike_attempts(dict(sorted(attempts.items()))),
            dict(sorted(retry_counts.items())) or NO_RETRIES,
            ON_DISK,  # present (checked above); read again where it is shown
            task_file,
        ),
        AttemptDirs(folder, tuple([int(number) for number in tokens])),
        [],
        TASK_SCHEMA,
    )
