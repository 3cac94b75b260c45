"""Runs on object storage (``s3://``, ``gs://``, ``az://``, ``http(s)://``, ``file://``), read-only.

:func:`mirror` lists the objects under a URL (fsspec), fetches the new and changed ones
(keyed by version and size) into a mirror in the cache folder, which the ordinary reader
then reads, and removes the ones gone. The reader's rules hold; each refusal is a warning
naming the remote object (``docs/cache-and-trust.md``, *Remote mirrors*). Credentials come
only from each backend's standard chain; nothing is written to the remote.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from inspector.loading import store
from inspector.loading.records import OPTIONS
from inspector.loading.store import cache_root, make_folder, trusted
from inspector.results.problems import RunReadError

_EXTRAS = {"s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs", "az": "azure", "abfs": "azure",
           "abfss": "azure", "adl": "azure", "http": "http", "https": "http"}  # fmt: skip
_VERSION_FIELDS = ("ETag", "etag", "generation", "version_id", "VersionId", "LastModified",
                   "last_modified", "mtime", "updated")  # fmt: skip
MiB = 1024**2
NAME_MAX = 255  # bytes in one file name (Linux, macOS, Windows: the usual limit)
NOT_YOURS = "the cache folder to mirror it in is not only yours (see the warning above)"
KEY_MAX = 3072  # bytes in a key: a local path (PATH_MAX 4096) also holds the cache folder


class MirrorIndex(msgspec.Struct, **OPTIONS):
    """A remote run's mirror: each object's version (ETag, generation…) and size."""

    url: str
    objects: dict[str, tuple[str | None, int]]


def _limit(name: str, default_mb: int) -> int:
    try:
        return max(0, int(float(os.environ.get(name, default_mb)) * MiB))
    except ValueError:
        return default_mb * MiB


def mirrors_dir(url: str) -> Path:
    """Where mirrors are kept: ``remote`` in the cache folder. Raises :class:`RunReadError`
    naming ``url`` when there is none, or when someone else can write it (its files would
    be read as the run's)."""
    root = cache_root()
    if root is None:
        raise RunReadError(
            url, "no cache folder to mirror it in: set HOME or an absolute XDG_CACHE_HOME"
        )
    if not trusted(root / "remote"):
        raise RunReadError(url, NOT_YOURS)
    return root / "remote"


@dataclass
class Mirror:
    """One mirrored URL: where it is on disk and what the last open transferred."""

    url: str
    local: Path
    fetched: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (key, why)

    def warnings(self) -> list[str]:
        return [f"{join(self.url, key)}: refused: {why}" for key, why in self.refused]


MIRRORED: dict[str, Mirror] = {}
"""URL -> its mirror, for every URL this process opened: a run under a mirrored root is
not fetched again, and :func:`inspector.loading.shown` names a mirror by its URL."""


def join(url: str, key: str) -> str:
    return f"{url.rstrip('/')}/{key}" if key else url


def _unsafe(key: str) -> str | None:
    """Why an object key cannot be a path inside the mirror, else None."""
    if "\\" in key or "\0" in key:
        return "the key holds a backslash or NUL"
    if key.startswith("/"):
        return "the key is absolute"
    parts = key.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "the key has an empty, '.' or '..' component (it could leave the folder)"
    if any(len(part.encode("utf-8", "surrogateescape")) > NAME_MAX for part in parts):
        return f"a component of the key is longer than {NAME_MAX} bytes (no local file can have it)"
    if len(key.encode("utf-8", "surrogateescape")) > KEY_MAX:
        return f"the key is longer than {KEY_MAX} bytes (no local path can have it)"
    return None


def _version(info: dict[str, Any]) -> str | None:
    for name in _VERSION_FIELDS:
        value = info.get(name)
        if value not in (None, ""):
            return f"{name}={value}"
    return None


def _filesystem(url: str) -> tuple[Any, str]:
    try:
        # fsspec and a backend: only when a URL is opened (every command imports this module).
        import fsspec  # type: ignore[import-untyped]
        import fsspec.config  # type: ignore[import-untyped]
    except ImportError:
        raise RunReadError(
            url, "reading URLs needs fsspec: pip install agentcompass-inspector"
        ) from None
    fsspec.config.set_conf_env(fsspec.config.conf)  # FSSPEC_<PROTOCOL>_<OPTION>, as set now
    scheme = url.split("://", 1)[0].lower()
    try:
        fs, root = fsspec.core.url_to_fs(url)
    except ImportError as exc:
        extra = _EXTRAS.get(scheme, scheme)
        raise RunReadError(url, f"this URL needs a backend: pip install "
                                f"'agentcompass-inspector[{extra}]' ({exc})") from None  # fmt: skip
    except (ValueError, OSError) as exc:
        raise RunReadError(url, f"cannot open: {exc}") from None
    fs.invalidate_cache()  # a listing cached by fsspec could be stale: always list afresh
    return fs, root.rstrip("/")


def _list(fs: Any, root: str, mirror: Mirror) -> dict[str, tuple[str | None, int]]:
    """key -> (version, size) of every regular object under ``root``; refusals recorded."""
    try:
        found = fs.find(root, detail=True)
    except FileNotFoundError:
        found = {}
    except (OSError, ValueError) as exc:
        raise RunReadError(mirror.url, f"cannot list: {exc}") from None
    max_object = _limit("INSPECTOR_REMOTE_MAX_OBJECT_MB", 1024)
    objects: dict[str, tuple[str | None, int]] = {}
    total = 0
    for name, info in sorted(found.items()):
        prefix = root + "/"
        if not name.startswith(prefix):
            mirror.refused.append((name, "outside the URL's prefix"))
            continue
        key = name[len(prefix) :]
        if info.get("type") == "directory" or (name.endswith("/") and not info.get("size")):
            continue  # a folder marker, not an object of the run
        why = _unsafe(key)
        size = info.get("size")
        if why is None and info.get("type", "file") != "file":
            why = f"not a regular object ({info.get('type')})"
        if size is None:  # some servers (plain HTTP listings) give none: checked on fetch
            size = -1
        if why is None and (not isinstance(size, int) or size < -1):
            why = "the listing gives no size"
        if why is None and size > max_object:
            why = f"larger than the limit of {max_object // MiB} MiB"
        if why is not None:
            mirror.refused.append((key, why))
            continue
        objects[key] = (_version(info) if size >= 0 else None, size)
        total += max(size, 0)
    keys = set(objects)
    for key in sorted(keys):  # a key that is also a "folder" of other keys
        parent = key.rsplit("/", 1)[0] if "/" in key else ""
        while parent:
            if parent in keys:
                objects.pop(key, None)
                mirror.refused.append((key, f"{parent} is an object, not a folder"))
                break
            parent = parent.rsplit("/", 1)[0] if "/" in parent else ""
    max_total = _limit("INSPECTOR_REMOTE_MAX_TOTAL_MB", 32768)
    if total > max_total:
        raise RunReadError(mirror.url, f"{total // MiB} MiB of objects, over the limit of "
                                       f"{max_total // MiB} MiB (INSPECTOR_REMOTE_MAX_TOTAL_MB)")  # fmt: skip
    return objects


def _store(tree: Path, key: str, data: bytes) -> None:
    """``data`` written to a temporary file moved in place; the temporary file is removed
    when that fails (a full disk, Ctrl-C)."""
    target = tree / key
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".fetch.", suffix=".tmp")
    try:
        with open(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _batches(keys: list[str], sizes: dict[str, int], budget: int) -> Iterable[list[str]]:
    batch: list[str] = []
    held = 0
    for key in keys:
        if batch and held + max(sizes[key], 0) > budget:
            yield batch
            batch, held = [], 0
        batch.append(key)
        held += max(sizes[key], 0)
    if batch:
        yield batch


def _fetch(fs: Any, root: str, keys: list[str], sizes: dict[str, int]) -> Iterable[tuple[str, Any]]:
    """(key, bytes or exception) for every key, at most ``INSPECTOR_REMOTE_CONCURRENCY`` in flight."""
    try:
        concurrency = max(1, int(os.environ.get("INSPECTOR_REMOTE_CONCURRENCY", "32")))
    except ValueError:
        concurrency = 32
    for batch in _batches(keys, sizes, 256 * MiB):
        paths = {f"{root}/{key}": key for key in batch}
        if getattr(fs, "async_impl", False):
            got = fs.cat(list(paths), on_error="return", batch_size=concurrency)
            for path, key in paths.items():
                yield key, got.get(path, FileNotFoundError(path))
        else:

            def one(path: str) -> Any:
                try:
                    return fs.cat_file(path)
                except Exception as exc:  # reported per object
                    return exc

            # concurrent.futures (and logging with it): only a synchronous
            # backend's fetch needs it.
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=concurrency) as pool:
                yield from zip(paths.values(), pool.map(one, paths), strict=True)


def _prune(tree: Path, keep: set[str]) -> list[str]:
    """Remove mirrored files no longer listed, then empty folders (S3 has none)."""
    removed = []
    for dirpath, dirnames, filenames in os.walk(tree, topdown=False):
        for name in filenames:
            full = Path(dirpath) / name
            key = full.relative_to(tree).as_posix()
            if key not in keep:
                full.unlink()
                removed.append(key)
        for name in dirnames:
            with contextlib.suppress(OSError):
                (Path(dirpath) / name).rmdir()  # only when empty
    return removed


def mirror(url: str, *, say: Callable[[str], None] | None = None) -> Mirror:
    """Bring the mirror of ``url`` up to date and return it (``file://``: the folder itself).

    Raises:
        RunReadError: the URL cannot be opened or listed, names nothing, or is over a limit.
    """
    for known, opened in MIRRORED.items():  # under a URL mirrored by this process already
        if url.rstrip("/") == known.rstrip("/") or url.startswith(known.rstrip("/") + "/"):
            rest = url[len(known.rstrip("/")) :].strip("/")
            if not rest:
                return opened
            if _unsafe(rest):
                raise RunReadError(url, _unsafe(rest) or "")
            return Mirror(url=url, local=opened.local / rest)
    fs, root = _filesystem(url)
    if type(fs).__name__ == "LocalFileSystem":
        return Mirror(url=url, local=Path(root or "/"))
    base = mirrors_dir(url) / hashlib.sha256(url.rstrip("/").encode("utf-8")).hexdigest()[:32]
    # Named as the URL's last part, so the app shows the name a local copy would have.
    last = root.rsplit("/", 1)[-1]
    tree = base / (last if last and not _unsafe(last) and not last.startswith(".") else "run")
    if not make_folder(base):
        raise RunReadError(url, NOT_YOURS)
    result = Mirror(url=url, local=tree)
    with open(base / "lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one inspector process updates a mirror at a time
        objects = _list(fs, root, result)
        if not objects:
            raise RunReadError(url, "no objects under this URL")
        kept = store.load(base / "index", MirrorIndex)  # each object's version and size
        index = dict(kept.objects) if kept is not None else {}
        wanted = [
            key for key, (version, size) in objects.items()
            if version is None or index.get(key) != (version, size)
            or not _same_size(tree / key, size)
        ]  # fmt: skip
        result.removed = _prune(tree, set(objects)) if tree.exists() else []
        stored = {key: index[key] for key in objects if key in index and key not in wanted}
        sizes = {key: objects[key][1] for key in wanted}
        max_object = _limit("INSPECTOR_REMOTE_MAX_OBJECT_MB", 1024)
        for key, data in _fetch(fs, root, wanted, sizes):
            if isinstance(data, BaseException) or not isinstance(data, bytes):
                result.refused.append((key, f"cannot fetch: {data}"))
                (tree / key).unlink(missing_ok=True)
                continue
            if len(data) > max_object:
                result.refused.append((key, f"larger than the limit of {max_object // MiB} MiB"))
                (tree / key).unlink(missing_ok=True)
                continue
            try:
                _store(tree, key, data)
            except OSError as exc:  # the file system refuses its name: read the rest
                result.refused.append((key, f"cannot be stored locally: {exc.strerror or exc}"))
                continue
            result.fetched.append(key)
            # a size that changed since the listing: kept, and fetched again next time
            stored[key] = objects[key] if len(data) == sizes[key] else (None, len(data))
        store.write_atomically(base / "index", MirrorIndex(url, stored))
    tree.mkdir(exist_ok=True)
    MIRRORED[url] = result
    if say is not None:
        for line in result.warnings():
            say(line)
    return result


def _same_size(path: Path, size: int) -> bool:
    try:
        return path.lstat().st_size == size and path.is_file() and not path.is_symlink()
    except OSError:
        return False
