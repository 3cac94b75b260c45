"""The processes a test started, found by their process group or session (never by their
command line), and the named semaphores they have mapped, from Linux's ``/proc``."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from collections.abc import Iterable

SEMAPHORE = re.compile(r"/dev/shm/(sem\.mp-\S+)(?: \(deleted\))?$", re.M)


def _stat(pid: int) -> list[str]:
    """``/proc/PID/stat`` after the command name: state, ppid, pgrp, session, …"""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()


def running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        return _stat(pid)[0] != "Z"
    except (OSError, IndexError):
        return False


def _with(field: int, value: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = _stat(int(entry))
                if fields[0] != "Z" and int(fields[field]) == value:
                    found.append(int(entry))
    return found


def in_group(pgid: int) -> list[int]:
    """The live processes of process group ``pgid``."""
    return _with(2, pgid)


def in_session(sid: int) -> list[int]:
    """The live processes of session ``sid``."""
    return _with(3, sid)


def semaphores(pids: Iterable[int]) -> set[str]:
    """The multiprocessing semaphores (``sem.mp-*``) these processes have mapped, unlinked
    or not (a ``fork`` pool's are unlinked at once, a fork server's pool's at its end)."""
    names: set[str] = set()
    for pid in pids:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/maps") as maps:
            names |= set(SEMAPHORE.findall(maps.read()))
    return names


def left_in_shm(names: set[str], wait: float = 5.0) -> set[str]:
    """Which of ``names`` are still in /dev/shm after at most ``wait`` seconds (returns as
    soon as none is)."""
    deadline = time.monotonic() + wait
    while (left := {n for n in names if os.path.exists(f"/dev/shm/{n}")}) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.05)
    return left


def still_running(pids: Iterable[int], wait: float = 2.0) -> list[int]:
    """Which of ``pids`` still run after at most ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while (alive := [p for p in pids if running(p)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def end_group(pgid: int) -> None:
    """SIGKILL to what is left of a group this test started (after a failure)."""
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)


def remove(names: Iterable[str]) -> None:
    """Remove semaphores a failed test left (they are the test's own)."""
    for name in names:
        with contextlib.suppress(OSError):
            os.unlink(f"/dev/shm/{name}")
