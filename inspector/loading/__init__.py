"""The one door to runs: every command and screen reads runs through the four functions
here, and nothing outside this package knows of the store or of reader processes.

- :func:`answer`: a question about a run: its report (what ``report`` and ``check`` print),
  from the store when the run is unchanged.
- :func:`read`: the run itself, read and scored (the app, with its preview first).
- :func:`audit`: a function over many runs (the root commands and the runs screen), and a
  root's runs list.
- the app's group (:func:`prepare_app`, :func:`start_app`, :func:`warm_app`,
  :func:`stop_app`, :func:`end_app`): what opening and closing the app needs.

Arguments say what to read — a plan, ``fresh`` for every file read again — never how;
what is kept in the store, and which processes read, is decided here.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from inspector.loading import door, index, processes, reports, store
from inspector.loading.door import (
    Audited,
    CachedReport,
    Event,
    Failed,
    Loaded,
    Outdated,
    Progress,
    Refused,
    answer,
    read,
)
from inspector.loading.door import paused as collector_paused
from inspector.loading.records import WARNING_PREFIX, Outputs, decoded
from inspector.loading.store import results_read
from inspector.overrides import Overrides

if TYPE_CHECKING:  # pragma: no cover
    from inspector.loading.many import keep_for_root, kept_for_root, runs_under
    from inspector.loading.reading import EarlyOpen, derived_note
    from inspector.loading.remote import mirror
    from inspector.session import Session

__all__ = [
    "WARNING_PREFIX",
    "CachedReport",
    "EarlyOpen",
    "Event",
    "Failed",
    "Loaded",
    "Outdated",
    "Outputs",
    "Progress",
    "Refused",
    "answer",
    "audit",
    "audit_in_app",
    "collector_paused",
    "derived_note",
    "end_app",
    "is_url",
    "keep",
    "keep_for_root",
    "kept",
    "kept_for_root",
    "last_report",
    "mirror",
    "prepare_app",
    "question_key",
    "read",
    "results_read",
    "runs_under",
    "shown",
    "start_app",
    "state",
    "state_read",
    "stop_app",
    "warm_app",
]

# Which paths name remote runs, and how messages name a mirrored run (every command needs
# this; mirroring itself, :mod:`inspector.loading.remote`, is imported only for a URL).
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(path: str | os.PathLike[str]) -> bool:
    return isinstance(path, str) and bool(_URL.match(path))


def shown(text: str) -> str:
    """``text`` with every mirror folder replaced by the URL it mirrors."""
    remote = sys.modules.get(__name__ + ".remote")  # loaded once a URL was opened
    mirrored = [(str(m.local), url) for url, m in (remote.MIRRORED if remote else {}).items()]
    for local, url in sorted(mirrored, key=lambda item: -len(item[0])):
        text = text.replace(local, url.rstrip("/"))
    return text


def audit(
    function: Callable[..., Any],
    calls: Sequence[tuple[Any, ...]],
    *,
    progress: Callable[[int, int], None] | None = None,
    preload: Sequence[str] = (),
) -> list[Any]:
    """``function(*call)`` for each call (each a run's), in order, by reader processes of
    this process's own (or here when there are none). A call that reads a run fresh keeps
    nothing in the store; any other keeps its report. ``progress(done, total)`` after each
    answer taken in order. ``preload``: modules a call needs when it reads its run."""
    from inspector.loading.many import map_in_processes

    count = min(processes.workers(spare=1), len(calls))
    return map_in_processes(Audited(function), calls, count, progress=progress, preload=preload)


def audit_in_app(
    function: Callable[..., Any], calls: Sequence[tuple[Any, ...]], **pacing: Any
) -> Iterator[list[tuple[int, Any]]]:
    """:func:`audit` for the app: ``(index, answer)`` batches as they come, from its shared
    reader processes; ``pacing`` as :func:`~inspector.loading.many.stream_in_shared_pool`
    takes it."""
    from inspector.loading.many import stream_in_shared_pool

    return stream_in_shared_pool(Audited(function), calls, **pacing)


def kept(path: Path | str, plan: Overrides | None, question: str, kind: Any = None) -> Any | None:
    """The further answer to ``question`` kept with the run's report under ``plan``
    (:func:`answer`'s ``also``, :func:`keep`), when the run is as it was then; else None.
    A tuple of numbers, or with ``kind`` a typed record (as :func:`keep` was given it)."""

    found = reports.lookup(Path(path), reports.key_for(plan, question))
    if kind is None or not isinstance(found, msgspec.Raw):
        return found if kind is None and type(found) is tuple else None
    return decoded(kind, found)


def state(path: Path | str) -> str | None:
    """A name for the state of the run's files as its store last read them, when they are
    still so (within :func:`audit`, the call's one check); None when the store keeps
    nothing for the run or it changed since (:func:`keep_for_root` keys by it)."""

    return reports.state(Path(path))


def state_read(session: Session) -> str | None:
    """:func:`state` of the run as ``session`` read it (None: it cannot be named)."""

    found = index.take(session.run) if store.enabled() else None
    return None if found is None else index.name(found)


def last_report(
    path: Path | str, plan: Overrides | None
) -> tuple[Outputs | str | None, dict[str, tuple[float, ...]]]:
    """The run's last report under ``plan`` in the store, NOT checked against its files
    (the runs screen's first marks): its outputs, or the line saying why the run could not
    be scored, and the further answers kept beside it; ``(None, {})``: none is kept."""

    return reports.last(Path(path), reports.key_for(plan, "outputs"))


def keep(session: Session, plan: Overrides | None, question: str, value: Any) -> None:
    """Keep ``value`` (a tuple of numbers, or a typed record: :func:`kept`) as the
    answer to ``question`` about the run as ``session`` read it (under ``plan``); never
    fails."""

    with contextlib.suppress(Exception):
        key = reports.key_for(plan, question)
        snapshot = index.take(session.run) if key is not None else None
        reports.store_snapshot(session.run.path, snapshot, key, value)


def question_key(plan: Overrides | None, question: str) -> str | None:
    """The name ``also`` gives an answer to ``question`` under ``plan`` (None: a plan given
    as files, which is never kept)."""

    return reports.key_for(plan, question)


def prepare_app(
    paths: list[Path], preload: Sequence[str] = (), root_preload: Sequence[str] = ()
) -> EarlyOpen | None:
    """Before textual is imported (the process has one thread): look a single run up in
    the store, else start its reader processes; start the fork server with the modules
    in ``preload`` imported, and those in ``root_preload`` unless the app opens one run."""
    from inspector.loading.reading import prepare

    early = prepare(paths[0]) if len(paths) == 1 else None
    processes.start_forkserver([*preload, *(root_preload if early is None else ())])
    return early


def start_app() -> None:
    """As the app is made: reads from now on are the app's (its shared reader processes,
    the preview first); multiprocessing's resource tracker starts now."""

    door._in_app = True
    processes.start_resource_tracker()


def warm_app() -> None:
    """Start the app's shared reader processes (in a worker thread, at mount), each with
    the code signature every store check needs."""

    pool = processes.shared_pool()
    for future in [pool.submit(store.code_signature) for _ in range(processes.workers())]:
        future.result()


def stop_app(early: EarlyOpen | None = None) -> None:
    """As the app closes: stop an early read not used and the shared reader processes,
    and hand the run's objects back to the garbage collector."""

    gc.unfreeze()
    if early is not None:
        early.cancel()
    processes.shutdown_shared_pool()
    door._in_app = False


def end_app() -> None:
    """The app is ending on a signal: its reader processes end now, and no new ones start."""

    processes.end_pools()


_ELSEWHERE = {
    "EarlyOpen": "reading",  # with the reader and the engine
    "derived_note": "reading",
    "runs_under": "many",  # a results root's runs and answers
    "kept_for_root": "many",
    "keep_for_root": "many",
    "mirror": "remote",  # with fsspec
}
"""What is defined in a module not every command loads: loaded on first use."""


def __getattr__(name: str) -> Any:
    if name in _ELSEWHERE:
        return getattr(importlib.import_module(f"{__name__}.{_ELSEWHERE[name]}"), name)
    raise AttributeError(name)
