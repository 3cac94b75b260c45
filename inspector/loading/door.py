"""The one door for opening a run: :func:`open_run` (``inspector.loading.open``).

The command line and the app both call it; it reports what happens as events — the
report cache's answer for an unchanged run (:class:`CachedReport`), reading progress
(:class:`Progress`), the scored session (:class:`Loaded`) or a run that cannot be read
at all (:class:`Failed`) — and does the rest itself: the early start made before the app,
the report cache, the task cache, the reader processes, scoring while reading, a derived
plan for ``--k`` / ``--strategy``, and storing the caches for next time.

The request and the events are named tuples: immutable like frozen dataclasses, and about
a fifth of their cost to define (every command imports this module; issue 12's cached
``report`` was 22 M instructions slower with six dataclasses here).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from inspector.loading import heap, reports
from inspector.loading.records import Outputs
from inspector.overrides import Overrides
from inspector.results.problems import RunReadError

if TYPE_CHECKING:  # pragma: no cover
    from inspector.loading.early import EarlyOpen
    from inspector.loading.index import Checked
    from inspector.session import Session


class Request(NamedTuple):
    """What the caller wants from opening a run.

    Attributes:
        overrides: The plan to score with (None: the run's own). ``k`` / ``strategy`` are
            applied as a derived plan.
        reuse_cache: False: every file is read; the caches may not stand in for reading
            (``check`` without ``--cached``, the app's ``R``). What is read is still stored,
            unless ``store`` is False.
        store: False: nothing of this read is kept in the caches (``check ROOT``: an
            audit of hundreds of runs writes no cache for each; nor does it take the file
            keys a cache needs).
        small_task_caches: False: the task cache, and the score table that lets a
            command reread only a run's changed folders, are written only for a run large
            enough for reader processes to read it (``readers.PARALLEL_MIN`` folders; the
            report cache's outputs are written for every run): the runs screen's audit of
            many small runs, whose next look the report cache answers, and whose folders
            cost less to read again than to write (300 runs of 200 tasks: every value shown
            about 0.6 s sooner, and half the cache on disk; the table was another 0.7 ms a
            run and 80% of each run's report cache file).
        answer_from_cache: The report cache's answer for an unchanged run is the answer
            (the command line): the run is then not read.
        preview: Report the report cache's answer first, then read the run anyway (the
            app shows the cached numbers while the tasks are read).
        outputs: :attr:`Loaded.outputs` holds what ``report`` / ``check`` print.
        in_app: The caller has threads: the shared reader processes do the work.
        derive_plan: ``k`` / ``strategy`` of ``overrides`` are applied as a derived plan
            (the command line's ``--k`` / ``--strategy``); otherwise the run is scored
            with ``overrides`` as given, and only the run's own plan is cached (the app).
        early: What was started for this run before the app (``prepare_app``).
        progress_interval: At most one :class:`Progress` event per this many seconds.
        extra_answers: Called with the session when the run was read and scored (not
            when the report cache answered): further answers about the run (the runs
            screen's headline interval), each under its report cache key. They are kept
            with the outputs, in the same write and for the same state of the run (one
            snapshot of its files, one file written).
    """

    overrides: Overrides | None = None
    reuse_cache: bool = True
    store: bool = True
    small_task_caches: bool = True
    answer_from_cache: bool = False
    preview: bool = False
    outputs: bool = False
    in_app: bool = False
    derive_plan: bool = True
    early: EarlyOpen | None = None
    progress_interval: float = 0.0
    extra_answers: Callable[[Session], dict[str, Any]] | None = None


class CachedReport(NamedTuple):
    """The run's report from the report cache: the run is unchanged since it was last
    read, or (``read_again`` > 0, the command line) only that many of its ``folders`` task
    folders changed, were read again, and the report was made from them and the others'
    kept outcomes (:func:`inspector.loading.reports.table_of`).

    ``checked`` False (the app's first preview): taken from the cache without checking the
    run's files; a :class:`CachedReport` checked or :class:`Outdated` follows."""

    outputs: Outputs
    read_again: int = 0
    folders: int = 0
    checked: bool = True


class Outdated(NamedTuple):
    """The cached report given first (``CachedReport.checked`` False) is not the run's:
    its files changed since, or could not be checked. The run is being read."""


class Progress(NamedTuple):
    """Task folders read so far."""

    done: int
    total: int


class Loaded(NamedTuple):
    """The run, read and scored (a run AgentCompass would refuse has ``refusal`` set).

    Attributes:
        session: The session.
        cache_hits: Task folders taken from the task cache instead of being read.
        outputs: What ``report`` / ``check`` print (``Request.outputs``, when scored).
        notes: Derived-plan notes (whole lines for stderr).
        refusal: One line naming the file, when the run cannot be scored as asked.
    """

    session: Session
    cache_hits: int
    outputs: Outputs | None = None
    notes: tuple[str, ...] = ()
    refusal: str | None = None


class Failed(NamedTuple):
    """The path cannot be read as a run at all (one line naming it)."""

    message: str


Event = CachedReport | Outdated | Progress | Loaded | Failed


def open_run(
    path: Path | str,
    request: Request | None = None,
    on_event: Callable[[Event], Any] | None = None,
) -> CachedReport | Loaded | Failed:
    """Open the run at ``path`` as ``request`` asks; every event goes to ``on_event``
    (from the calling thread) and the last one is returned."""
    request = request or Request()
    emit = on_event or (lambda event: None)
    early = (
        request.early if request.early is not None and request.early.matches(Path(path)) else None
    )
    pending = early.pending if early is not None else None
    if request.derive_plan:
        key = reports.key_for(request.overrides, "outputs")
    else:
        key = reports.own_plan_key(request.overrides)
    checked = None  # what the report cache's check found changed, for the task cache
    if request.in_app and request.preview and request.reuse_cache:
        if pending is None:
            _preview_in_app(Path(path), key, early, emit)
    elif request.reuse_cache and (request.preview or request.answer_from_cache):
        found, checked = reports.lookup_checked(Path(path), key)
        cached = found if isinstance(found, Outputs) else None
        if cached is None and checked is not None and key is not None:
            warm = _warm(path, key, request, checked)
            if warm is not None:
                emit(warm)
                return warm
        if cached is not None:
            answer = CachedReport(cached)
            emit(answer)
            if request.answer_from_cache:
                return answer
            # Let the interface thread paint the numbers before the read takes the
            # interpreter.
            time.sleep(0.05)
    elif pending is not None and not request.reuse_cache:
        pending.cancel()
        pending = None
    return _read(Path(path), request, key, pending, emit, checked)


def _preview_in_app(
    path: Path, key: str | None, early: EarlyOpen | None, emit: Callable[[Event], Any]
) -> None:
    """The app's preview: the report cache's answer at once, marked as not yet checked
    (checking a large run's files takes longer than the rest of opening the app), then
    the check (in a shared reader process) and what it found: the answer, checked, or
    :class:`Outdated`. The run is read after this either way, and its numbers replace
    the preview's."""
    shown = early.preview if early is not None else reports.peek(path, key)
    if shown is not None:
        emit(CachedReport(shown, checked=False))
        time.sleep(0.05)  # the interface thread paints the numbers
    found = reports.lookup(path, key, shared=True)
    found = found if isinstance(found, Outputs) else None
    if found is not None:
        emit(CachedReport(found))
        if shown is None:
            # Let the interface thread paint the numbers before the read takes the
            # interpreter.
            time.sleep(0.05)
    elif shown is not None:
        emit(Outdated())


def _warm(path: Path | str, key: str, request: Request, checked: Checked) -> CachedReport | None:
    """The command line's answer for a run whose files changed in a few task folders,
    from its score table (None: the run is read)."""
    overrides = request.overrides
    if not request.answer_from_cache or not request.derive_plan:
        return None
    if overrides is not None and (overrides.k is not None or overrides.strategy is not None):
        return None
    from inspector.loading import reopen

    found = reopen.answer(path, key, overrides, checked)
    if found is None:
        return None
    return CachedReport(found.outputs, found.read_again, found.folders)


def _read(
    path: Path,
    request: Request,
    key: str | None,
    pending: Any,
    emit: Callable[[Event], Any],
    checked: Checked | None = None,
) -> Loaded | Failed:
    # The reader and the engine: an answer from the report cache (report, check --cached,
    # the app's cached preview) is given without loading them.
    from inspector.loading.pending import begin_read
    from inspector.loading.readers import PARALLEL_MIN
    from inspector.loading.scoring import base_plan, derive, finish_and_score

    # What an earlier read kept from the collector is handed back (its cycles can go), and
    # the collector is kept off what this read builds (the task cache loaded, the entries,
    # the reductions), by every caller: its full collections otherwise walk the growing
    # heap again and again (seconds at 50,000 tasks).
    heap.release()
    try:
        with heap.paused():
            if pending is None:
                pending = begin_read(
                    path,
                    reuse_cache=request.reuse_cache,
                    store=request.store,
                    shared=request.in_app,
                    checked=checked,
                )
            session = finish_and_score(
                pending,
                base_plan(request.overrides) if request.derive_plan else request.overrides,
                progress=_progress(emit, request.progress_interval),
                save_cache=False,
            )
    except RunReadError as exc:
        failed = Failed(str(exc))
        emit(failed)
        return failed
    derived = derive(session, request.overrides if request.derive_plan else None, path)
    outputs = None
    if request.outputs and derived.refusal is None:
        outputs = reports.outputs_of(derived.session, derived.notes)
    loaded = Loaded(
        derived.session,
        session.run.cache_hits,
        outputs,
        tuple(derived.notes),
        derived.refusal,
    )
    emit(loaded)
    extra: dict[str, Any] = {}
    if request.extra_answers is not None and derived.refusal is None:
        extra = request.extra_answers(derived.session)
    if not request.store:
        return loaded
    # The caches are optional: a failure to store them never fails the load. They are
    # written after the session is out, so a large run is on screen before they are.
    with contextlib.suppress(Exception):
        kept_whole = request.small_task_caches or len(pending.load.entries) >= PARALLEL_MIN
        if kept_whole:
            pending.save_cache()
        if derived.refusal is None and key is not None:
            stored = outputs or reports.outputs_of(derived.session, derived.notes)
            table = None
            if derived.session is session and kept_whole:  # no derived plan
                from inspector.loading.reports import table_of

                table = table_of(session)
            reports.store(session.run, key, stored, table, extra)
    return loaded


def _progress(emit: Callable[[Event], Any], interval: float) -> Callable[[int, int], None]:
    """A progress callback emitting at most one event per ``interval`` (and the last):
    each event repaints the app, which shares the cores with the reader processes."""
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if done >= total or now - last[0] >= interval:
            last[0] = now
            emit(Progress(done, total))

    return progress
