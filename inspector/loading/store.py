"""The store: one cache folder, trusted as git trusts a repository, and how every file in it
is written and read (the rules: ``docs/cache-and-trust.md``). Only the user's own folders
and files, writable by no one else, are used. Every file is :data:`MAGIC`, the
:func:`code_signature` of the inspector that wrote it, a typed record (msgpack) and its
SHA-256: another version, another code, a bad checksum or a bad record is a miss.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import mmap
import os
import pwd
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from inspector.loading.records import WARNING_PREFIX

STORE_VERSION = 8
"""The one version of everything kept: any change of a record's shape changes it."""
MAGIC = b"inspector-store/%d\n" % STORE_VERSION
"""What every store file starts with; then the code signature and a newline."""
DIGEST = 32


def cache_root() -> Path | None:
    """The one cache folder: ``platformdirs.user_cache_dir("agentcompass-inspector")``
    (``$XDG_CACHE_HOME`` only when absolute, else ``$HOME/.cache``). None without such a
    home (``HOME=''`` or ``/``) or inside the results read: then nothing is cached."""
    if not os.path.isabs(os.environ.get("XDG_CACHE_HOME", "")):
        home = os.environ.get("HOME")
        if home is None:
            try:
                home = pwd.getpwuid(os.getuid()).pw_dir
            except (KeyError, OSError):
                return None
        if not os.path.isabs(home) or os.path.realpath(home) == "/":
            return None
    import platformdirs  # here: a cached report of a run that has none does not need it

    try:
        root = Path(platformdirs.user_cache_dir("agentcompass-inspector", appauthor=False))
    except RuntimeError:  # no home it can find
        return None
    results = inside_results(root)
    if results is not None:
        _refuse(root, "folder", f"it lies inside the results read at {results}")
        return None
    return root


RESULTS_READ = "INSPECTOR_RESULTS_READ"
"""The runs and roots a command reads (real paths, a JSON list in the environment, so its
reader processes know them too): no cache folder inside one of them. ``XDG_CACHE_HOME`` or
``HOME`` may lie inside the results (GitLab CI: ``XDG_CACHE_HOME=$CI_PROJECT_DIR/.cache``)."""


@contextlib.contextmanager
def results_read(paths: Iterable[str | os.PathLike[str]]) -> Iterator[None]:
    """While a command reads ``paths`` (runs or roots): nothing is cached inside them."""
    before = os.environ.get(RESULTS_READ)
    os.environ[RESULTS_READ] = json.dumps(sorted({os.path.realpath(p) for p in paths}))
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(RESULTS_READ, None)
        else:
            os.environ[RESULTS_READ] = before


def inside_results(folder: Path) -> str | None:
    """The results read that ``folder`` (every link followed) lies inside, else None."""
    try:
        read = json.loads(os.environ.get(RESULTS_READ) or "[]")
    except ValueError:
        return None
    real = os.path.realpath(folder) + os.sep
    for results in read if isinstance(read, list) else ():
        if isinstance(results, str) and real.startswith(results.rstrip(os.sep) + os.sep):
            return results
    return None


@functools.cache
def code_signature() -> str:
    """The inspector's version and the size and modification time of each of its source
    files and of its package data (``inspector/data``): what shaped every kept value, so
    an upgrade, or any edit of the code, cannot serve an old number."""
    import inspector

    package = os.path.dirname(os.path.abspath(inspector.__file__))
    parts = [inspector.__version__]
    for folder, dirs, names in os.walk(package):
        dirs[:] = sorted(name for name in dirs if name != "__pycache__")  # no sources there
        where = os.path.relpath(folder, package)
        for name in sorted(names):
            if name.endswith(".py") or where.split(os.sep)[0] == "data":
                info = os.stat(os.path.join(folder, name))
                parts.append(f"{where}/{name}:{info.st_size}:{info.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _header() -> bytes:
    return MAGIC + code_signature().encode() + b"\n"


def _why_not(info: os.stat_result, kind: str) -> str | None:
    """Why a folder or file with this stat may not hold the cache, else None."""
    uid = os.geteuid()
    if info.st_uid != uid:
        return f"owned by uid {info.st_uid}, not by you (uid {uid})"
    if info.st_mode & 0o022:
        mode = stat.S_IMODE(info.st_mode)
        return f"writable by group or others (mode {mode:04o}; `chmod go-w` makes it usable)"
    if kind == "folder" and not stat.S_ISDIR(info.st_mode):
        return "not a folder"
    if kind == "file" and not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    return None


_warned: set[str] = set()


def _refuse(path: Path | str, kind: str, why: str) -> None:
    """Say once per process and path why the cache there is not used (a reader process
    says nothing: its stderr may be the app's terminal)."""
    name = str(path)
    if name not in _warned:
        _warned.add(name)
        processes = sys.modules.get("multiprocessing")  # imported in every worker
        if processes is not None and processes.parent_process() is not None:
            return
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(
                f"{WARNING_PREFIX}cache {kind} {name} not used: {why}; the run is read from its files\n"
            )


def trusted(folder: Path) -> bool:
    """Whether every existing folder from the cache root down to ``folder`` (outside the
    root: that folder alone) is the user's and not writable by group or others; an
    untrusted one is named on stderr, once."""
    root = cache_root()
    chain = [folder]
    if root is not None and folder.is_relative_to(root):
        parts = folder.relative_to(root).parts
        chain = [root, *(root.joinpath(*parts[: i + 1]) for i in range(len(parts)))]
    for step in chain:
        try:
            info = os.stat(step)
        except (FileNotFoundError, NotADirectoryError):
            return True  # nor anything below it: made by this user when written
        except OSError as exc:
            _refuse(step, "folder", exc.strerror or str(exc))
            return False
        why = _why_not(info, "folder")
        if why is not None:
            _refuse(step, "folder", why)
            return False
    return True


def make_folder(folder: Path) -> bool:
    """Create ``folder`` (and its parents) private to the user, and say whether the cache
    may be kept there (:func:`trusted`)."""
    missing = []
    while not folder.exists() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    try:
        for step in reversed(missing):  # each one 0700 (``mkdir(parents=True)`` would not)
            step.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return False
    return trusted(missing[0] if missing else folder)


def write_atomically(path: Path, record: Any) -> bool:
    """Write ``record`` to ``path`` (:func:`write_streamed`)."""
    from inspector.loading.records import ENCODER

    return write_streamed(path, lambda: iter((ENCODER.encode(record),)))


def write_streamed(path: Path, pieces: Callable[[], Iterator[bytes]]) -> bool:
    """Write a record whose msgpack comes in ``pieces`` (made as they are written: a large
    task store is never held whole) through a temporary file in the same trusted folder;
    on any failure (a full disk, a read-only folder) nothing is left behind."""
    global _unfinished
    import secrets  # only when something is written: an answer from the store writes nothing

    if not make_folder(path.parent):
        return False
    # Named before it exists: a process ended at any moment removes it (remove_unfinished).
    tmp = _unfinished = str(path.parent / f".inspector-{secrets.token_hex(8)}.tmp")
    sigterm_taken = _sigterm_removes_it()
    try:
        digest = hashlib.sha256()
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb", buffering=0) as handle:
            _write_all(handle, _header())
            buffer = bytearray()  # small pieces: a write per megabyte, not per piece
            for piece in pieces():
                if len(piece) >= _BUFFER or isinstance(getattr(piece, "obj", 0), mmap.mmap):
                    _flush(handle, digest, buffer)
                    _write(handle, digest, piece)
                    continue
                buffer += piece
                if len(buffer) >= _BUFFER:
                    _flush(handle, digest, buffer)
            _flush(handle, digest, buffer)
            _write_all(handle, digest.digest())
        os.replace(tmp, path)
        return True
    except BaseException as exc:  # Ctrl-C too: no temporary file is left behind
        remove_unfinished()
        if not isinstance(exc, OSError | ValueError | TypeError | OverflowError):
            raise
        return False
    finally:
        _unfinished = None
        if sigterm_taken:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


_unfinished: str | None = None
"""The temporary file :func:`write_streamed` is writing in this process now, if any."""


def remove_unfinished() -> None:
    """Remove the temporary file this process is writing, if any: a write that failed, or
    a process ended in the middle of one (SIGTERM; a reader whose parent has gone)."""
    if _unfinished is not None:
        with contextlib.suppress(OSError):
            os.unlink(_unfinished)


def _sigterm_removes_it() -> bool:
    """While the main thread writes and SIGTERM would end the process as by default, it
    removes the file first, then ends it so; True when so (the default is put back after).
    """
    if threading.current_thread() is not threading.main_thread():
        return False
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return False  # the process handles it (a KeyboardInterrupt-like exception cleans up)
    signal.signal(signal.SIGTERM, _ended_while_writing)
    return True


def _ended_while_writing(number: int, frame: Any) -> None:
    remove_unfinished()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


_BUFFER = 1 << 20


def _write_all(handle: Any, data: bytes | bytearray) -> None:
    view = memoryview(data)
    while view:  # unbuffered: a short write is possible
        view = view[handle.write(view) :]


def _write(handle: Any, digest: Any, data: Any) -> None:
    # A large piece as it is, never copied; a whole mapped file (:func:`spill_file`) too,
    # its pages let go as written: not held.
    mapped = getattr(data, "obj", None)
    if isinstance(mapped, mmap.mmap) and len(data) == len(mapped):
        for at in range(0, len(data), _BUFFER):
            with data[at : at + _BUFFER] as window:
                digest.update(window)
                _write_all(handle, window)
            mapped.madvise(mmap.MADV_DONTNEED, at, min(_BUFFER, len(data) - at))
        return
    digest.update(data)
    _write_all(handle, data)


def spill_file(folder: Path) -> int:
    """A file descriptor of an unnamed file in the trusted cache folder ``folder``, for
    this process alone and gone with it (``O_TMPFILE``: it never has a name, so no failure
    or signal leaves it behind); -1 where none can be made."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not make_folder(folder):
        return -1
    try:
        return os.open(folder, flag | os.O_RDWR | os.O_CLOEXEC, 0o600)
    except OSError:
        return -1


def _flush(handle: Any, digest: Any, buffer: bytearray) -> None:
    _write(handle, digest, buffer)
    buffer.clear()


def load(path: Path, kind: Any) -> Any:
    """The record of type ``kind`` in a store file, or None when it is missing, untrusted
    (:func:`trusted`, :func:`_why_not`) or not a store file of this inspector."""
    from inspector.loading.records import decoded

    opened = checked_record(path)
    if opened is None:
        return None
    try:
        with opened[0] as handle:
            payload = handle.read(opened[1])
    except OSError:
        return None
    return decoded(kind, payload)


WINDOW = 1 << 20
"""How much of a store file :func:`checked_record` reads at once."""


def checked_record(path: Path) -> tuple[Any, int] | None:
    """A store file open at its record, and the record's size, once its checksum matched
    (read through a window at a time: a task store is never held whole; a store file is
    replaced when written, never changed); None as :func:`load`. The caller closes it."""
    if not trusted(path.parent):
        return None
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below or by the caller
    except OSError:
        return None
    header, digest = _header(), hashlib.sha256()
    try:
        info = os.fstat(handle.fileno())
        why = _why_not(info, "file")
        if why is not None:
            _refuse(path, "file", why)
            raise ValueError(why)
        size = left = info.st_size - len(header) - DIGEST
        if size < 0 or handle.read(len(header)) != header:
            raise ValueError("not a store file of this inspector")
        while left > 0:
            piece = handle.read(min(left, WINDOW))
            digest.update(piece)
            left -= len(piece) or left + 1  # ended early: a miss
        if left or handle.read() != digest.digest():
            raise ValueError("a bad checksum")
        handle.seek(len(header))
        return handle, size
    except (OSError, ValueError):
        handle.close()
        return None


def enabled() -> bool:
    """The store is on (``INSPECTOR_CACHE`` is not ``0``) and its folder is trusted."""
    flag = os.environ.get("INSPECTOR_CACHE", "1").strip().lower()
    if flag in ("0", "false", "no", "off"):
        return False
    folder = runs_dir()
    return folder is not None and trusted(folder)


def runs_dir() -> Path | None:
    """The folder of the runs' stores (``runs`` in :func:`cache_root`), None without one."""
    root = cache_root()
    return None if root is None else root / "runs"


Stat = tuple[int, int, int, int, int, int]
ABSENT: Stat = (0, 0, 0, 0, 0, 0)
"""The :data:`Stat` recorded for a file that does not exist."""
FINE_GRANULARITY_NS = 50_000_000
"""How far a stamp may lag behind the clock (the kernel's coarse clock: one tick)."""
COARSE_GRANULARITY_NS = 2_000_000_000
"""Stamps in whole seconds (FAT: two seconds; some network file systems: one)."""


def is_racy(stat: Stat, fence_ns: int) -> bool:
    """True when a file's modification or change time is not safely older than
    ``fence_ns`` (when reading began): it may have been written again in the same tick
    after it was read ("racy git"), so it is left out of the store and read next time."""
    if stat == ABSENT:
        return False
    for stamp in (stat[4], stat[5]):
        granularity = COARSE_GRANULARITY_NS if stamp % 1_000_000_000 == 0 else FINE_GRANULARITY_NS
        if stamp >= fence_ns - granularity:
            return True
    return False
