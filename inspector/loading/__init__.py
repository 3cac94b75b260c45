"""The one door for opening a run (issue 11).

Everything about opening a run lives here — listing it, the reader processes, the task
and report caches (keyed as git's index keys files), the early start before the app,
the cached preview, progress, scoring while reading and storing for next time — behind
:func:`open` (``open(path, request, on_event)``). The command line and the app call it
and consume its events (:class:`CachedReport`, :class:`Outdated`, :class:`Progress`,
:class:`Loaded`, :class:`Failed`); nothing outside this package knows about processes or caches.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from inspector.loading import heap
from inspector.loading.door import (
    CachedReport,
    Event,
    Failed,
    Loaded,
    Outdated,
    Progress,
    Request,
    open_run,
)
from inspector.loading.processes import (
    end_pools,
    shutdown_shared_pool,
    start_forkserver,
    start_resource_tracker,
    warm_shared_pool,
)
from inspector.loading.store import code_signature
from inspector.overrides import Overrides

if TYPE_CHECKING:  # pragma: no cover
    from inspector.loading.early import EarlyOpen
    from inspector.session import Session

open = open_run

__all__ = [
    "CachedReport",
    "Event",
    "Failed",
    "Loaded",
    "Outdated",
    "Progress",
    "Request",
    "RunUnreadable",
    "end_app",
    "open",
    "open_session",
    "prepare_app",
    "start_app",
    "stop_app",
    "warm_app",
]


class RunUnreadable(Exception):
    """:func:`open_session`: the path cannot be read as a run (``str()`` names it)."""


def open_session(
    path: Path | str,
    overrides: Overrides | None = None,
    *,
    in_app: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Session:
    """Read and score one run (its own plan, or ``overrides`` as given).

    Raises:
        RunUnreadable: the run directory cannot be read.
    """

    def on_event(event: Event) -> None:
        if isinstance(event, Progress) and progress is not None:
            progress(event.done, event.total)

    result = open_run(
        path, Request(overrides=overrides, derive_plan=False, in_app=in_app), on_event
    )
    if isinstance(result, Failed):
        raise RunUnreadable(result.message)
    assert isinstance(result, Loaded)
    return result.session


def prepare_app(
    paths: list[Path], preload: Sequence[str] = (), root_preload: Sequence[str] = ()
) -> EarlyOpen | None:
    """Before textual is imported (the process has one thread): look a single run up in
    the report cache, else start its reader processes; start the fork server that later
    reader processes come from, with the modules in ``preload`` imported (those whose
    functions the app runs in them), and those in ``root_preload`` too when the app does
    not open on one run (the runs screen checks every run under the roots)."""
    # The reader and the engine (early reads a run not in the cache): the app's start only.
    from inspector.loading.early import prepare

    early = prepare(paths[0]) if len(paths) == 1 else None
    start_forkserver([*preload, *(root_preload if early is None else ())])
    return early


def start_app() -> None:
    """As the app is made: what its reader processes need (multiprocessing's resource
    tracker, started while stderr is still the process's own)."""
    start_resource_tracker()


def warm_app() -> None:
    """Start the app's shared reader processes (in a worker thread, at mount); each loads
    the inspector's code signature (what every report-cache check needs)."""
    warm_shared_pool(code_signature)


def stop_app(early: EarlyOpen | None = None) -> None:
    """As the app closes: stop an early read not used and the shared reader processes,
    and hand the run's objects back to the garbage collector."""
    heap.release()
    if early is not None:
        early.cancel()
    shutdown_shared_pool()


def end_app() -> None:
    """The app is ending on a signal: its reader processes end now (SIGTERM, then SIGKILL
    after a second), the early read's and the shared ones, and no new ones start."""
    end_pools()
