"""``walk_root``: the run folders under a results root, and what the search could not see.

A folder with ``run_info.json`` or a ``details/`` folder is a run; the search never
descends into a run and reads nothing. What it cannot see is said, never passed over:

- a folder it cannot list or enter (permission denied, an I/O error) is *unreadable*: the
  runs under it are not known, so every command over the root names it (``check ROOT`` and
  the gate count it as unusable);
- a directory link is followed only when it points inside the root (its target is then
  searched once, after the folders themselves, so that a run is named by its own path); a
  link out of the root is not followed (a link to ``/`` would search the whole file system)
  and is named once. Loops cost nothing: every folder is searched once, by its real path.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from inspector.results.problems import RunReadError

MAX_DEPTH = 16
RUN_MARKERS = (("run_info.json", stat.S_ISREG), ("details", stat.S_ISDIR))
"""What makes a folder a run (viewer ``_is_run``): a ``run_info.json`` file or a
``details/`` folder."""


@dataclass(frozen=True)
class RootWalk:
    """What :func:`walk_root` found under a root."""

    runs: list[tuple[Path, str]]
    """``(run directory, path under root)`` of every run, by path."""
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    """``(path under root, reason)`` of every folder that could not be listed or entered."""
    links: list[tuple[str, str]] = field(default_factory=list)
    """``(path under root, target)`` of every directory link out of the root, not followed."""

    def unreadable_lines(self, root: str = "") -> list[str]:
        """One line per folder that could not be read, named under ``root`` as given
        (``""``: by its path under the root, as ``check ROOT`` names runs)."""
        return [
            f"{os.path.join(root, rel)}: {cannot_read(reason)}" for rel, reason in self.unreadable
        ]

    def link_lines(self, root: str) -> list[str]:
        """One line per link out of the root, named under ``root`` as given."""
        return [
            f"{os.path.join(root, rel)}: a link out of the root (to {target}); not followed"
            for rel, target in self.links
        ]


def cannot_read(reason: str) -> str:
    """What an unreadable folder of a root is, in words."""
    return f"folder cannot be read ({reason}); the runs in it are not known"


def walk_root(root: Path | str) -> RootWalk:
    """Every run at or under ``root``, and every folder not searched (see the module).

    Raises:
        RunReadError: ``root`` is not a directory, or cannot be read.
    """
    base = Path(os.path.abspath(root))
    if not base.is_dir():
        raise RunReadError(
            str(root), "no such directory" if not base.exists() else "not a directory"
        )
    walk = _Walk(base)
    walk.visit(base, 0)
    while walk.deferred:  # links inside the root: after the folders themselves
        path, depth = walk.deferred.pop(0)
        walk.visit(path, depth)
    if walk.unreadable and walk.unreadable[0][0] == ".":
        raise RunReadError(str(root), f"folder cannot be read ({walk.unreadable[0][1]})")
    walk.found.sort(key=lambda item: item[1].split("/"))
    return RootWalk(walk.found, walk.unreadable, walk.links)


class _Walk:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.real_base = os.path.realpath(base)
        self.visited: set[str] = set()
        self.found: list[tuple[Path, str]] = []
        self.unreadable: list[tuple[str, str]] = []
        self.links: list[tuple[str, str]] = []
        self.deferred: list[tuple[Path, int]] = []

    def visit(self, directory: Path, depth: int) -> None:
        real = os.path.realpath(directory)
        if real in self.visited or depth > MAX_DEPTH:
            return
        self.visited.add(real)
        relative = directory.relative_to(self.base).as_posix()
        try:
            if _is_run(directory):
                self.found.append((directory, relative))
                return
            with os.scandir(directory) as entries:
                listed = [
                    (entry.name, _kind(entry))
                    for entry in entries
                    if not entry.name.startswith(".")
                ]
        except OSError as exc:
            self.unreadable.append((relative, _reason(exc)))
            return
        for name, kind in sorted(listed):
            if kind == "dir":
                self.visit(directory / name, depth + 1)
            elif kind == "link":
                self._link(directory / name, depth + 1)

    def _link(self, path: Path, depth: int) -> None:
        """A link to a folder inside the root is searched later; one out of it is named."""
        target = os.path.realpath(path)
        if not os.path.isdir(target):  # a link to a file, a broken link, a loop of links
            return
        if target == self.real_base or target.startswith(self.real_base.rstrip(os.sep) + os.sep):
            self.deferred.append((path, depth))
        else:
            self.links.append((path.relative_to(self.base).as_posix(), target))


def _is_run(directory: Path) -> bool:
    """Whether ``directory`` is a run; OSError when that cannot be told (the folder cannot
    be entered), where :func:`os.path.isfile` would answer False."""
    for name, kind in RUN_MARKERS:
        try:
            if kind(os.stat(directory / name).st_mode):
                return True
        except (FileNotFoundError, NotADirectoryError):
            continue
    return False


def _kind(entry: os.DirEntry[str]) -> str:
    """``dir``, ``link`` (a link, maybe to a folder) or ``other``."""
    try:
        if entry.is_symlink():
            return "link"
        return "dir" if entry.is_dir(follow_symlinks=False) else "other"
    except OSError:
        return "other"


def _reason(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "permission denied"
    return exc.strerror or str(exc)
