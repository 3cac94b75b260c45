"""Every file the inspector writes for the user: ``export`` in every format, the
gate's ``--junit`` and GitHub step summary, the app's table and leaderboard exports and its
run export. :func:`write_output` writes each of them; :func:`output_target` is its check,
called on its own where a refusal should come before the work (the gate checks its outputs
before it reads a run).

A path is resolved with every parent and its final component (every symbolic link followed,
as the write would follow it), then refused, in one line naming the path the user gave:

- when it is, or lies inside, an input root or run: the inspector never writes into results;
- when it exists and is not a regular file (a folder for an export folder): a FIFO would
  block the write, a device such as ``/dev/full`` refuse or swallow it, a folder cannot be
  replaced.

The file is then written to a temporary file in the same folder and renamed into place
(``os.replace``): a reader sees the old file or the new one, never half of one, and a
failure leaves the old one as it was. An existing file keeps its permission bits; a new one
gets the umask's. Every failure names the file asked for, never the temporary one.

The GitHub step summary is the exception: it is *appended* to (``append=True``), because the
runner and the step's other tools append to the same file and a replace would drop whatever
they wrote meanwhile. It is opened with ``O_APPEND`` (each write lands at the end, whatever
others wrote), without following a final link or blocking, its type checked again on the
open descriptor, and written whole in one ``write`` where the system allows. An append cannot
be all-or-nothing: a full disk may leave part of it.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from inspector.results.file_io import file_kind

Writer = Callable[[Any], object]
"""Writes the file's content to the open file it is given (a text file, a binary one with
``binary``)."""

_TEMP_NAME = 200
"""At most this many characters of the target's name go into the temporary file's name."""


class OutputError(ValueError):
    """An output that cannot be written there; ``str()`` is one line naming the path given."""


def output_target(
    path: str | os.PathLike[str],
    inputs: Iterable[str | os.PathLike[str]],
    *,
    folder: bool = False,
    new_folders: bool = False,
) -> Path:
    """The real path ``path`` names (every link followed), checked: not inside any of
    ``inputs`` (the roots and runs read), and a regular file or nothing yet (``folder``: a
    folder or nothing yet). ``new_folders``: the folders on the way may be missing (they
    are made); else the folder holding it must exist.

    Raises:
        OutputError: one line naming ``path``.
    """
    given = os.fspath(path)
    target = Path(os.path.realpath(given))
    for root in inputs:
        base = Path(os.path.realpath(root))
        if target == base or base in target.parents:
            raise OutputError(
                f"{given}: inside the results at {os.fspath(root)}: the inspector never "
                "writes there (choose a path outside)"
            )
    try:
        mode: int | None = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OutputError(f"{given}: cannot write there: {exc.strerror or exc}") from None
    if mode is not None and folder and not stat.S_ISDIR(mode):
        kind = "a file" if stat.S_ISREG(mode) else file_kind(mode)
        raise OutputError(f"{given}: {kind}, not a folder: cannot export into it")
    if mode is not None and not folder and not stat.S_ISREG(mode):
        raise OutputError(
            f"{given}: {file_kind(mode)}, not a regular file: the inspector writes only "
            "regular files"
        )
    if not new_folders and not folder and not target.parent.is_dir():
        raise OutputError(f"{given}: the folder {target.parent} does not exist")
    return target


def write_output(
    path: str | os.PathLike[str],
    inputs: Iterable[str | os.PathLike[str]],
    write: Writer,
    *,
    binary: bool = False,
    append: bool = False,
    new_folders: bool = False,
) -> Path:
    """Write the file ``path`` (checked by :func:`output_target` against ``inputs``) with
    ``write``, into place at once (``append``: at its end); the real path written.

    Raises:
        OutputError: one line naming ``path``.
    """
    target = output_target(path, inputs, new_folders=new_folders)
    given = os.fspath(path)
    try:
        if new_folders:
            target.parent.mkdir(parents=True, exist_ok=True)
        if append:
            _append(target, write, binary, given)
        else:
            _replace(target, write, binary)
    except OSError as exc:
        raise OutputError(f"{given}: cannot write: {exc.strerror or exc}") from None
    return target


def _opened(fd: int, binary: bool) -> IO[Any]:
    handle = os.fdopen(fd, "wb")
    return handle if binary else io.TextIOWrapper(handle, encoding="utf-8", newline="")


def _replace(target: Path, write: Writer, binary: bool) -> None:
    """Write a temporary file beside ``target``, then rename it over ``target``."""
    try:
        keep: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        keep = None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        temp = target.with_name(f".{target.name[:_TEMP_NAME]}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(temp, flags, 0o666)  # the umask applies, as to any new file
            break
        except FileExistsError:  # pragma: no cover - 48 random bits taken
            continue
    try:
        if keep is not None:
            os.fchmod(fd, keep)
        with _opened(fd, binary) as handle:
            write(handle)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _append(target: Path, write: Writer, binary: bool, given: str) -> None:
    """Append to ``target`` with ``O_APPEND``, after checking the open file is a regular one."""
    buffer = io.BytesIO()
    if binary:
        write(buffer)
    else:
        text = io.StringIO(newline="")
        write(text)
        buffer.write(text.getvalue().encode("utf-8"))
    data = memoryview(buffer.getvalue())
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(target, flags, 0o666)
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.ELOOP):  # a FIFO without a reader, a new link
            raise OutputError(f"{given}: not a regular file: the inspector writes only "
                              "regular files") from None  # fmt: skip
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OutputError(
                f"{given}: {file_kind(mode)}, not a regular file: the inspector writes only "
                "regular files"
            )
        while data:
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)
