"""How a pool of reader processes ends: shut down once its work is done, or ended at
once (Ctrl-C, a closed terminal, SIGTERM), as ``serve`` ends a session."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

END_WAIT_SECONDS = 1.0
"""Reader processes sent SIGTERM get this long before SIGKILL (:func:`end_pool`)."""


@contextlib.contextmanager
def pool_in_use(pool: Any) -> Iterator[Any]:
    """``pool`` for a block: shut down after it, its work done; ended at once when the
    block raises (Ctrl-C: its processes ignore SIGINT, and a shutdown would wait for all
    the work queued)."""
    try:
        yield pool
    except BaseException:
        end_pool(pool)
        raise
    pool.shutdown(wait=True)


def end_pool(pool: Any, wait: float = END_WAIT_SECONDS) -> None:
    """End ``pool`` now, as ``serve`` ends a session: its work is dropped, its processes
    get SIGTERM, and SIGKILL when any is left after ``wait`` seconds."""
    # The pool's processes and its answers' pipe (ProcessPoolExecutor has no public way to
    # them before 3.14's terminate_workers), taken before shutdown forgets them.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    answers = getattr(pool, "_result_queue", None)
    thread = getattr(pool, "_executor_manager_thread", None)  # shutdown sets it to None
    _quiet_cancelled_futures_race()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.terminate()
    deadline = time.monotonic() + wait
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AssertionError, AttributeError):
            process.join(max(0.0, deadline - time.monotonic()))
            if process.exitcode is None:
                process.kill()
                process.join(wait)
    # A process ended while it wrote an answer left half of it in the pipe: the pool's
    # thread waits for the rest, and the interpreter, at exit, for that thread. With this
    # process's write end closed too it reads the end of the pipe and stops.
    if answers is not None:
        with contextlib.suppress(OSError, AttributeError):
            answers._writer.close()
    # Nothing is left to wake: Python 3.11's exit hook would still write to the pool's wakeup
    # pipe, racing the pool's thread closing it (EBADF, a traceback after `interrupted`).
    _forget_wakeup(thread)


def _forget_wakeup(thread: Any) -> None:
    """Drop a pool's ``thread`` from the pipes :mod:`concurrent.futures.process` wakes at
    exit (its ``_python_exit``); the thread itself ends on the closed answers' pipe and is
    joined as every thread is."""
    from concurrent.futures import process as pools

    wakeups = getattr(pools, "_threads_wakeups", None)
    if thread is not None and wakeups is not None:
        with contextlib.suppress(KeyError, TypeError):
            del wakeups[thread]


def _quiet_cancelled_futures_race() -> None:
    """Python 3.11's pool thread, finding its processes ended, marks every pending call
    failed, and raises (a traceback on stderr) on one already cancelled (as a Ctrl-C
    cancels them): 3.12 ignores that error there (``_terminate_broken``), and so does this
    hook, for that thread and that error only."""
    if sys.version_info >= (3, 12) or getattr(threading.excepthook, "_inspector", False):
        return
    from concurrent.futures import InvalidStateError

    before = threading.excepthook

    def hook(args: Any) -> None:
        thread = type(args.thread).__name__ if args.thread is not None else ""
        if not (args.exc_type is InvalidStateError and thread == "_ExecutorManagerThread"):
            before(args)

    hook._inspector = True  # type: ignore[attr-defined]
    threading.excepthook = hook
