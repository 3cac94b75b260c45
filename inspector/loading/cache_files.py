"""The one place cache files are read and written, and the cache folder they live in (issue 48).

Every cache (tasks, reports, score tables, checks, runs lists: the ``runs`` folder; remote
mirrors: ``remote``) is kept under :func:`cache_root`. A cache holds numbers the inspector
prints as the run's, so it trusts only its owner, as git trusts a repository
(``safe.directory``): every folder from the cache root down to a file, and the file itself,
must belong to the user running the inspector and must not be writable by group or
others. Anything else is not used: one line on stderr names the folder (or file) and says
why, and the run is read from its own files. Folders the inspector creates are ``0700``,
files ``0600``.

Each file carries a SHA-256 checksum of its content (:func:`pack`); a file whose checksum
does not match (a torn write, a disk error, an edit) is a miss, like one of another shape.
The checksum is for integrity; trust comes from ownership, which no one else can forge.

Each file also starts with the :func:`code_signature` of the inspector that wrote it, and
is a miss for any other: whatever a cache holds (task entries, reductions, reports, score
tables, checks, runs lists) was shaped by the reader, the engine and the package data, so an
upgrade, or any edit of the code, can never serve an old number. No cache has to remember to
bump a version of its own for that.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import marshal
import os
import pwd
import stat
import sys
from pathlib import Path
from typing import Any

MAGIC = b"inspector-cache/2\n"
"""What every cache file starts with; then the code signature and a newline, its marshal
payload, then SHA-256 of the payload."""
DIGEST = 32
WARNING = "inspector: warning: "


def cache_root() -> Path | None:
    """The one cache folder of every cache (tasks, reports, checks, summaries, remote
    mirrors): ``platformdirs.user_cache_dir("agentcompass-inspector")``, which takes
    ``$XDG_CACHE_HOME`` only when absolute, as the XDG specification asks, else
    ``$HOME/.cache`` (the account's home when ``HOME`` is unset). None when there is no
    such home (``HOME=''`` or ``/``, with no absolute ``XDG_CACHE_HOME``): then nothing is
    cached rather than written somewhere unexpected (``/.cache``, the current folder)."""
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
        return Path(platformdirs.user_cache_dir("agentcompass-inspector", appauthor=False))
    except RuntimeError:  # no home it can find
        return None


@functools.cache
def code_signature() -> str:
    """The inspector's version and the size and modification time of each of its source
    files and of its package data (``inspector/data``): what shaped every cached value."""
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
    """Say once per process and path why the cache there is not used; a worker process
    says nothing (its stderr may be the app's terminal: the process that started it judges
    the cache folder before it does, :func:`~inspector.loading.many.map_in_processes`)."""
    name = str(path)
    if name not in _warned:
        _warned.add(name)
        processes = sys.modules.get("multiprocessing")  # imported in every worker
        if processes is not None and processes.parent_process() is not None:
            return
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(
                f"{WARNING}cache {kind} {name} not used: {why}; the run is read from its files\n"
            )


def trusted(folder: Path) -> bool:
    """Whether every folder from the cache root down to ``folder`` that exists belongs to
    the user and is not writable by group or others (a folder that does not exist yet is
    made by :func:`make_folder`). ``folder`` outside the cache root: that folder alone.
    An untrusted folder is named on stderr, once."""
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


def pack(data: Any) -> bytes:
    """``data`` as a cache file's bytes: :data:`MAGIC`, the code signature, marshal,
    SHA-256 of the marshal."""
    payload = marshal.dumps(data)
    return _header() + payload + hashlib.sha256(payload).digest()


def unpack(raw: bytes) -> Any:
    """The data :func:`pack` made ``raw`` from, or None when it does not start with
    :data:`MAGIC` and this inspector's code signature, its checksum does not match or it is
    not marshal data."""
    header = _header()
    if len(raw) < len(header) + DIGEST or not raw.startswith(header):
        return None
    view = memoryview(raw)
    payload = view[len(header) : -DIGEST]
    if hashlib.sha256(payload).digest() != raw[-DIGEST:]:
        return None
    try:
        return marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None


class _Hashing:
    """A file that keeps the SHA-256 of what is written to it (``marshal.dump`` writes
    through it)."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.digest = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        return self.handle.write(data)  # type: ignore[no-any-return]


def write_atomically(path: Path, data: Any) -> bool:
    """Write ``data`` (:func:`pack`) to ``path`` through a temporary file in the same folder,
    only in a trusted folder (:func:`make_folder`); on any failure (a full disk, a read-only
    folder) nothing is left behind."""
    # tempfile (with shutil, random, bz2 and lzma: ~12 M instructions) only when a cache is
    # written: an answer from the cache writes nothing.
    import tempfile

    if not make_folder(path.parent):
        return False
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".inspector-", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(_header())
            hashing = _Hashing(handle)
            marshal.dump(data, hashing)
            handle.write(hashing.digest.digest())
        os.replace(tmp, path)
        return True
    except BaseException as exc:  # Ctrl-C too: no temporary file is left behind
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if not isinstance(exc, OSError | ValueError):
            raise
        return False


def load_marshal(path: Path) -> Any:
    """The data in a cache file, or None when it is missing, in an untrusted folder
    (:func:`trusted`), not the user's own or writable by others, or not what
    :func:`pack` makes (a checksum that does not match)."""
    if not trusted(path.parent):
        return None
    try:
        with open(path, "rb") as handle:
            why = _why_not(os.fstat(handle.fileno()), "file")
            if why is not None:
                _refuse(path, "file", why)
                return None
            raw = handle.read()
    except OSError:
        return None
    return unpack(raw)
