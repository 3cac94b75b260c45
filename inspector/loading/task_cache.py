"""An optional cache of task folders, outside the result directory (issue 6).

Reopening an unchanged run should not re-parse every ``result.json``. Each published
task folder's scoring record is stored in the user's cache directory (never under the run),
keyed by the run's real path; each entry carries the signature — path, size and
modification time — of the ``task.json`` and every ``result.json`` it was read from. On
reopen a folder is reused only when every one of those files still has the same signature,
so a live run (new tasks, moved folders, rewritten results) is re-read where it changed.

Records are stored as plain tuples with :mod:`marshal` (fast, and only data: no code is
ever loaded from the cache). Set ``INSPECTOR_CACHE=0`` to disable the cache; the inspector
works the same without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import pwd
import time
from pathlib import Path
from typing import Any

from inspector.results.file_io import Stat, stat_key
from inspector.results.layout import AttemptDirs

FORMAT = 5  # 5: attempt folders as their numbers (entry_data._dirs)
Signature = tuple[tuple[Any, ...], ...]
"""Per file ``(rel, device, inode, mode, size, mtime_ns, ctime_ns)`` (:func:`stat_key`)."""


def enabled() -> bool:
    """The cache is on (``INSPECTOR_CACHE`` is not ``0``) and there is a user cache folder."""
    flag = os.environ.get("INSPECTOR_CACHE", "1").strip().lower()
    return flag not in ("0", "false", "no", "off") and cache_dir() is not None


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


def cache_dir() -> Path | None:
    """The cache folder of runs (``runs`` in :func:`cache_root`), None when there is none."""
    root = cache_root()
    return None if root is None else root / "runs"


def cache_file(run_root: Path, folder: Path | None = None) -> Path:
    """Where the task cache of a run is kept (only asked when :func:`enabled`);
    ``folder``: the cache folder, else the user's."""
    folder = folder or cache_dir()
    if folder is None:
        raise OSError("no user cache folder")
    key = hashlib.sha256(os.path.realpath(run_root).encode("utf-8", "surrogateescape")).hexdigest()
    return folder / f"{key[:32]}.marshal"


def delta_file(path: Path) -> Path:
    """Beside a run's task cache file: the folders changed since it was written."""
    return path.with_suffix(".delta.marshal")


DELTA_MIN = 64
DELTA_SHARE = 8
"""The delta file holds at most one folder in this many (or :data:`DELTA_MIN`)."""


def write_atomically(path: Path, data: Any) -> bool:
    """Write ``data`` (marshal) to ``path`` through a temporary file in the same folder;
    on any failure (a full disk, a read-only folder) or Ctrl-C nothing is left behind."""
    # tempfile (with shutil, random, bz2 and lzma: ~12 M instructions) only when a cache is
    # written: an answer from the cache writes nothing.
    import tempfile

    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".inspector-", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            marshal.dump(data, handle)
        os.replace(tmp, path)
        return True
    except BaseException as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if not isinstance(exc, (OSError, ValueError)):
            raise  # Ctrl-C
        return False


def load_marshal(path: Path) -> Any:
    """The data in a cache file, or None when it is missing or not marshal data."""
    try:
        with open(path, "rb") as handle:
            return marshal.loads(handle.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None


ABSENT: Stat = (0, 0, 0, 0, 0, 0)
"""The :data:`Stat` recorded for a file that does not exist."""

FINE_GRANULARITY_NS = 50_000_000
"""How far a file's time stamp may lag behind the clock: the kernel stamps files from a
coarse clock (one tick, 1-10 ms), so a file written just after the reading started can
carry a stamp a little before it."""
COARSE_GRANULARITY_NS = 2_000_000_000
"""Time stamps in whole seconds (FAT keeps two-second stamps, some network file systems
whole seconds): a file written in the same second as the read looks older than it is."""


def is_racy(stat: Stat, fence_ns: int) -> bool:
    """True when a file's modification or change time is not safely older than
    ``fence_ns`` (when reading began): it may have been written again in the same time
    stamp tick, after it was read, without its key changing ("racy git"). Such files are
    not cached; the next read reads them again."""
    if stat == ABSENT:
        return False
    for stamp in (stat[4], stat[5]):
        granularity = COARSE_GRANULARITY_NS if stamp % 1_000_000_000 == 0 else FINE_GRANULARITY_NS
        if stamp >= fence_ns - granularity:
            return True
    return False


def signature(root: str, rels: list[str]) -> Signature | None:
    """``(rel, *stat_key)`` of each path (not following a final symbolic link), or None
    when one cannot be stat'ed."""
    out = []
    stat = os.lstat
    for rel in rels:
        try:
            info = stat(f"{root}/{rel}")
        except OSError:
            return None
        out.append((rel, *stat_key(info)))
    return tuple(out)


def stat_or_absent(path: str) -> Stat | None:
    """:func:`stat_key` of ``path`` (not following a final link), :data:`ABSENT` when it
    does not exist, None when it cannot be stat'ed."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return ABSENT
    except OSError:
        return None
    return stat_key(info)


def unchanged(root: str, signatures: list[Signature]) -> list[bool]:
    """For each signature, whether its files still have it (a worker process's share)."""
    return [signature(root, [item[0] for item in sig]) == sig for sig in signatures]


def known_signature(stats: dict[str, Stat], rels: list[str]) -> Signature | None:
    """The signature of ``rels`` from what the reader saw as it read them (the folder's
    lstat and each file's fstat), or None when one of them was not seen."""
    try:
        return tuple((rel, *stats[rel]) for rel in rels)
    except KeyError:
        return None


def signature_is_racy(sig: Signature, fence_ns: int) -> bool:
    """Whether any file of ``sig`` is racy (:func:`is_racy`). Files stamped more than the
    coarse granularity before the fence are racy under neither granularity: a folder
    whose newest stamp is that old (the usual folder of a finished run) is answered
    without a look at each file."""
    newest = max([max(item[5], item[6]) for item in sig], default=0)
    if newest < fence_ns - COARSE_GRANULARITY_NS:
        return False
    return any(is_racy(item[1:], fence_ns) for item in sig)


def valid_signature(sig: Any) -> bool:
    """A signature as :func:`signature` makes it (anything else in a cache file is a miss)."""
    if type(sig) is not tuple:
        return False
    for item in sig:
        if type(item) is not tuple or len(item) != 7:
            return False
        rel, device, inode, mode, size, mtime, ctime = item
        if not (
            type(rel) is str
            and type(device) is int
            and type(inode) is int
            and type(mode) is int
            and type(size) is int
            and type(mtime) is int
            and type(ctime) is int
        ):
            return False
    return True


def entry_files(entry: Any) -> list[str]:
    """What an entry was read from: its folder (a new attempt folder or a symbolic link
    changes it), its task.json and each attempt's result.json."""
    dirs = entry.attempt_dirs
    if type(dirs) is AttemptDirs:  # the usual attempt-N folders: their paths from the numbers
        folder = dirs.folder
        tail = [f"{folder}/attempt-{number}/result.json" for number in sorted(dirs.numbers)]
        return [entry.folder, entry.task_file, *tail]
    files = [entry.folder, entry.task_file]
    files += [f"{folder}/result.json" for _, folder in sorted(dirs.items())]
    return files


class TaskCache:
    """Load once, look up folders, save once. Never raises: a broken cache is a miss.

    Args:
        run_root: The run directory.
        reuse: False reads nothing from the cache (every folder is read again; what is
            read is still stored for next time).
    """

    def __init__(self, run_root: Path, *, reuse: bool = True) -> None:
        # The entries' plain data, and the engine's model with it, when a task cache is
        # opened: the report cache's answer uses this module's file helpers only.
        from inspector.loading.entry_data import decode_entry, encode_entry

        self._decode, self._encode = decode_entry, encode_entry
        self.root = str(run_root)
        self.path = cache_file(run_root)
        self.fence = time.time_ns()  # before any task file is read: see is_racy
        self.entries: dict[str, Any] = {}
        # Per folder read or taken from the cache: its signature, where AgentCompass finds
        # it first, and its entry as plain data (None until :meth:`save`: the entries read
        # are encoded only for a cache that is written, see :attr:`unencoded`).
        self.fresh: dict[str, tuple[Signature, str, tuple[Any, ...] | None]] = {}
        self.unencoded: dict[str, Any] = {}
        # Beside each entry, what was derived from it (the task's reductions under one
        # plan: inspector.loading.reduction_cache), as stored and as to be stored.
        self.kept: dict[str, Any] = {}
        self.attached: dict[str, Any] = {}
        self.hits = 0
        # What the delta file holds (folders changed since the base file was written).
        self.delta: dict[str, Any] = {}
        base = self._stored(self.path) if reuse else None
        if base is not None:
            self.entries = base
            delta = self._stored(delta_file(self.path))
            if delta:
                self.delta = delta
                base.update(delta)

    def _stored(self, path: Path) -> dict[str, Any] | None:
        data = load_marshal(path)
        if (
            type(data) is tuple
            and len(data) == 3
            and data[:2] == (FORMAT, self.root)
            and type(data[2]) is dict
        ):
            return data[2]
        return None

    def candidate(self, folder: str, state: str, first_location: str) -> Signature | None:
        """The signature to check before the cached entry of ``folder`` may be used (None:
        nothing usable is cached). :func:`unchanged` checks it, maybe in another process.

        ``first_location`` (where AgentCompass finds this folder name first) is part of
        the key: a same-named folder appearing in another state folder changes the entry.
        """
        cached = self.entries.get(folder)
        if type(cached) is not tuple or len(cached) != 4:
            return None
        sig, first, data, _ = cached
        if first != first_location or type(data) is not tuple or len(data) != 8:
            return None
        if data[2] != state or not valid_signature(sig):
            return None
        return sig  # type: ignore[no-any-return]

    def accept(self, folder: str) -> Any:
        """The cached entry of ``folder``, whose signature was just found unchanged (None:
        the entry is malformed, and the folder is read)."""
        cached = self.entries[folder]
        entry = self._decode(cached[2])
        if entry is None or entry.folder != folder:
            return None
        self.hits += 1
        self.fresh[folder] = cached[:3]
        if cached[3] is not None:
            self.kept[folder] = cached[3]
        return entry

    def put(self, entry: Any, first_location: str, seen: Signature | None = None) -> None:
        """Remember an entry that was just read; it is encoded as plain data only when the
        cache is saved (a read whose task cache is not kept, as the runs screen's audit of
        a small run, encodes nothing: a tenth of its time)."""
        self.put_encoded(entry, None, first_location, seen)

    def put_encoded(
        self,
        entry: Any,
        data: tuple[Any, ...] | None,
        first_location: str,
        seen: Signature | None = None,
    ) -> None:
        """``data``: the entry as plain data, when a reader process sent it so (None: made
        when saving). ``seen``: the signature the reader took while reading; else stat the
        files now. A folder with a racy file (:func:`is_racy`) is not remembered."""
        sig = seen if seen is not None else signature(self.root, entry_files(entry))
        if sig is not None and not signature_is_racy(sig, self.fence):
            self.fresh[entry.folder] = (sig, first_location, data)
            if data is None:
                self.unencoded[entry.folder] = entry

    def save(self) -> None:
        """Write the entries seen in this read (atomically, in the cache directory).

        When few folders changed since the base file was written, only they are written,
        to the delta file (a removed or no longer cacheable folder as None); the base file
        is written whole again once the delta grows past :data:`DELTA_SHARE` of it. Every
        entry is checked against its files before use, so any base and delta combined
        (one written, the other not: a crash, another inspector) give misses, never a
        wrong entry."""
        attached, entries = self.attached, self.entries
        encode, unencoded = self._encode, self.unencoded
        out = {
            folder: (
                sig,
                first,
                encode(unencoded[folder]) if data is None else data,
                attached.get(folder),
            )
            for folder, (sig, first, data) in self.fresh.items()
        }
        changed = {folder: value for folder, value in out.items() if entries.get(folder) != value}
        gone = [
            folder for folder, value in entries.items() if value is not None and folder not in out
        ]
        if not changed and not gone:
            return
        delta = {**self.delta, **changed, **dict.fromkeys(gone)}
        if entries and len(delta) <= max(DELTA_MIN, len(out) // DELTA_SHARE):
            write_atomically(delta_file(self.path), (FORMAT, self.root, delta))
        elif write_atomically(self.path, (FORMAT, self.root, out)):
            with contextlib.suppress(OSError):
                os.unlink(delta_file(self.path))
