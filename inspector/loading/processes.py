"""The reader processes: one per core, forked by a single-threaded caller (the command
line) or, for the app, one shared pool from a fork server started before textual is
imported; and how a pool ends: shut down once its work is done, or ended at once (Ctrl-C,
a closed terminal, SIGTERM). Why each step is as it is:
``docs/decisions/loading-internals.md``."""

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

from inspector.loading.store import remove_unfinished

END_WAIT_SECONDS = 1.0  # reader processes sent SIGTERM get this long before SIGKILL
TERMINAL_SIGNALS = (signal.SIGHUP, signal.SIGINT)  # a closed terminal's, a Ctrl-C


def halves_in_fork(
    function: Callable[..., Any], first: tuple[Any, ...], second: tuple[Any, ...]
) -> tuple[Any, Any] | None:
    """``function(*first)`` here while a forked child does ``function(*second)`` (its plain
    answer marshalled back through a pipe), for a caller with one thread. None when there
    is no fork or the child failed."""
    if not hasattr(os, "fork"):
        return None
    read_end, write_end = os.pipe()
    parent = os.getpid()
    pid = 0
    try:
        with interrupts_held():  # the child takes no Ctrl-C before it ignores them
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child's coverage is not collected
                code = 1
                try:
                    reader_started(parent)
                    os.close(read_end)
                    with os.fdopen(write_end, "wb") as out:
                        out.write(marshal.dumps(function(*second)))
                    code = 0
                finally:
                    os._exit(code)
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


PR_SET_PDEATHSIG, M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = 1, -1, -3  # prctl.h, malloc.h
HEAP_BUFFER_MAX, HEAP_FREE_KEPT = 32 << 20, 64 << 20  # the values readers set


def reader_started(parent: int | None = None, environ: dict[str, str] | None = None) -> None:
    """What every reader process does first: take ``environ``, the pool maker's (not the
    fork server's), ignore SIGINT (the pool's maker ends its readers), then
    :func:`die_with_parent`; (glibc) file buffers up to 32 MB come from the heap."""
    if environ is not None and environ != os.environ:
        os.environ.clear()
        os.environ.update(environ)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    die_with_parent(parent)
    libc("mallopt", M_MMAP_THRESHOLD, HEAP_BUFFER_MAX)
    libc("mallopt", M_TRIM_THRESHOLD, HEAP_FREE_KEPT)


def libc(name: str, *args: int) -> bool:
    """``name(*args)`` of the C library (Linux: glibc); False when there is none."""
    if sys.platform.startswith("linux"):
        import ctypes  # here: only reader processes need it

        with contextlib.suppress(OSError, AttributeError):
            getattr(ctypes.CDLL(None), name)(*args)
            return True
    return False


def die_with_parent(parent: int | None = None) -> None:
    """End this reader process when ``parent`` (its pool's maker) ends, by any signal: by
    ``PR_SET_PDEATHSIG`` when forked by it, else by a thread waiting on a pidfd."""
    if parent is None:
        return
    if os.getppid() == parent and libc("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0):
        if os.getppid() != parent:  # it died before the request was made
            os._exit(1)
        return
    threading.Thread(target=_end_after, args=(parent,), daemon=True).start()


def _end_after(parent: int) -> None:
    """End this process, its store write removed, as soon as ``parent`` has ended."""
    import select  # here: only reader processes need it

    try:
        select.select([os.pidfd_open(parent)], [], [])
    except (AttributeError, OSError):  # gone, or no pidfd: look every 0.25 s until gone
        with contextlib.suppress(OSError):  # ProcessLookupError; EPERM: the pid reused
            while not os.kill(parent, 0):
                time.sleep(0.25)
    remove_unfinished()
    os._exit(1)


_pools: weakref.WeakSet[Any] = weakref.WeakSet()  # made and not ended (end_pools)


def reader_pool(max_workers: int, context: Any) -> Any:
    """A pool of reader processes (:func:`reader_started`) forked by ``context``: ``fork``,
    all now, SIGINT held meanwhile; ``forkserver``, as they are needed."""
    from concurrent.futures import ProcessPoolExecutor  # see start_forkserver

    pool = ProcessPoolExecutor(
        max_workers=max_workers,
        mp_context=context,
        initializer=reader_started,
        initargs=(os.getpid(), dict(os.environ)),
    )
    _pools.add(pool)
    if context.get_start_method() == "fork":
        try:
            with interrupts_held():
                pool.submit(int)  # a fork pool forks every process on its first call
        except BaseException:  # the Ctrl-C held meanwhile, or no processes here
            end_pool(pool)
            raise
    return pool


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """SIGINT blocked in this thread meanwhile, and so in the processes and threads it
    starts, until they choose; one that came meanwhile is taken after."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


_deferred: dict[str, Any] = {}  # the handler before, and whether a SIGINT came


@contextlib.contextmanager
def interrupts_at_safe_points() -> Iterator[None]:
    """In the main thread, SIGINT's Python handler (KeyboardInterrupt) runs meanwhile only
    at :func:`safe_point` or at the end, never inside a pool's lock (CPython issue 29988:
    the lock would stay taken and the exit wait for ever)."""
    before = signal.getsignal(signal.SIGINT)
    main = threading.current_thread() is threading.main_thread()
    if not main or "before" in _deferred or not callable(before):  # SIGINT ignored, default
        yield
        return
    _deferred.update(before=before, came=False)
    signal.signal(signal.SIGINT, lambda signum, frame: _deferred.update(came=True))
    try:
        yield
    finally:
        safe_point(release=True)


def safe_point(release: bool = False) -> None:
    """Run now the SIGINT handler :func:`interrupts_at_safe_points` held back, if one came."""
    if "before" not in _deferred or not (release or _deferred.get("came")):
        return
    before = _deferred.pop("before")
    signal.signal(signal.SIGINT, before)
    if _deferred.pop("came", False):
        before(signal.SIGINT, None)


def result_of(future: Any, every: float = 0.05) -> Any:
    """``future.result()``, a Ctrl-C taken between waits of ``every`` seconds."""
    with interrupts_at_safe_points():
        while not future.done():
            safe_point()
            with contextlib.suppress(TimeoutError):
                future.exception(every)  # the answer or its error, once done
        return future.result()


def end_pools() -> None:
    """End every reader pool this process made (:func:`end_pool`): on Ctrl-C, SIGHUP, SIGTERM."""
    global _ended, _shared
    with _shared_lock:
        _ended, _shared = True, None  # no new shared pool; this one is ended below
    for pool in list(_pools):
        _pools.discard(pool)
        end_pool(pool)


def end_pool(pool: Any, wait: float = END_WAIT_SECONDS) -> None:
    """End ``pool`` now: its work is dropped, its processes get SIGTERM, and SIGKILL when
    any is left after ``wait`` seconds."""
    # Its processes and answers' pipe (no public way before 3.14), before shutdown forgets them.
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
    # A process ended mid-answer: the pool's thread waits for the rest until this is closed.
    if answers is not None:
        with contextlib.suppress(OSError, AttributeError):
            answers._writer.close()
    # Nothing is left to wake: 3.11's exit hook would write to the closed wakeup pipe.
    from concurrent.futures import process as pools

    wakeups = getattr(pools, "_threads_wakeups", None)
    if thread is not None and wakeups is not None:
        with contextlib.suppress(KeyError, TypeError):
            del wakeups[thread]


def _quiet_cancelled_futures_race() -> None:
    """Python 3.11's pool thread raises on a pending call already cancelled (a traceback
    after Ctrl-C): 3.12 ignores that error, and so does this hook, for that thread only."""
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


def workers(spare: int = 0) -> int:
    """Reader processes: ``INSPECTOR_WORKERS``, else one per available core and ``spare``
    more (for work that often waits for the disk)."""
    value = os.environ.get("INSPECTOR_WORKERS", "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    try:
        return max(1, len(os.sched_getaffinity(0))) + spare
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1) + spare


_work_modules: list[str] = []  # imported by the fork server (preload_in_readers)
_also_preloaded: list[str] = []


def preload_in_readers(module: str) -> None:
    """A module whose functions run in reader processes calls this with its ``__name__``
    as it is imported: the fork server imports it once for every reader process."""
    if module not in _work_modules:
        _work_modules.append(module)


def start_forkserver(preload: Sequence[str] = ()) -> None:
    """Start the fork server now, before the app imports textual: later reader processes
    start in milliseconds, with the readers and the modules in ``preload`` loaded."""
    import multiprocessing  # here and below: a report from the store starts no process

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    _also_preloaded[:] = list(preload)
    _forkserver()
    from multiprocessing import forkserver

    with contextlib.suppress(OSError, ValueError), _outliving_the_terminal():
        forkserver.ensure_running()


def _forkserver() -> Any:
    import multiprocessing  # only large runs need it: load on use

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__, *_work_modules, *_also_preloaded])
    return context


FORK_SERVER_FROM = 100_000  # folders: a caller that listed that many holds ~100s of MB


def own_context(folders: int = 0) -> Any:
    """``fork`` for a single-threaded caller's own pool, else (and from
    :data:`FORK_SERVER_FROM` folders: each fork counts the caller's pages) ``forkserver``."""
    import multiprocessing  # when processes start (see start_forkserver)

    if folders < FORK_SERVER_FROM and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return _forkserver()


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker while stderr is still the process's own
    (inside the app, Textual's print capture answers -1 for its file descriptor)."""
    from multiprocessing import resource_tracker

    with contextlib.suppress(OSError, ValueError), _outliving_the_terminal():
        resource_tracker.ensure_running()


@contextlib.contextmanager
def _outliving_the_terminal() -> Iterator[None]:
    """SIGHUP and SIGINT ignored in this process meanwhile (main thread only), so in the
    resource tracker and the fork server it starts: a closed terminal does not end them
    before they clean up. The app ends the readers (:func:`end_pools`)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {signum: signal.signal(signum, signal.SIG_IGN) for signum in TERMINAL_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)


_shared: Any = None
_shared_lock = threading.Lock()
_ended = False


def shared_pool() -> Any:
    """The reader processes of a threaded process (the app), started once and kept.
    RuntimeError once :func:`end_pools` has run (the callers then work in-process)."""
    global _shared
    with _shared_lock:
        if _ended:
            raise RuntimeError("the reader processes have been ended")
        if _shared is None:
            _shared = reader_pool(workers(), _forkserver())
            atexit.register(shutdown_shared_pool)  # before the interpreter tears modules down
        return _shared


def ending() -> None:
    """Raise once :func:`end_pools` has run: the process is ending on a signal, so a read
    in a thread stops instead of reading on in-process (the exit waits for the thread)."""
    if _ended:
        raise RuntimeError("the reader processes have been ended: the process is ending")


def shutdown_shared_pool(broken: Any = None) -> None:
    """Stop the shared reader processes (the app, as it exits), or ``broken``, a pool that
    broke (the next call starts a new one)."""
    global _shared
    with _shared_lock:
        pool = _shared if broken is None else broken
        if _shared is pool:
            _shared = None
    if pool is not None:
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
            shutdown_shared_pool(pool)
        return None
