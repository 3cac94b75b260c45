"""Reports of unchanged runs, kept in the user's cache directory (issue 6).

Reopening an unchanged run should not read and score it again. After a run is scored, what
the command printed (the report as metrics.json and summary.md, the warnings) is stored
beside the task cache, keyed by the run's real path, with the run's
:class:`~inspector.loading.snapshot.Snapshot` and a signature of the inspector's own code.
A lookup returns it only when the snapshot still matches the files (one listing and one
``lstat`` per file) and the code is the same; anything else is a miss and the run is read
as usual. Plans given as files (``--hierarchy``, ``--contract``) are never cached.
``INSPECTOR_CACHE=0`` disables this with the task cache. Nothing is ever written under a run.
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from inspector.loading import snapshot as snapshots
from inspector.loading import task_cache
from inspector.loading.cache_files import code_signature
from inspector.loading.processes import in_shared_pool, preload_in_readers
from inspector.overrides import Overrides
from inspector.results.file_io import stat_key

if TYPE_CHECKING:  # pragma: no cover
    from inspector.results.reader import Run
    from inspector.session import Session

preload_in_readers(__name__)  # its lookups and code_signature run in the reader processes

FORMAT = 4
WARNING_PREFIX = "inspector: warning: "
NOTE_PREFIX = "inspector: note: "


class Outputs(NamedTuple):
    """What ``report`` and ``check`` print for a run (a named tuple: cheaper to define than
    a dataclass, and every command imports this module).

    ``warnings`` are ``(relative path, message)`` (printed under the path the user gave),
    ``notes`` whole lines; both go to stderr, warnings first. ``summary_markdown`` None:
    summary.md is made when asked (:meth:`markdown`), from ``metrics_json`` and ``names``
    (the plan's model and benchmark ids): rendering it loads tabulate, and with it
    importlib.metadata (~60 ms), which ``report --json``, ``check`` and the app never need.
    """

    warnings: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]
    metrics_json: str
    summary_markdown: str | None
    stored_metrics_text: str | None  # the stored metrics.json when it is a readable object
    tasks: int
    names: tuple[str, str] = ("", "")

    def markdown(self) -> str:
        """summary.md: as kept, else rendered from the report in ``metrics_json`` (the
        report it was written from, exactly: JSON keeps every float and the order)."""
        if self.summary_markdown is not None:
            return self.summary_markdown
        # Only here: tabulate and importlib.metadata (~60 ms) for --markdown alone.
        from inspector.engine.render import render_summary_markdown
        from inspector.engine.serialize import report_from_json

        model, benchmark = self.names
        report = report_from_json(json.loads(self.metrics_json))
        return render_summary_markdown(model, benchmark, report)

    def stderr_lines(self, path: str | Path) -> list[str]:
        lines = [f"{WARNING_PREFIX}{Path(path) / rel}: {message}" for rel, message in self.warnings]
        return lines + list(self.notes)

    def as_data(self) -> tuple[Any, ...]:
        return tuple(self)  # marshal takes plain tuples only

    @classmethod
    def from_data(cls, data: Any) -> Outputs | None:
        """The outputs in ``data``, or None when it does not have the shape and types
        :meth:`as_data` gives (a malformed cache entry is a miss, checked before use)."""
        try:
            outputs = cls(*data)
        except TypeError:
            return None
        warnings, notes = outputs.warnings, outputs.notes
        if not (
            type(warnings) is tuple
            and all(
                type(w) is tuple and len(w) == 2 and all(type(part) is str for part in w)
                for w in warnings
            )
            and type(notes) is tuple
            and all(type(note) is str for note in notes)
            and type(outputs.metrics_json) is str
            and (outputs.summary_markdown is None or type(outputs.summary_markdown) is str)
            and type(outputs.names) is tuple
            and len(outputs.names) == 2
            and all(type(name) is str for name in outputs.names)
            and (outputs.stored_metrics_text is None or type(outputs.stored_metrics_text) is str)
            and type(outputs.tasks) is int
        ):
            return None
        return outputs


def outputs_of(session: Session, notes: list[str]) -> Outputs:
    """The outputs of a scored session (``notes``: the derived-plan notes printed)."""
    run = session.run
    assert session.recomputation is not None
    plan = session.recomputation.plan
    return Outputs(
        warnings=tuple((p.path, p.message) for p in run.problems if not p.blocking),
        notes=tuple(notes),
        metrics_json=session.metrics_json(),
        # A derived plan's summary.md has a heading of its own: made now.
        summary_markdown=session.summary_markdown() if plan.derived else None,
        stored_metrics_text=run.stored_metrics_text if run.stored_metrics is not None else None,
        tasks=len(run.tasks),
        names=(plan.model_id, plan.benchmark_id),
    )


def key_for(overrides: Overrides | None, command: str) -> str | None:
    """The cache key of one command and plan, or None when it cannot be cached."""
    if overrides is None:
        overrides = Overrides()
    if overrides.hierarchy is not None or overrides.contract is not None:
        return None
    plan = [overrides.k, overrides.strategy, overrides.aggregation, overrides.benchmark_id]
    return json.dumps([command, plan])


def own_plan_key(overrides: Overrides | None) -> str | None:
    """The key of the run's own plan (None for any other plan): what the app caches and
    may show early."""
    if overrides not in (None, Overrides()):
        return None
    return key_for(None, "outputs")


def cache_file(run_root: Path, folder: Path | None = None) -> Path:
    """Where the run's reports are kept (beside its task cache; ``folder``: the cache
    folder, else the user's)."""
    return task_cache.cache_file(run_root, folder).with_suffix(".report.marshal")


_last: tuple[Any, Any] = (None, None)
"""The last file :func:`_load` took apart (its path and stat key) and what it held: storing
after a lookup in the same process does not load and check it again."""


Loaded = tuple[snapshots.Snapshot, dict[str, Any], bytes]
"""A report cache file taken apart: the snapshot, the outputs per key and, as marshal
bytes (taken apart only when needed), the score tables per key
(:mod:`inspector.loading.score_table`)."""


def _load(run_root: Path, folder: Path | None = None) -> Loaded | None:
    global _last
    path = cache_file(run_root, folder)
    try:
        seen = (str(path), stat_key(os.stat(path)))
    except OSError:
        return None
    if _last[0] == seen:
        return _last[1]  # type: ignore[no-any-return]
    loaded = _load_file(path, run_root)
    _last = (seen, loaded)
    return loaded


def _load_file(path: Path, run_root: Path) -> Loaded | None:
    data = _load_data(path, run_root)
    if data is None:
        return None
    _, _, _, snap, outputs, tables = data
    snapshot = snapshots.Snapshot.from_data(snap)
    if snapshot is None or type(outputs) is not dict or type(tables) is not bytes:
        return None
    return snapshot, outputs, tables


def _load_data(path: Path, run_root: Path) -> tuple[Any, ...] | None:
    """The cache file's data when it is this version's, for this run and this code."""
    data = task_cache.load_marshal(path)
    if type(data) is not tuple or len(data) != 6:
        return None
    if data[:3] != (FORMAT, os.path.realpath(run_root), code_signature()):
        return None
    return data


def lookup(run_root: Path, key: str | None, *, shared: bool = False) -> Any | None:
    """What was stored under ``key`` for this run, if the run has not changed since.

    ``shared``: the caller has threads (the app): the check (a listing and one ``lstat``
    per file) runs in one of its shared reader processes, so it does not compete with the
    interface thread for the interpreter.
    """
    if key is None or not task_cache.enabled():
        return None
    if shared:
        # The reader processes were started earlier: tell them where the cache is now.
        answers = in_shared_pool(_lookup_in, [(task_cache.cache_dir(), Path(run_root), key)])
        if answers is not None:
            return answers[0]
    return _lookup_in(None, run_root, key)


def peek(run_root: Path, key: str | None) -> Any | None:
    """What was stored under ``key`` for this run, NOT checked against the run's files
    (the app's first preview, shown as not yet checked while :func:`lookup` checks them:
    at 50,000 tasks the check is 250,000 ``lstat`` calls, over a second)."""
    if key is None or not task_cache.enabled():
        return None
    # Not _load: its snapshot is not needed here, and taking it apart is half the time
    # at 50,000 tasks (0.06-0.15 s measured, of 0.25-0.32 s).
    data = _load_data(cache_file(run_root), run_root)
    outputs = data[4] if data is not None else None
    return outputs.get(key) if type(outputs) is dict else None


def lookup_checked(run_root: Path, key: str | None) -> tuple[Any | None, snapshots.Checked | None]:
    """:func:`lookup` in this process, with what its check found when the run changed in
    a few files (for the task cache of the read that follows at once: the files found
    unchanged need no second ``lstat``)."""
    if key is None or not task_cache.enabled():
        return None, None
    found: list[snapshots.Checked] = []
    outputs = _lookup_in(None, run_root, key, found.append)
    return outputs, (found[0] if found and outputs is None else None)


def _lookup_in(
    folder: Path | None,
    run_root: Path,
    key: str,
    on_changes: Callable[[snapshots.Checked], None] | None = None,
) -> Any | None:
    """:func:`lookup` in the cache ``folder`` (None: the user's); ``on_changes`` gets
    what a check that found changed files found."""
    name = os.path.abspath(run_root)
    outputs = _held.runs.get(name)
    if outputs is _UNSEEN or name not in _held.runs:
        loaded = _load(run_root, folder)
        if loaded is None or key not in loaded[1]:
            return None  # nothing to check the files for
        snapshot, outputs, tables = loaded
        found = snapshots.check(run_root, snapshot)
        if found is None or found.changed:
            outputs = None
            if found is not None and on_changes is not None:
                on_changes(found._replace(tables=tables))
        if name in _held.runs:
            _held.runs[name] = outputs
    return outputs.get(key) if outputs is not None else None


class _Held(threading.local):
    runs: dict[str, Any]

    def __init__(self) -> None:
        self.runs = {}


_held = _Held()
_UNSEEN = object()


@contextlib.contextmanager
def held(run_root: Path) -> Iterator[None]:
    """Within the block, every lookup for the run answers from one check of its files
    (the first lookup's), so that several answers (the runs screen's check and headline
    interval) are of one and the same state of the run. A store starts a new check."""
    name = os.path.abspath(run_root)
    _held.runs[name] = _UNSEEN
    try:
        yield
    finally:
        _held.runs.pop(name, None)


def store(
    run: Run, key: str | None, value: Any, table: Any = None, extra: dict[str, Any] | None = None
) -> None:
    """Remember ``value`` (plain data) under ``key`` for the run as it was read, and
    ``table`` (its score table, plain data) when there is one; ``extra``: more values
    under their own keys, for the same state of the run, in the same write."""
    if key is None or not task_cache.enabled():
        return
    snapshot = snapshots.take(run)
    if snapshot is not None:
        store_snapshot(run.path, snapshot, key, value, table, extra)


def store_snapshot(
    run_root: Path,
    snapshot: snapshots.Snapshot,
    key: str,
    value: Any,
    table: Any = None,
    extra: dict[str, Any] | None = None,
) -> None:
    """:func:`store` for a run whose files are as ``snapshot`` says: what else is kept
    for the same snapshot stays."""
    loaded = _load(run_root)
    outputs: dict[str, Any] = {}
    tables: Any = {}
    kept: bytes | None = None
    if loaded is not None and loaded[0] == snapshot:
        outputs = dict(loaded[1])
        if table is None and key not in outputs:
            # A table is stored only with its outputs, so none is under ``key``: the
            # tables stay as bytes: taking them apart and putting them back was most of
            # the runs screen's interval store (2.8 ms a store against 0.6-0.8 ms, for a
            # run of 200 tasks at k=3).
            kept = loaded[2]
        else:
            with contextlib.suppress(EOFError, ValueError, TypeError):
                tables = marshal.loads(loaded[2])
            if type(tables) is not dict:
                tables = {}
    outputs[key] = value
    if extra:
        outputs.update(extra)
    if kept is None:
        tables.pop(key, None)
        if table is not None:
            tables[key] = table
    if os.path.abspath(run_root) in _held.runs:
        _held.runs[os.path.abspath(run_root)] = _UNSEEN
    task_cache.write_atomically(
        cache_file(run_root),
        (
            FORMAT,
            os.path.realpath(run_root),
            code_signature(),
            snapshot.as_data(),
            outputs,
            marshal.dumps(tables) if kept is None else kept,
        ),
    )
