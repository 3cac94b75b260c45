"""Reading files safely (read-only): the primitives under :class:`~inspector.results.run_files.RunFiles`.

A file's key as git's index keeps it (:data:`Stat`), opening without ever blocking on a FIFO
or reading a device without end (only a regular file is read, its type checked with
``fstat`` first), and parsing JSON the way AgentCompass's ``json.loads`` does, every
failure in one line.
"""

from __future__ import annotations

import errno
import json
import operator
import os
import re
import stat as stat_module
from collections.abc import Callable
from typing import Any, BinaryIO

from inspector.results.problems import RULE_SPECIAL, LoadProblem

Stat = tuple[int, int, int, int, int, int]
"""``(device, inode, mode, size, mtime_ns, ctime_ns)``: what git's index keeps of a file.

The change time cannot be set back by ``os.utime``, ``cp -p``, ``rsync -a`` or a restore
from a backup, and a file replaced through a temporary file has a new inode: a file whose
key is unchanged has not been written since (racy files aside: see
:mod:`inspector.loading.tasks`)."""


stat_key: Callable[[os.stat_result], Stat] = operator.attrgetter(
    "st_dev", "st_ino", "st_mode", "st_size", "st_mtime_ns", "st_ctime_ns"
)
"""The :data:`Stat` of a ``stat`` result (an ``attrgetter``, not a Python function: the
snapshot check takes it of every file of a run)."""


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words (\"a FIFO\", \"a socket\"…)."""
    if stat_module.S_ISFIFO(mode):
        return "a FIFO"
    if stat_module.S_ISSOCK(mode):
        return "a socket"
    if stat_module.S_ISCHR(mode):
        return "a character device"
    if stat_module.S_ISBLK(mode):
        return "a block device"
    if stat_module.S_ISDIR(mode):
        return "a directory"
    if stat_module.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def not_a_file(rel: str, mode: int, blocking: bool = True) -> LoadProblem:
    """The problem of a run path that should be a file and is a FIFO, device or socket:
    refused by its type, never opened for reading (reading it could block or never end)."""
    name = rel.rpartition("/")[2] or rel
    return LoadProblem(rel, f"{name} is {file_kind(mode)}, not a file", RULE_SPECIAL, blocking)


READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
"""Opening never blocks (a FIFO without a writer) and leaves nothing to child processes."""

# orjson's nesting limit; Python's json.loads fails near its recursion limit (1000).
MAX_JSON_DEPTH = 1024


class JsonError(ValueError):
    """A file's bytes are not a JSON document; the message says why, in one line."""


def parse_json(data: bytes, *, exact: bool = False) -> Any:
    """Parse JSON the way AgentCompass's ``json.loads`` does, fast: orjson first, then the
    standard library, which also accepts ``NaN``/``Infinity`` and lone surrogates and refuses
    integers of more than ``sys.get_int_max_str_digits()`` digits, as AgentCompass's reader
    does. ``exact``: the standard library only (orjson makes integers beyond 64 bits floats)."""
    if not exact:
        # Here, not at the top: a reopen answered from the report cache parses no JSON,
        # and orjson loads uuid, datetime and platform.
        import orjson

        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    if not data:
        raise JsonError("empty file (0 bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonError(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from exc
    try:
        value = json.loads(text)
    except RecursionError as exc:
        # orjson stops at 1024 levels; the standard library (AgentCompass's reader) runs
        # out of stack a little earlier. Either way AgentCompass cannot read the file.
        message = f"nested too deeply to parse (JSON readers stop near {MAX_JSON_DEPTH} levels)"
        raise JsonError(message) from exc
    except json.JSONDecodeError as exc:
        if not text.strip():
            raise JsonError("no JSON value (only whitespace)") from exc
        # An unterminated string runs to the end of the file, wherever it started.
        ends_early = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        suffix = "; the file ends early (truncated?)" if ends_early else ""
        where = f"line {exc.lineno} column {exc.colno}"
        raise JsonError(f"not valid JSON ({exc.msg}: {where}){suffix}") from exc
    except ValueError as exc:  # too many digits for an int: AgentCompass cannot read it either
        raise JsonError(f"a number too long to read ({str(exc).split(';')[0]})") from exc
    # orjson refuses a lone surrogate escape ("\ud800"), json.loads keeps it: only here.
    return without_lone_surrogates(value) if _SURROGATE_ESCAPE.search(text) else value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A ``\\uD800``–``\\uDFFF`` escape: the only way a JSON text gives a lone surrogate."""


def lossy(text: str) -> str:
    """``text`` with each lone surrogate as AgentCompass writes it: its three UTF-8-like
    bytes, each replaced by U+FFFD (pydantic's ``model_dump(mode="json")`` does this to
    the categories of metrics.json: ``"\\ud800x"`` becomes three U+FFFD and ``x``).
    Text that can be encoded comes back as it is."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return text


def without_lone_surrogates(value: Any) -> Any:
    """A parsed JSON value with every string (and key) :func:`lossy`: what AgentCompass
    carries of a file holding a lone surrogate escape, and what every output (stdout,
    files, the clipboard, Parquet) can hold. A key made equal to another by this keeps
    the later value, as a repeated key does."""
    if isinstance(value, str):
        return lossy(value)
    if isinstance(value, list):
        return [without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {lossy(key): without_lone_surrogates(item) for key, item in value.items()}
    return value


class NotAFile(OSError):
    """Raised by :func:`open_regular` for a path that is not a regular file."""


def open_regular(path: str | os.PathLike[str], *, follow: bool = True) -> BinaryIO:
    """Open a regular file for reading without ever blocking (a FIFO) or reading without
    end (a device): the type is checked with ``fstat`` before anything is read.

    Raises:
        NotAFile: ``path`` is a FIFO, socket, device or folder (``strerror`` says which).
        OSError: it cannot be opened.
    """
    try:
        fd = os.open(path, READ_FLAGS | (0 if follow else os.O_NOFOLLOW))
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.EOPNOTSUPP):  # a socket
            mode = os.stat(path).st_mode
            name = os.path.basename(os.fspath(path))
            raise NotAFile(errno.EINVAL, f"{name} is {file_kind(mode)}, not a file") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat_module.S_ISREG(mode):
            name = os.path.basename(os.fspath(path))
            raise NotAFile(errno.EINVAL, f"{name} is {file_kind(mode)}, not a file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_all(fd: int, size: int, max_bytes: int | None) -> bytes | None:
    """Everything in ``fd`` (``size``: its size at ``fstat``), None when it grows beyond
    ``max_bytes`` while being read."""
    data = os.read(fd, size + 1)
    if len(data) <= size:
        return data
    chunks = [data]  # the file grew while we read it
    total = len(data)
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
        total += len(chunk)
        if max_bytes is not None and total > max_bytes:
            return None
    return b"".join(chunks)


def absent_reason(path: str) -> str | None:
    """``"permission denied"`` when ``path`` cannot be looked at because a folder on the
    way cannot be entered; None when it simply does not exist (or can be stat'ed)."""
    try:
        os.lstat(path)
    except PermissionError:
        return "permission denied"
    except OSError:
        return None
    return None


def is_dir(entry: os.DirEntry[str]) -> bool:
    """``entry`` is a folder (following links); False when that cannot be told."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def is_file(entry: os.DirEntry[str]) -> bool:
    """``entry`` is a file (following links); False when that cannot be told."""
    try:
        return entry.is_file()
    except OSError:
        return False
