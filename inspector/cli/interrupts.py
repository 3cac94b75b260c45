"""Ctrl-C for every command.

SIGINT (a terminal's Ctrl-C, sent to the whole process group) ends any command at once: the
reader processes ignore it and are ended by the command (SIGTERM, SIGKILL a second later),
and all that is seen is the one line ``interrupted`` on stderr and exit status 130 (128 +
SIGINT, as a shell reports a command SIGINT ended). Once taken, SIGINT is ignored, so that
a second Ctrl-C cannot break the ending. The console script (:mod:`inspector.cli.entry`)
takes it so before it imports the command line (a few hundred milliseconds of imports), and
ignores it once the command has returned: the process is then only ending (its reader
processes stopped, its temporary files removed at exit), and a Ctrl-C at that moment would
break that off, ended by the signal with no line said; the exit status is the command's.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

EXIT_INTERRUPTED = 130
"""Ctrl-C: 128 + SIGINT."""


def interruptible(command: Callable[[], int], *, restore: bool = True) -> int:
    """``command()``; on the first SIGINT its reader processes end, ``interrupted`` is said
    and 130 returned (later ones are ignored). ``restore``: the SIGINT handler before is
    put back after (a caller in-process, a test), unless it was this one (an outer call:
    the process is ending). Not ``restore`` (the console script): SIGINT is ignored from
    the moment the command returns, as the process ends."""
    previous = _take_once()
    try:
        status = command()
        if not restore and previous is not None:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        return status
    except KeyboardInterrupt:
        processes = sys.modules.get("inspector.loading.processes")  # loaded if any ran
        if processes is not None:
            processes.end_pools()
        with contextlib.suppress(OSError, ValueError):
            print("interrupted", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    finally:
        if restore and previous is not None and previous is not _interrupted:
            signal.signal(signal.SIGINT, previous)


def _take_once() -> Any:
    """SIGINT raises KeyboardInterrupt once, then is ignored. None where this is not the
    main thread, or where SIGINT is ignored (a background job keeps ignoring it); else the
    handler before."""
    if threading.current_thread() is not threading.main_thread():
        return None
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        return None
    return signal.signal(signal.SIGINT, _interrupted)


def _interrupted(signum: int, frame: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt
