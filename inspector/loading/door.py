"""How a run is opened behind the door (:mod:`inspector.loading`): the store's answer for an
unchanged run, else the run read (unchanged task folders from the store, the rest by reader
processes), scored while it is read, and kept in the store (each folder read as its
record, its files' keys packed). What happens is reported as events (named tuples: cheap
to define in a module every command imports).
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from inspector.loading import reports
from inspector.loading.index import Checked, take
from inspector.loading.records import Outputs, Refusal
from inspector.overrides import Overrides
from inspector.results.problems import RunReadError

if TYPE_CHECKING:  # pragma: no cover
    from inspector.loading.reading import EarlyOpen
    from inspector.session import Session


class CachedReport(NamedTuple):
    """The run's report from the store: the run is unchanged since it was last read, or
    (``read_again`` > 0) only that many of its ``folders`` task folders changed, were read
    again, and the report was made from them and the others' kept outcomes.

    ``checked`` False (the app's first preview): taken from the store without checking
    the run's files; a :class:`CachedReport` checked or :class:`Outdated` follows."""

    outputs: Outputs
    read_again: int = 0
    folders: int = 0
    checked: bool = True


class Outdated(NamedTuple):
    """The report given first (``CachedReport.checked`` False) is not the run's: its files
    changed since, or could not be checked. The run is being read."""


class Progress(NamedTuple):
    """Task folders read so far."""

    done: int
    total: int


class Loaded(NamedTuple):
    """The run, read and scored (a run AgentCompass would refuse has ``refusal`` set).

    Attributes:
        session: The session.
        cache_hits: Task folders taken from the store instead of being read.
        outputs: What ``report`` / ``check`` print (when asked and scored).
        notes: Derived-plan notes (whole lines for stderr).
        refusal: One line naming the file, when the run cannot be scored as asked.
    """

    session: Session
    cache_hits: int
    outputs: Outputs | None = None
    notes: tuple[str, ...] = ()
    refusal: str | None = None


class Refused(NamedTuple):
    """The run could not be scored under the plan, as the store says for the run as it is
    now (its files unchanged since): ``refusal`` is the line :class:`Loaded` would carry,
    said after ``warnings`` (``(relative path, message)``, as :class:`Outputs` keeps them);
    ``status``: its run_info.json's ``status`` (a string or None) as one item, else ()."""

    refusal: str
    warnings: tuple[tuple[str, str], ...]
    status: tuple[str | None, ...] = ()


class Failed(NamedTuple):
    """The path cannot be read as a run at all (one line naming it)."""

    message: str


Event = CachedReport | Outdated | Progress | Loaded | Refused | Failed


class _Auditing(threading.local):
    on = False


_auditing = _Auditing()


class Audited:
    """``function`` called as part of an audit of many runs (picklable: it is sent to the
    reader processes with each call)."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function

    def __call__(self, *args: Any) -> Any:
        """The call, with every look the store takes at its run (``args[0]``) answered
        by one check of the run's files: its answers are of one state of the run."""
        before, _auditing.on = _auditing.on, True
        try:
            held = reports.held(Path(args[0])) if isinstance(args[0], str | Path) else None
            with held or contextlib.nullcontext():
                return self.function(*args)
        finally:
            _auditing.on = before


_in_app = False  # set by :func:`inspector.loading.start_app` (reads are the app's)


def answer(
    path: Path | str,
    plan: Overrides | None = None,
    *,
    fresh: bool = False,
    also: Callable[[Session], dict[str, Any]] | None = None,
) -> CachedReport | Refused | Loaded | Failed:
    """The report of the run at ``path`` under ``plan`` (``--k`` / ``--strategy`` applied
    as a derived plan): :class:`CachedReport` (or :class:`Refused`: why it cannot be
    scored) when the store answers for the run as it is now, else :class:`Loaded` (with
    ``outputs``, or ``refusal``), or :class:`Failed`. ``fresh``: every file
    is read (``check`` without ``--cached``). ``also``: further answers about the run,
    each under its key, kept with the report for the same state of its files."""
    return open_run(path, plan, fresh=fresh, asked=True, also=also)


def read(
    path: Path | str,
    plan: Overrides | None = None,
    *,
    fresh: bool = False,
    preview: bool = False,
    on_event: Callable[[Event], Any] | None = None,
    early: EarlyOpen | None = None,
) -> Loaded | Failed:
    """The run at ``path`` read and scored under ``plan`` (``--k`` / ``--strategy`` applied
    as a derived plan); events go to ``on_event``. ``preview``: the store's last report of
    the run comes first (in the app: :class:`CachedReport` unchecked, then checked or
    :class:`Outdated`); ``early``: what :func:`~inspector.loading.prepare_app` started.
    ``fresh``: every file is read (the app's ``R``)."""
    result = open_run(
        path, plan, fresh=fresh, preview=preview, in_app=_in_app, early=early, on_event=on_event
    )
    assert not isinstance(result, CachedReport | Refused)
    return result


def open_run(
    path: Path | str,
    plan: Overrides | None,
    *,
    fresh: bool,
    asked: bool = False,
    preview: bool = False,
    in_app: bool = False,
    early: EarlyOpen | None = None,
    also: Callable[[Session], dict[str, Any]] | None = None,
    on_event: Callable[[Event], Any] | None = None,
) -> CachedReport | Refused | Loaded | Failed:
    """:func:`answer` (``asked``) and :func:`read`: every event goes to ``on_event``
    (from the calling thread); the last one is returned. The store answers first (when
    asked), else the run is read here and what was read kept."""
    emit = on_event or (lambda event: None)
    early = early if early is not None and early.matches(Path(path)) else None
    pending = early.pending if early is not None else None
    key = reports.key_for(plan, "outputs")
    answered, checked = _from_store(path, plan, key, early, emit, fresh, asked, preview, in_app)
    if answered is not None:
        return answered
    path = Path(path)  # as the read names it (its messages too)
    if pending is not None and fresh:
        pending.cancel()
        pending = None
    # The reader and the engine: an answer from the store is given without loading them.
    from inspector.loading.readers import PARALLEL_MIN
    from inspector.loading.reading import base_plan, begin_read, derive, outputs_of

    # In an audit, a fresh read keeps nothing, any other the task store of a large run only.
    nothing, lean = _auditing.on and fresh, _auditing.on and not fresh
    gc.unfreeze()  # what an earlier read froze; this one's is frozen after (paused)
    try:
        with paused():
            if pending is None:
                pending = begin_read(
                    path, reuse_cache=not fresh, store=not nothing, shared=in_app, checked=checked
                )
            session = pending.finish(base_plan(plan), _progress(on_event, 0.1 if in_app else 0.0))
    except RunReadError as exc:
        failed = Failed(str(exc))
        if on_event is not None:  # not emit: a call the run's answer need not take
            on_event(failed)
        return failed
    made = derive(session, plan, path)
    said = None
    if asked and made.refusal is None:
        said = outputs_of(made.session, made.notes)
    loaded = Loaded(made.session, session.run.cache_hits, said, tuple(made.notes), made.refusal)
    if on_event is not None:
        on_event(loaded)
    extra: dict[str, Any] = {}
    if also is not None and made.refusal is None:
        extra = also(made.session)
    if nothing:
        return loaded
    # Kept after the session is out; a failure to keep never fails the read.
    with contextlib.suppress(Exception):
        whole = not lean or len(pending.load.entries) >= PARALLEL_MIN
        cache = pending.load.cache
        if whole and cache is not None:
            cache.save()
        if made.refusal is not None:
            kept: Any = _refusal(path, made)
        else:
            kept = said or outputs_of(made.session, made.notes)
        # The run's index first (the state of its files kept), then what is kept for it.
        snapshot = take(session.run) if key is not None else None
        table = None
        if made.refusal is None and made.session is session and whole:
            from inspector.loading.reopen import table_of

            table = table_of(session)
        if kept is not None:
            reports.store_snapshot(session.run.path, snapshot, key, kept, table, extra)
    return loaded


def _from_store(
    path: Path | str,
    plan: Overrides | None,
    key: str | None,
    early: EarlyOpen | None,
    emit: Callable[[Event], Any],
    fresh: bool,
    asked: bool,
    preview: bool,
    in_app: bool,
) -> tuple[CachedReport | Refused | None, Checked | None]:
    """What :func:`open_run` answers from the store (None: the run is read), and what the
    store's check found changed (for the task store)."""
    checked = None
    if in_app and preview and not fresh:
        if early is None or early.pending is None:
            _preview_in_app(Path(path), key, early, emit)
    elif not fresh and (preview or asked):
        changes: list[Checked] = []
        found = reports.lookup(Path(path), key, on_changes=changes.append)
        checked = changes[0] if changes else None
        if asked and isinstance(found, Refusal):
            refused = Refused(found.line(path), found.warnings, found.status)
            emit(refused)
            return refused, checked
        cached = found if isinstance(found, Outputs) else None
        if cached is None and checked is not None and key is not None and asked:
            from inspector.loading import reopen

            warm = reopen.answer(path, key, plan, checked)
            if warm is not None:
                got = CachedReport(*warm)
                emit(got)
                return got, checked
        if cached is not None:
            got = CachedReport(cached)
            emit(got)
            if asked:
                return got, checked
    return None, checked


def _preview_in_app(
    path: Path, key: str | None, early: EarlyOpen | None, emit: Callable[[Event], Any]
) -> None:
    """The app's preview: the store's report at once, not yet checked, then the check (in a
    shared reader process) and what it found: the report, checked, or :class:`Outdated`.
    The run is read after this either way."""
    shown = early.preview if early is not None else reports.peek(path, key)
    if shown is not None:
        emit(CachedReport(shown, checked=False))
    found = reports.lookup(path, key, shared=True)
    if isinstance(found, Outputs):
        emit(CachedReport(found))
    elif shown is not None:
        emit(Outdated())


def _refusal(path: Path, made: Any) -> Refusal | None:
    """Why the run could not be scored, kept without its path (``made.refusal`` is
    ``{path / rel}: {message}``); None when it cannot be told so, or its message names
    the run's folder (the line would not be the one a read gives under another name)."""
    session = made.session
    if session.refusal is not None:
        rel, message = session.refusal_path, session.refusal
    else:  # a derived plan the run cannot be scored as: about the run itself
        rel, message = "", made.refusal.removeprefix(f"{path}: ")
    warnings = tuple((p.path, p.message) for p in session.run.problems if not p.blocking)
    status = (session.run.run_info or {}).get("status")
    told = (status,) if status is None or type(status) is str else ()
    found = Refusal(rel, message, warnings, told)
    names = {os.path.abspath(path), os.path.realpath(path)}
    if found.line(path) != made.refusal or any(name in message for name in names):
        return None
    return found


def _progress(
    emit: Callable[[Event], Any] | None, interval: float
) -> Callable[[int, int], None] | None:
    """A progress callback emitting at most one event per ``interval`` (and the last):
    each event repaints the app, which shares the cores with the reader processes."""
    if emit is None:
        return None
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if done >= total or now - last[0] >= interval:
            last[0] = now
            emit(Progress(done, total))

    return progress


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block; then every object alive is frozen (never
    walked by a full collection: ``docs/decisions/loading-internals.md``)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
