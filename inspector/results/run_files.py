"""Read-only access to the files of one run directory, and its task folders (:func:`task_folders`).

:class:`RunFiles` is the only place that opens files under a run: it never writes, refuses
symbolic links that leave the run (and, for result paths, any symbolic link, as
AgentCompass's ``contained`` does), and turns every I/O or decoding failure into a
:class:`~inspector.results.problems.LoadProblem` instead of an exception. The primitives it
reads with are in :mod:`inspector.results.file_io`; the names and rules of a run's layout in
:mod:`inspector.results.layout`.
"""

from __future__ import annotations

import os
import stat as stat_module
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from inspector.results.file_io import (
    READ_FLAGS,
    JsonError,
    Stat,
    absent_reason,
    is_dir,
    is_file,
    not_a_file,
    parse_json,
    read_all,
    stat_key,
)
from inspector.results.layout import FINAL_STATES, RUNNING, TASK_STATES, StateName, relpath
from inspector.results.problems import (
    RULE_JSON,
    RULE_NO_DETAILS,
    RULE_OLD_FLAT,
    RULE_SYMLINK,
    LoadProblem,
)

Reader = Callable[[int, int, int | None], bytes | None]
"""Reads an open regular file: its descriptor, size at ``fstat`` and the size limit."""


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
        # Fast path for one task folder at a time: what one directory scan and
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

    def _read_plain(
        self, rel: str, max_bytes: int | None = None, reader: Reader = read_all
    ) -> bytes | None:
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
            data = reader(fd, info.st_size, max_bytes)
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
        self,
        rel: str,
        *,
        strict: bool,
        blocking: bool,
        max_bytes: int | None = None,
        reader: Reader = read_all,
    ) -> tuple[bytes | None, LoadProblem | None]:
        """The bytes of ``rel``, or None and the problem (None, None when it is absent).

        ``reader`` reads the open regular file (``read_all``'s arguments): one that leaves
        part of it out (:func:`~inspector.results.runinfo.read_without_plans`) gives those
        bytes; bytes probed earlier are given whole."""
        prefetched = self._prefetched.pop(rel, None)
        if prefetched is not None:
            return prefetched, None
        if self._kinds.get(rel):
            data = self._read_plain(rel, max_bytes, reader)
            if data is not None:
                return data, None
        refused = self.link_load_problem(rel, strict=strict, blocking=blocking)
        if refused is not None:
            return None, refused
        return self._read_checked(
            rel, strict=strict, blocking=blocking, max_bytes=max_bytes, reader=reader
        )

    def _read_checked(
        self,
        rel: str,
        *,
        strict: bool,
        blocking: bool,
        max_bytes: int | None,
        reader: Reader = read_all,
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
            data = reader(fd, info.st_size, max_bytes)
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
                names = [entry.name for entry in entries if is_dir(entry)]
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
                    if entry.name.endswith(suffix) and is_file(entry)
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


def listing_key(
    candidates: list[tuple[str, StateName]], running: list[str], problems: list[LoadProblem]
) -> tuple[Any, ...]:
    """The task folder listing as comparable data."""
    return (
        tuple(candidates),
        tuple(running),
        tuple((p.path, p.message, p.rule, p.blocking) for p in problems),
    )


def task_folders(
    files: RunFiles, problems: list[LoadProblem]
) -> tuple[list[tuple[str, StateName]], list[str]]:
    """Candidates in ``layout.result_files`` order (normal, error, fatal, v2) and running folders."""
    details = "details"
    refused = files.link_load_problem(details, strict=True, blocking=True)
    if refused is not None:
        problems.append(refused)
        return [], []
    names, problem = files.subdirs(details)
    if problem is not None:
        problems.append(problem)
    elif not names and not files.exists(details):
        message = (
            "missing: the run has no details/ folder, so no task results; AgentCompass"
            " reports it as an empty run"
        )
        problems.append(LoadProblem(details, message, RULE_NO_DETAILS, False))
    candidates: list[tuple[str, StateName]] = []
    running: list[str] = []
    # Final states first and running/ last: a task published while we list is then
    # missed (until the next read) rather than seen twice.
    for state in (*FINAL_STATES, RUNNING):
        if state not in names:
            continue
        folder = relpath(details, state)
        refused = files.link_load_problem(folder, strict=True, blocking=True)
        if refused is not None:
            problems.append(refused)
            continue
        children, problem = files.subdirs(folder)
        if problem is not None:
            problems.append(problem)
        # relpath(folder, child) inline: a call per task folder is a fifth of a reopen's check.
        prefix = f"{folder}/"
        if state == RUNNING:
            running = [prefix + child for child in children]
        else:
            final = cast(StateName, state)  # one of FINAL_STATES
            candidates.extend([(prefix + child, final) for child in children])
    for name in names:
        if name not in TASK_STATES or files.is_file(relpath(details, name, "task.json")):
            candidates.append((relpath(details, name), "v2"))
    flat = files.files(details, ".json")
    if flat:
        message = f"holds {len(flat)} older flat detail file(s) (*.json); AgentCompass 1.0.1 does not read them"
        problems.append(LoadProblem(details, message, RULE_OLD_FLAT, False))
    return candidates, running
