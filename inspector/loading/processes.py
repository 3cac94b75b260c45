"""The reader processes: one per core, forked by a single-threaded caller (the command
line) or, for the app, one shared pool started by a fork server before textual is
imported, kept for reloads, other runs and store checks."""

from __future__ import annotations

import atexit
import contextlib
import marshal
import os
import signal
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from inspector.loading.ending import end_pool


def halves_in_fork(
    function: Callable[..., Any], first: tuple[Any, ...], second: tuple[Any, ...]
) -> tuple[Any, Any] | None:
    """``function(*first)`` here while a forked child does ``function(*second)`` (its answer,
    plain data, comes back through a pipe as :mod:`marshal`): two cores for work that waits
    on the kernel (``lstat``). Only for a caller with one thread (the command line). None
    when there is no fork or the child failed (the caller then does it all itself)."""
    if not hasattr(os, "fork"):
        return None
    read_end, write_end = os.pipe()
    parent = os.getpid()
    pid = 0
    try:
        with _interrupts_held():  # the child takes no Ctrl-C before it ignores them
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child's coverage is not collected
                _half_in_child(parent, read_end, write_end, function, second)
            os.close(write_end)
        mine = function(*first)
    except BaseException as exc:  # Ctrl-C (the child ignores it), a failure, or no fork
        os.close(read_end)
        if not pid:  # no fork
            os.close(write_end)
            if isinstance(exc, OSError):
                return None
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        raise
    with os.fdopen(read_end, "rb") as stream:
        data = stream.read()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return None
    try:
        return mine, marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None


def _half_in_child(
    parent: int, read_end: int, write_end: int, function: Callable[..., Any], args: tuple[Any, ...]
) -> None:  # pragma: no cover - the child's coverage is not collected
    """The child of :func:`halves_in_fork`: its answer down the pipe, then ``_exit``."""
    code = 1
    try:
        reader_started(parent)
        os.close(read_end)
        with os.fdopen(write_end, "wb") as out:
            out.write(marshal.dumps(function(*args)))
        code = 0
    finally:
        os._exit(code)


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def reader_started(parent: int | None = None) -> None:
    """What every reader process does first: ignore SIGINT, which a terminal's Ctrl-C sends
    to the whole process group (the process that made the pool decides, and ends its
    readers: :func:`~inspector.loading.ending.end_pool`), then :func:`die_with_parent`. A ``fork`` pool's processes
    start with SIGINT blocked (:func:`reader_pool`), so that none is taken before this."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    die_with_parent(parent)
    reuse_read_buffers()


# <malloc.h>: mallopt parameters, and the values set in reader processes.
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
HEAP_BUFFER_MAX, HEAP_FREE_KEPT = 32 << 20, 64 << 20


def reuse_read_buffers() -> None:
    """Let a reader process read file after file into the same pages.

    Each file is read into a new buffer. glibc gives a buffer of more than its mmap
    threshold fresh pages from the kernel and hands them back when it is freed, so every
    megabyte read costs 256 page faults, much of the CPU of reading large result files.
    Buffers up to 32 MB come from the heap and go back to it instead (up to 64 MB of its
    free top is kept), and the next file reuses them. glibc only; nothing elsewhere."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes  # here: only reader processes need it

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None)
        libc.mallopt(M_MMAP_THRESHOLD, HEAP_BUFFER_MAX)
        libc.mallopt(M_TRIM_THRESHOLD, HEAP_FREE_KEPT)


def die_with_parent(parent: int | None = None) -> None:
    """Make this reader process end when ``parent`` (the process that made its pool) does,
    by any signal: without that, a reader blocked on the pipe of a killed
    ``inspector report`` waits forever, re-parented to init.

    Forked by ``parent`` itself: on Linux the kernel sends SIGKILL when the parent ends
    (``prctl(PR_SET_PDEATHSIG)``). Forked by the fork server (the app's shared pool): the
    fork server outlives the app while its readers hold its ``alive`` pipe, so a thread
    here waits for ``parent`` to end (a pidfd) and ends the process. Either way, if
    ``parent`` has already gone, this one ends now."""
    if parent is None:
        return
    if os.getppid() == parent and sys.platform.startswith("linux"):
        import ctypes  # here: only reader processes need it

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:  # it died before the request was made
                os._exit(1)
            return
    threading.Thread(target=_end_after, args=(parent,), daemon=True).start()


def _end_after(parent: int) -> None:
    """End this process as soon as ``parent`` has ended."""
    try:
        fd = os.pidfd_open(parent)
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):  # no pidfd here: look every quarter of a second
        while True:
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(1)
            except OSError:
                pass
            time.sleep(0.25)
    import select  # here: only reader processes need it

    select.select([fd], [], [])
    os._exit(1)


_pools: weakref.WeakSet[Any] = weakref.WeakSet()
"""Every reader pool this process made and has not ended (:func:`end_pools`)."""


def reader_pool(max_workers: int, context: Any) -> Any:
    """A pool of reader processes that ignore SIGINT and end with this process
    (:func:`reader_started`), forked by ``context`` (``fork``: this process, all of them
    now, with SIGINT held meanwhile; ``forkserver``: the fork server, as they are needed)."""
    from concurrent.futures import ProcessPoolExecutor  # see start_forkserver

    pool = ProcessPoolExecutor(
        max_workers=max_workers,
        mp_context=context,
        initializer=reader_started,
        initargs=(os.getpid(),),
    )
    _pools.add(pool)
    if context.get_start_method() == "fork":
        try:
            with _interrupts_held():
                pool.submit(int)  # a fork pool forks every process on its first call
        except BaseException:  # the Ctrl-C held meanwhile, or no processes here
            end_pool(pool)
            raise
    return pool


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT held (blocked) in this thread meanwhile, and so in the processes and threads
    it starts (the pool's), until they choose; one that came meanwhile is taken after."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def end_pools() -> None:
    """End every reader pool this process made (:func:`end_pool`): the command line on
    Ctrl-C, the app on SIGHUP, SIGTERM or SIGINT."""
    global _ended, _shared
    with _shared_lock:
        _ended = True  # no new shared pool: the process is ending
        _shared = None  # ended below with the others
    for pool in list(_pools):
        _pools.discard(pool)
        end_pool(pool)


def workers(spare: int = 0) -> int:
    """Reader processes: ``INSPECTOR_WORKERS``, else one per available core and ``spare``
    more (work that often waits for the disk keeps the cores busy meanwhile)."""
    value = os.environ.get("INSPECTOR_WORKERS", "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    try:
        return max(1, len(os.sched_getaffinity(0))) + spare
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1) + spare


_work_modules: list[str] = []
_also_preloaded: list[str] = []


def preload_in_readers(module: str) -> None:
    """A module whose functions run in reader processes (reading folders, checking
    snapshots and cached reports) calls this with its ``__name__`` as it is imported: the
    fork server imports it once for every reader process it starts. This module knows
    nothing of the modules above it."""
    if module not in _work_modules:
        _work_modules.append(module)


def _preload() -> list[str]:
    """What the fork server imports once for every reader process it starts: the work
    those processes do (:func:`preload_in_readers`), and what the caller named
    (:func:`start_forkserver`)."""
    return [__name__, *_work_modules, *_also_preloaded]


def start_forkserver(preload: Sequence[str] = ()) -> None:
    """Start the fork server now, in the background (the app calls this before it imports
    textual): later worker processes then start in milliseconds, with the readers loaded,
    and the modules named in ``preload`` (the functions the caller will run in them)."""
    # multiprocessing and concurrent.futures (many modules) when processes start, here
    # and below: a report answered from the cache imports this module and starts none.
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    _also_preloaded[:] = list(preload)
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_preload())
    from multiprocessing import forkserver

    with contextlib.suppress(OSError, ValueError), _outliving_the_terminal():
        forkserver.ensure_running()


def _forkserver() -> Any:
    import multiprocessing  # only large runs need it: load on use

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_preload())
    return context


def own_context() -> Any:
    """``fork`` for a single-threaded caller's own pool (no start-up cost, nothing to
    re-import), else ``forkserver``."""
    import multiprocessing  # when processes start (see start_forkserver)

    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return _forkserver()


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker while stderr is still the process's own.

    The reader processes need the tracker, and the tracker is spawned with
    ``sys.stderr.fileno()``; inside the app Textual's print capture answers -1 there, and
    the spawn fails ("bad value(s) in fds_to_keep").
    """
    from multiprocessing import resource_tracker  # when processes start (see start_forkserver)

    # no subprocesses here: read in-process
    with contextlib.suppress(OSError, ValueError), _outliving_the_terminal():
        resource_tracker.ensure_running()


@contextlib.contextmanager
def _outliving_the_terminal() -> Iterator[None]:
    """SIGHUP and SIGINT ignored in this process meanwhile, so in the programs it starts
    (an ignored signal stays ignored across ``exec``): multiprocessing's resource tracker,
    and the fork server with every reader process it forks.

    A closed terminal (an SSH disconnect, a killed tmux pane) sends SIGHUP to the app's
    whole process group. The tracker ignores SIGINT and SIGTERM but not SIGHUP: it died
    with the others and left the reader pool's five named semaphores in /dev/shm. Now it
    outlives them, sees its pipe close and removes what the app did not. The reader
    processes leave SIGINT and SIGHUP to the app, which ends them (:func:`end_pools`).
    Only the main thread may set handlers: elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {signum: signal.signal(signum, signal.SIG_IGN) for signum in _TERMINAL_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)


_TERMINAL_SIGNALS = (signal.SIGHUP, signal.SIGINT)


def warm_shared_pool(first: Callable[[], object]) -> None:
    """Start the shared reader processes now, each running ``first`` (the work they will
    all need), so that opening another run, a reload or a report-cache check does not wait
    for them."""
    pool = shared_pool()
    for future in [pool.submit(first) for _ in range(workers())]:
        future.result()


_shared: Any = None
_shared_lock = threading.Lock()
_ended = False


def shared_pool() -> Any:
    """The reader processes of a threaded process (the app), started once and kept: a
    reload, another run or a cache check then costs no process start-up. RuntimeError
    once :func:`end_pools` has run (the callers then work in-process)."""
    global _shared
    with _shared_lock:
        if _ended:
            raise RuntimeError("the reader processes have been ended")
        if _shared is None:
            _shared = reader_pool(workers(), _forkserver())
            atexit.register(shutdown_shared_pool)  # before the interpreter tears modules down
        return _shared


def shutdown_shared_pool() -> None:
    """Stop the shared reader processes (the app, as it exits)."""
    global _shared
    with _shared_lock:
        pool, _shared = _shared, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


def drop_shared_pool(pool: Any) -> None:
    """Forget a shared pool that broke (the next call starts a new one)."""
    global _shared
    with _shared_lock:
        if _shared is pool:
            _shared = None
    pool.shutdown(wait=False, cancel_futures=True)


def in_shared_pool(function: Callable[..., Any], calls: list[tuple[Any, ...]]) -> list[Any] | None:
    """``function(*args)`` for each ``args`` of ``calls``, done by the shared reader
    processes; None when they cannot (the caller then does the work itself)."""
    from concurrent.futures.process import BrokenProcessPool  # see start_forkserver

    pool = None
    try:
        pool = shared_pool()
        futures = [pool.submit(function, *args) for args in calls]
        return [future.result() for future in futures]
    except (BrokenProcessPool, OSError, RuntimeError, ValueError):
        if pool is not None:
            drop_shared_pool(pool)
        return None
