"""Where things are in a run directory, and reading them safely (read-only).

Names and folder rules follow AgentCompass 1.0.1 ``runtime/results/layout.py`` (spec §1.4,
§1.7). :class:`RunFiles` is the only place that opens files under a run: it never writes,
refuses symbolic links that leave the run (and, for result paths, any symbolic link, as
AgentCompass's ``contained`` does), and turns every I/O or decoding failure into a
:class:`~inspector.results.problems.LoadProblem` instead of an exception.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat as stat_module
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from inspector.results.problems import RULE_JSON, RULE_SPECIAL, RULE_SYMLINK, LoadProblem

Stat = tuple[int, int, int, int, int, int]
"""``(device, inode, mode, size, mtime_ns, ctime_ns)``: what git's index keeps of a file.

The change time cannot be set back by ``os.utime``, ``cp -p``, ``rsync -a`` or a restore
from a backup, and a file replaced through a temporary file has a new inode: a file whose
key is unchanged has not been written since (racy files aside: see
:mod:`inspector.loading.task_cache`)."""


def stat_key(info: os.stat_result) -> Stat:
    """The :data:`Stat` of a ``stat`` result."""
    return (
        info.st_dev,
        info.st_ino,
        info.st_mode,
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,
    )


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

TASK_SCHEMA = "agentcompass.task.v3"
PREVIOUS_TASK_SCHEMA = "agentcompass.task.v2"
# A tuple, not a set: values read from disk may be unhashable (a list, an object).
TASK_SCHEMAS = (TASK_SCHEMA, PREVIOUS_TASK_SCHEMA)
RUN_INFO_SCHEMA = "agentcompass.run_info.v3"
PREVIOUS_RUN_INFO_SCHEMA = "agentcompass.run_info.v2"
CHECKPOINT_SCHEMA = "agentcompass.attempt_checkpoint.v1"
CHECKPOINT_MAX_BYTES = 32 * 1024**2
RUN_INFO_MAX_BYTES = 4 * 1024**3
"""``run_info.json`` grows with the run (about 190 MB at 50,000 tasks × k=3)."""
RUN_FILE_MAX_BYTES = 256 * 1024**2
"""The other run-level files (params.json, metrics.json, summary.md, progress.json)."""
# orjson's nesting limit; Python's json.loads fails near its recursion limit (1000).
MAX_JSON_DEPTH = 1024

RUNNING, NORMAL, ERROR, FATAL = "running", "normal", "error", "fatal"
FINAL_STATES = (NORMAL, ERROR, FATAL)
TASK_STATES = (RUNNING, *FINAL_STATES)
# The publication marker: all three or none (spec §1.5).
SHARED_TASK_KEYS = ("category", "ground_truth", "attempt_plan")

_UNSAFE = re.compile(r"[^A-Za-z0-9._=-]+")
TASK_DIR_SUFFIX = re.compile(r"--[0-9a-f]{64}$")


def task_directory_name(task_id: str) -> str:
    """The folder name AgentCompass gives a task (spec §1.4).

    Raises:
        ValueError: ``task_id`` is not a non-empty string without surrounding whitespace.
    """
    if type(task_id) is not str or not task_id.strip() or task_id != task_id.strip():
        raise ValueError("task_id must be a non-empty string without surrounding whitespace")
    readable = _UNSAFE.sub("_", task_id).strip("._-")[:80] or "task"
    return f"{readable}--{hashlib.sha256(task_id.encode()).hexdigest()}"


_COMMON_KEYS = frozenset(str(number) for number in range(1, 65))


def is_canonical_attempt_key(key: object) -> bool:
    """``"1"``, ``"2"``, …: a positive integer string as AgentCompass writes it."""
    if type(key) is str and key in _COMMON_KEYS:
        return True
    return (
        isinstance(key, str)
        and key.isascii()
        and key.isdigit()
        and not key.startswith("0")
        and int(key) >= 1
    )


def is_empty_optional(value: Any) -> bool:
    """``None``, ``""`` or an empty container: what AgentCompass treats as absent."""
    if value is None:
        return True
    if isinstance(value, str):
        return value == ""
    if isinstance(value, dict | list | tuple | set | frozenset):
        return len(value) == 0
    return False


class JsonError(ValueError):
    """A file's bytes are not a JSON document; the message says why, in one line."""


def parse_json(data: bytes, *, exact: bool = False) -> Any:
    """Parse JSON the way AgentCompass's ``json.loads`` does, fast: orjson first, then the
    standard library, which also accepts ``NaN``/``Infinity`` and lone surrogates and refuses
    integers of more than ``sys.get_int_max_str_digits()`` digits, as AgentCompass's reader
    does. ``exact``: the standard library only (orjson makes integers beyond 64 bits floats)."""
    if not exact:
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
        return json.loads(text)
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


def relpath(*parts: str) -> str:
    """Join POSIX path parts, dropping empty ones."""
    return "/".join([part for part in parts if part])


class RunFiles:
    """Read-only access to the files of one run directory.

    Args:
        root: The run directory (absolute).
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.real_root = Path(os.path.realpath(root))
        self._root_text = str(root)
        self._real_root_text = str(self.real_root)
        self._checked: dict[tuple[str, bool], tuple[str, str] | None] = {}
        # Fast path for one task folder at a time (issue 6): what one directory scan and
        # the files opened so far told us, so the usual case costs no extra stat calls.
        # Reset by prime_folder.
        self._local_clean: set[str] = set()  # not symbolic links, parents checked
        self._kinds: dict[str, bool] = {}  # rel -> is a regular file (not a link)
        self._prefetched: dict[str, bytes] = {}
        self.stats: dict[str, Stat] = {}  # rel -> its key as read (stat_key)

    def path(self, rel: str) -> Path:
        """The absolute path of ``rel`` (no checks)."""
        return self.root / rel if rel else self.root

    def _full(self, rel: str) -> str:
        # Plain strings: pathlib costs more than the reading itself on large runs.
        return f"{self._root_text}/{rel}" if rel else self._root_text

    full_path = _full

    def link_problem(self, rel: str, *, strict: bool) -> tuple[str, str] | None:
        """``(link, reason)`` when ``rel`` may not be read through a symbolic link, else None.

        ``link`` is the relative path of the offending link (``rel`` or one of its parent
        folders). ``strict`` refuses any symbolic link on the way (AgentCompass's
        ``contained`` rule for result paths); otherwise only links that resolve outside
        the run directory are refused.
        """
        if not rel or rel in self._local_clean:
            return None
        key = (rel, strict)
        if key in self._checked:
            return self._checked[key]
        parent = rel.rpartition("/")[0]
        found = self.link_problem(parent, strict=strict) if parent else None
        if found is None:
            full = self._full(rel)
            if os.path.islink(full):
                target = os.path.realpath(full)
                if os.path.commonpath([target, self._real_root_text]) != self._real_root_text:
                    found = (rel, "is a symbolic link that leads outside the run directory")
                elif strict:
                    found = (rel, "is a symbolic link; AgentCompass refuses symbolic links in result paths")
        self._checked[key] = found
        return found

    def prime_folder(self, folder: str) -> None:
        """Learn a task folder's entries from one directory scan (no stat per entry).

        Entries that are not symbolic links are marked as checked, and their kind (file or
        not) is remembered for :meth:`is_file`; anything unusual is left to the usual
        checks. The folder's own :func:`stat_key` goes to :attr:`stats`.
        """
        self._local_clean = set()
        self._kinds = {}
        self._prefetched = {}
        self.stats = {}
        parent = folder.rpartition("/")[0]
        if self.link_problem(parent, strict=True) is not None:
            return
        try:
            info = os.lstat(self._full(folder))
            if not stat_module.S_ISDIR(info.st_mode):
                return
            self.stats[folder] = stat_key(info)
            self._local_clean.add(folder)
            with os.scandir(self._full(folder)) as entries:
                for entry in entries:
                    if entry.is_symlink():
                        continue
                    rel = f"{folder}/{entry.name}"
                    self._local_clean.add(rel)
                    self._kinds[rel] = entry.is_file(follow_symlinks=False)
        except OSError:
            return

    def probe_file(self, rel: str) -> None:
        """Open ``rel`` if it is a plain file in a checked folder, and keep its bytes for
        the next :meth:`read_bytes` (one open instead of lstat + stat + open)."""
        if rel in self._prefetched or rel in self._kinds:
            return
        if rel.rpartition("/")[0] not in self._local_clean:
            return
        data = self._read_plain(rel)
        if data is not None:
            self._prefetched[rel] = data
            self._kinds[rel] = True
            self._local_clean.add(rel)

    def forget_prefetched(self) -> None:
        """Drop bytes probed but never read (a task refused half way)."""
        self._prefetched.clear()

    def _read_plain(self, rel: str, max_bytes: int | None = None) -> bytes | None:
        """The bytes of a plain file opened without following a final link, else None
        (a link, a folder, a FIFO, an error, too large: the caller takes the careful path)."""
        try:
            fd = os.open(self._full(rel), READ_FLAGS | os.O_NOFOLLOW)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat_module.S_ISREG(info.st_mode):
                return None
            if max_bytes is not None and info.st_size > max_bytes:
                return None
            data = _read_all(fd, info.st_size, max_bytes)
            if data is None:
                return None
            self.stats[rel] = stat_key(info)
            return data
        except OSError:
            return None
        finally:
            os.close(fd)

    def link_load_problem(self, rel: str, *, strict: bool, blocking: bool) -> LoadProblem | None:
        """The problem of reading ``rel`` through a refused symbolic link, if any."""
        found = self.link_problem(rel, strict=strict)
        if found is None:
            return None
        link, reason = found
        return LoadProblem(link, f"refused: {reason}", RULE_SYMLINK, blocking)

    def read_bytes(
        self, rel: str, *, strict: bool, blocking: bool, max_bytes: int | None = None
    ) -> tuple[bytes | None, LoadProblem | None]:
        """The bytes of ``rel``, or None and the problem (None, None when it is absent)."""
        prefetched = self._prefetched.pop(rel, None)
        if prefetched is not None:
            return prefetched, None
        if self._kinds.get(rel):
            data = self._read_plain(rel, max_bytes)
            if data is not None:
                return data, None
        refused = self.link_load_problem(rel, strict=strict, blocking=blocking)
        if refused is not None:
            return None, refused
        return self._read_checked(rel, strict=strict, blocking=blocking, max_bytes=max_bytes)

    def _read_checked(
        self, rel: str, *, strict: bool, blocking: bool, max_bytes: int | None
    ) -> tuple[bytes | None, LoadProblem | None]:
        """Open without blocking, check the type with ``fstat``, then read at most
        ``max_bytes``: only a regular file is ever read."""
        flags = READ_FLAGS | (os.O_NOFOLLOW if strict else 0)
        try:
            fd = os.open(self._full(rel), flags)
        except FileNotFoundError:
            return None, None
        except PermissionError:
            return None, LoadProblem(rel, "permission denied", RULE_JSON, blocking)
        except OSError as exc:
            special = self.special(rel)  # a socket cannot even be opened (ENXIO)
            if special is not None:
                return None, special
            return None, LoadProblem(rel, f"cannot be read: {exc.strerror or exc}", RULE_JSON, blocking)
        try:
            info = os.fstat(fd)
            if stat_module.S_ISDIR(info.st_mode):
                return None, LoadProblem(rel, "is a directory, expected a file", RULE_JSON, blocking)
            if not stat_module.S_ISREG(info.st_mode):
                return None, not_a_file(rel, info.st_mode, True)
            if max_bytes is not None and info.st_size > max_bytes:
                message = f"larger than {max_bytes // 1024**2} MiB; not read"
                return None, LoadProblem(rel, message, RULE_JSON, blocking)
            data = _read_all(fd, info.st_size, max_bytes)
            self.stats[rel] = stat_key(info)
            if data is None:
                message = f"grew beyond {max_bytes // 1024**2} MiB while read; not read"  # type: ignore[operator]
                return None, LoadProblem(rel, message, RULE_JSON, blocking)
            return data, None
        except OSError as exc:
            return None, LoadProblem(rel, f"cannot be read: {exc.strerror or exc}", RULE_JSON, blocking)
        finally:
            os.close(fd)

    def special(self, rel: str) -> LoadProblem | None:
        """The problem of ``rel`` when it exists but is neither a regular file, a folder
        nor a symbolic link (a FIFO, a socket, a device): refused by its type."""
        if self._kinds.get(rel):
            return None
        try:
            mode = os.lstat(self._full(rel)).st_mode
        except OSError:
            return None
        if stat_module.S_ISREG(mode) or stat_module.S_ISDIR(mode) or stat_module.S_ISLNK(mode):
            return None
        return not_a_file(rel, mode, True)

    def absent_reason(self, rel: str) -> str | None:
        """Why ``rel`` could not be found as a file, when it is not simply absent
        (``"permission denied"``: a folder on the way cannot be entered)."""
        return absent_reason(self._full(rel))

    def read_json(
        self, rel: str, *, strict: bool, blocking: bool, max_bytes: int | None = None
    ) -> tuple[Any, bool, LoadProblem | None]:
        """``(value, found, problem)``: the parsed JSON of ``rel``.

        ``found`` is False when the file does not exist (no problem then).
        """
        data, problem = self.read_bytes(rel, strict=strict, blocking=blocking, max_bytes=max_bytes)
        if data is None:
            return None, problem is not None, problem
        try:
            return parse_json(data), True, None
        except JsonError as exc:
            return None, True, LoadProblem(rel, str(exc), RULE_JSON, blocking)

    def read_text(
        self, rel: str, *, blocking: bool = False, max_bytes: int | None = None
    ) -> tuple[str | None, LoadProblem | None]:
        """The exact text of ``rel`` (no newline translation), or None and the problem."""
        data, problem = self.read_bytes(rel, strict=False, blocking=blocking, max_bytes=max_bytes)
        if data is None:
            return None, problem
        try:
            return data.decode("utf-8"), None
        except UnicodeDecodeError as exc:
            message = f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
            return None, LoadProblem(rel, message, RULE_JSON, blocking)

    def subdirs(self, rel: str) -> tuple[list[str], LoadProblem | None]:
        """Sorted names of the sub-directories of ``rel`` (following links, as glob does)."""
        try:
            with os.scandir(self._full(rel)) as entries:
                names = [entry.name for entry in entries if _is_dir(entry)]
        except FileNotFoundError:
            return [], None
        except NotADirectoryError:
            return [], LoadProblem(rel, "is a file, expected a folder", RULE_JSON, False)
        except OSError as exc:
            # AgentCompass's glob skips folders it cannot list, silently.
            reason = "permission denied" if isinstance(exc, PermissionError) else exc.strerror or exc
            message = f"folder cannot be listed ({reason}); AgentCompass skips it too"
            return [], LoadProblem(rel, message, RULE_JSON, False)
        return sorted(names), None

    def files(self, rel: str, suffix: str = "") -> list[str]:
        """Sorted names of the plain files of ``rel`` ending with ``suffix``."""
        try:
            with os.scandir(self._full(rel)) as entries:
                return sorted(
                    entry.name
                    for entry in entries
                    if entry.name.endswith(suffix) and _is_file(entry)
                )
        except OSError:
            return []

    def exists(self, rel: str) -> bool:
        """True when ``rel`` exists (following links)."""
        return os.path.exists(self._full(rel))

    def is_link(self, rel: str) -> bool:
        """True when ``rel`` itself is a symbolic link."""
        return os.path.islink(self._full(rel))

    def is_file(self, rel: str) -> bool:
        """True when ``rel`` is a file (following links)."""
        known = self._kinds.get(rel)
        if known is not None:
            return known
        return os.path.isfile(self._full(rel))


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


def _read_all(fd: int, size: int, max_bytes: int | None) -> bytes | None:
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


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False
