"""How a run is opened behind the door (:mod:`inspector.loading`): the store's answer for an
unchanged run, else the run read (unchanged task folders from the store, the rest by reader
processes), scored while it is read, and kept in the store (each folder read as its
record, its files' keys packed). What happens is reported as events (named tuples: cheap
to define in a module every command imports).
"""

from __future__ import annotations

import contextlib
import gc
import operator
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from inspector.loading import reports
from inspector.loading.index import HEAD, RECORD
from inspector.loading.records import (
    AttemptRec,
    EntryRec,
    Outputs,
    Refusal,
    TaskRec,
    issue_rec,
    problem_rec,
)
from inspector.overrides import Overrides
from inspector.results.layout import AttemptDirs
from inspector.results.problems import RunReadError

if TYPE_CHECKING:  # pragma: no cover
    from inspector.loading.index import Checked
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


def open_run(
    path: Path | str,
    plan: Overrides | None,
    *,
    fresh: bool,
    answer: bool = False,
    preview: bool = False,
    in_app: bool = False,
    early: EarlyOpen | None = None,
    also: Callable[[Session], dict[str, Any]] | None = None,
    on_event: Callable[[Event], Any] | None = None,
) -> CachedReport | Refused | Loaded | Failed:
    """:func:`inspector.loading.answer` (``answer``) and :func:`inspector.loading.read`:
    every event goes to ``on_event`` (from the calling thread); the last one is returned."""
    emit = on_event or (lambda event: None)
    early = early if early is not None and early.matches(Path(path)) else None
    pending = early.pending if early is not None else None
    key = reports.key_for(plan, "outputs")
    checked = None  # what the store's check found changed, for the task store
    if in_app and preview and not fresh:
        if pending is None:
            _preview_in_app(Path(path), key, early, emit)
    elif not fresh and (preview or answer):
        changes: list[Checked] = []
        found = reports.lookup(Path(path), key, on_changes=changes.append)
        checked = changes[0] if changes else None
        if answer and isinstance(found, Refusal):
            refused = Refused(found.line(path), found.warnings, found.status)
            emit(refused)
            return refused
        cached = found if isinstance(found, Outputs) else None
        if cached is None and checked is not None and key is not None and answer:
            from inspector.loading import reopen

            warm = reopen.answer(path, key, plan, checked)
            if warm is not None:
                got = CachedReport(*warm)
                emit(got)
                return got
        if cached is not None:
            got = CachedReport(cached)
            emit(got)
            if answer:
                return got
    elif pending is not None and fresh:
        pending.cancel()
        pending = None
    return _read(Path(path), plan, key, pending, emit, checked, fresh=fresh, outputs=answer,
                 in_app=in_app, also=also)  # fmt: skip


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


def _read(
    path: Path,
    plan: Overrides | None,
    key: str | None,
    pending: Any,
    emit: Callable[[Event], Any],
    checked: Checked | None,
    *,
    fresh: bool,
    outputs: bool,
    in_app: bool,
    also: Callable[[Session], dict[str, Any]] | None,
) -> Loaded | Failed:
    # The reader and the engine: an answer from the store is given without loading them.
    from inspector.loading.index import take
    from inspector.loading.readers import PARALLEL_MIN
    from inspector.loading.reading import (
        base_plan,
        begin_read,
        derive,
        finish_and_score,
        outputs_of,
    )

    # In an audit, a fresh read keeps nothing, any other the task store of a large run only.
    nothing, lean = _auditing.on and fresh, _auditing.on and not fresh
    gc.unfreeze()  # what an earlier read froze; this one's is frozen after (paused)
    try:
        with paused():
            if pending is None:
                pending = begin_read(
                    path, reuse_cache=not fresh, store=not nothing, shared=in_app, checked=checked
                )
            session = finish_and_score(
                pending,
                base_plan(plan),
                progress=_progress(emit, 0.1 if in_app else 0.0),
                save_cache=False,
            )
    except RunReadError as exc:
        failed = Failed(str(exc))
        emit(failed)
        return failed
    made = derive(session, plan, path)
    said = None
    if outputs and made.refusal is None:
        said = outputs_of(made.session, made.notes)
    loaded = Loaded(made.session, session.run.cache_hits, said, tuple(made.notes), made.refusal)
    emit(loaded)
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
            cache.save(keep=pending.load.store)
        if made.refusal is not None:
            kept: Any = _refusal(path, made)
        else:
            kept = said or outputs_of(made.session, made.notes)
        # The run's index first (the state of its files kept), then what is kept for it.
        snapshot = take(session.run) if key is not None else None
        table = None
        if made.refusal is None and made.session is session and whole:
            table = reports.table_of(session)
        if kept is not None:
            reports.store_snapshot(session.run.path, snapshot, key, kept, table, extra)
    return loaded


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


def entry_record(entry: Any) -> EntryRec:
    """A TaskEntry as its record (as a reader process sends it, and the store keeps it)."""
    record = entry.record
    rec = None
    if record is not None:
        rec = TaskRec(
            record.task_id,
            record.category,
            record.plan_k,
            record.plan_strategy,
            tuple(
                [
                    AttemptRec(
                        a.index,
                        a.status,
                        dict(a.metrics),
                        tuple([issue_rec(i) for i in a.issues]),  # type: ignore[misc]
                        dict(a.scoring_artifacts),
                    )
                    for a in record.attempts.values()
                ]
            ),
            dict(record.retry_counts),
            record.source,
        )
    dirs = entry.attempt_dirs
    numbers = dirs.numbers if type(dirs) is AttemptDirs else None
    return EntryRec(
        entry.task_id,
        entry.folder,
        entry.state,
        entry.published,
        rec,
        numbers,
        None if numbers is not None else dict(dirs),
        tuple([problem_rec(p) for p in entry.problems]),
        entry.schema_version,
    )


class ReadKeys:
    """The folders taken from the store or read, as columns: each one's entry, where it is
    found first, whether it was taken, and its packed keys, one folder after another in
    one buffer after :data:`~index.HEAD` bytes of room for the run-level files' (the
    run's index is made from it in place when every folder was read: :func:`~index.take`)."""

    def __init__(self) -> None:
        self.entries: list[Any] = []
        self.firsts: list[str] = []
        self.taken = bytearray()  # 1: taken from the store
        self.stats = bytearray(HEAD)

    def add(self, entry: Any, first: str, packed: bytes, taken: bool = False) -> None:
        self.entries.append(entry)
        self.firsts.append(first)
        self.taken.append(taken)
        self.stats += packed

    def in_order(self, entries: list[Any]) -> bytearray | None:
        """The buffer, when ``entries`` are exactly the folders added, in that order."""
        mine = self.entries
        if len(mine) != len(entries) or not all(map(operator.is_, mine, entries)):
            return None
        return self.stats

    def rows(self) -> Iterator[tuple[Any, str, int, slice]]:
        """Each folder's entry, where it is found first, whether it was taken from the
        store, and where its keys are in the buffer."""
        at = HEAD
        for entry, first, taken in zip(self.entries, self.firsts, self.taken, strict=True):
            end = at + RECORD * (2 + len(entry.attempt_dirs))
            yield entry, first, taken, slice(at, end)
            at = end

    def by_folder(self) -> dict[str, bytes | None]:
        """Each folder's packed keys, by its folder (when not every folder was read)."""
        return {row[0].folder: bytes(self.stats[row[3]]) for row in self.rows()}
