"""Every shape the store keeps, as typed records (msgspec Structs, msgpack on disk).

Decoding checks each record against its type (a wrong shape or type is a miss, never a
task problem), so no shape is checked by hand. Records are array-like (field order is
the format: the store version changes with any of them) and untracked by the cyclic
garbage collector (they hold no cycles).
"""

from __future__ import annotations

from sys import intern
from typing import Any

import msgspec

from inspector.results.layout import AttemptDirs

OPTIONS: dict[str, Any] = {"array_like": True, "frozen": True, "gc": False}
Observation = bool | int | float
Stat = tuple[int, int, int, int, int, int]
"""A file's key as git's index keeps it: device, inode, mode, size, mtime_ns, ctime_ns."""


class IssueRec(msgspec.Struct, **OPTIONS):
    severity: str
    phase: str
    code: str
    message: str


class AttemptRec(msgspec.Struct, **OPTIONS):
    index: int
    status: str
    metrics: dict[str, Observation]
    issues: tuple[IssueRec, ...]
    artifacts: dict[str, Any]


class TaskRec(msgspec.Struct, **OPTIONS):
    task_id: str
    category: Any
    plan_k: int
    plan_strategy: str
    attempts: tuple[AttemptRec, ...]
    retry_counts: dict[int, int]
    source: str  # ground_truth is not kept: it is read from here where shown (ON_DISK)


class ProblemRec(msgspec.Struct, **OPTIONS):
    path: str
    message: str
    rule: str
    blocking: bool


class EntryRec(msgspec.Struct, **OPTIONS):
    """A task folder's entry. ``numbers``: its ``attempt-N`` folders, else ``dirs``."""

    task_id: str | None
    folder: str
    state: str
    published: bool
    record: TaskRec | None
    numbers: tuple[int, ...] | None
    dirs: dict[int, str] | None
    problems: tuple[ProblemRec, ...]
    schema_version: str | None


Packed = bytes
"""A task folder's file keys, :data:`Stat` after :data:`Stat` (six little-endian 64-bit
integers each) of its folder, ``task.json`` and each attempt's ``result.json`` (by number)."""


class KeptEntry(msgspec.Struct, **OPTIONS):
    """A task folder in the task store: the keys of its files as read, where AgentCompass
    finds its name first, and its entry."""

    files: Packed
    first: str
    entry: EntryRec


class EntryHead(msgspec.Struct, **OPTIONS):
    """What of an :class:`EntryRec` says whether it may be used (its record not decoded)."""

    task_id: str | None
    folder: str
    state: str
    published: bool
    record: msgspec.Raw
    numbers: tuple[int, ...] | None
    dirs: dict[int, str] | None


class KeptHead(msgspec.Struct, **OPTIONS):
    """A :class:`KeptEntry` as far as it is needed to check it (the rest is skipped)."""

    files: Packed
    first: str
    entry: EntryHead


_SHARED: dict[tuple[Any, ...], dict[str, Any]] = {}
_SHARED_MAX = 4096


def shared(mapping: dict[str, Any]) -> dict[str, Any]:
    """One object for equal small mappings of booleans (an attempt's ``{"correct": true}``,
    an empty ``scoring_artifacts``): a large run holds hundreds of thousands of them, and
    nothing changes an attempt's mappings once it is read. Only booleans: values that
    compare equal across types (1, 1.0, True) would mix."""
    if len(mapping) > 4:
        return mapping
    for value in mapping.values():
        if type(value) is not bool:
            return mapping
    key = tuple(mapping.items())
    found = _SHARED.get(key)
    if found is None:
        if len(_SHARED) >= _SHARED_MAX:
            return mapping
        _SHARED[key] = found = mapping
    return found


_STATES = frozenset(("normal", "error", "fatal", "running", "v2"))


def task_entry(rec: EntryRec, folder: str | None = None) -> Any:
    """The TaskEntry of a record (None when its state is not one a folder can have).
    ``folder``: the folder string asked for (the entry keeps that one object)."""
    # The reader and the engine's model: only when an entry is made (an answer from the
    # store makes none).
    from inspector.engine.model import (
        NO_RETRIES,
        ON_DISK,
        Attempt,
        Issue,
        TaskRecord,
        alike_attempts,
    )
    from inspector.results.problems import LoadProblem
    from inspector.results.tasks import TaskEntry

    if rec.state not in _STATES:
        return None
    folder = rec.folder if folder is None else folder
    record = None
    r = rec.record
    if r is not None:
        # Values many tasks repeat (statuses, the strategy, categories) are one object.
        category = intern(r.category) if type(r.category) is str else r.category
        record = TaskRecord(
            r.task_id,
            category,
            r.plan_k,
            intern(r.plan_strategy),
            alike_attempts(
                {
                    a.index: Attempt(
                        a.index,
                        intern(a.status),
                        shared(a.metrics),
                        tuple([Issue(i.severity, i.phase, i.code, i.message) for i in a.issues])
                        if a.issues
                        else (),
                        shared(a.artifacts),
                    )
                    for a in r.attempts
                }
            ),
            r.retry_counts or NO_RETRIES,
            ON_DISK,
            r.source,
        )
    dirs: Any = AttemptDirs(folder, rec.numbers) if rec.numbers is not None else rec.dirs or {}
    problems = [LoadProblem(p.path, p.message, p.rule, p.blocking) for p in rec.problems]
    task_id = rec.task_id
    if record is not None and record.task_id == task_id:
        task_id = record.task_id  # one string for both (decoded apart)
    return TaskEntry(
        task_id,
        folder,
        intern(rec.state),
        rec.published,
        record,
        dirs,
        problems,
        intern(rec.schema_version) if rec.schema_version is not None else None,  # one object
    )


WARNING_PREFIX = "inspector: warning: "
NOTE_PREFIX = "inspector: note: "


class Outputs(msgspec.Struct, **OPTIONS):
    """What ``report`` and ``check`` print for a run: ``warnings`` ``(relative path,
    message)``, then ``notes`` (whole lines), on stderr. ``summary_markdown`` None:
    made when asked (:meth:`markdown`) from ``metrics_json`` and ``names`` (model and
    benchmark ids), as rendering it loads tabulate, which most commands never need."""

    warnings: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]
    metrics_json: str
    summary_markdown: str | None
    stored_metrics_text: str | None  # the stored metrics.json when it is a readable object
    tasks: int
    names: tuple[str, str] = ("", "")

    def markdown(self) -> str:
        """summary.md: as kept, else rendered from the report in ``metrics_json`` (JSON
        keeps every float and the order)."""
        if self.summary_markdown is not None:
            return self.summary_markdown
        import json

        from inspector.engine.render import render_summary_markdown
        from inspector.engine.serialize import report_from_json

        model, benchmark = self.names
        report = report_from_json(json.loads(self.metrics_json))
        return render_summary_markdown(model, benchmark, report)


class RunLevel(msgspec.Struct, **OPTIONS):
    """What was read of a run's run-level files (a reopen whose run-level files are
    unchanged takes them from here: run_info.json can be hundreds of megabytes)."""

    run_info: dict[str, Any] | None
    params: dict[str, Any] | None
    metrics: dict[str, Any] | None
    metrics_text: str | None
    summary: str | None
    problems: tuple[ProblemRec, ...]


class Column(msgspec.Struct, array_like=True, gc=False):
    values: list[float | int | None]
    states: list[str | None]
    errors: list[bool | None]


class Table(msgspec.Struct, array_like=True, gc=False):
    """A run's score table under one plan: per task folder in listing order, the task id
    it was read as, whether its task is the one scored for that id, its category key, its
    load problems and, per series, the fields of its reduction the report is aggregated
    from."""

    level: RunLevel
    series: tuple[str, ...]
    ids: list[str | None]
    won: list[bool]
    cats: list[str | None]
    probs: list[tuple[ProblemRec, ...]]
    columns: list[Column]

    def fits(self, count: int) -> bool:
        """Whether the table has ``count`` rows in every column, one column per series,
        and only the engine's states."""
        from inspector.engine.vocabulary import STATES

        known = {*STATES, None}
        if any(not known.issuperset(column.states) for column in self.columns):
            return False
        rows = (self.ids, self.won, self.cats, self.probs)
        return (
            len(self.columns) == len(self.series)
            and all(len(row) == count for row in rows)
            and all(len(c.values) == len(c.states) == len(c.errors) == count for c in self.columns)
        )


class Index(msgspec.Struct, **OPTIONS):
    """The files a report was computed from: a digest of the task folder listing, each
    entry's attempt numbers (-1: ``running/``) and the :data:`Stat` of every file, packed
    (as read from the store: a view of the file's bytes, not a copy: 240 MB at 1M tasks)."""

    listing: bytes
    attempts: tuple[tuple[int, ...] | int, ...]
    stats: memoryview


class Refusal(msgspec.Struct, **OPTIONS):
    """Why a run could not be scored under a plan, without the run's path: the line is
    ``{path / rel}: {message}``, said after ``warnings`` (as in :class:`Outputs`);
    ``status``: run_info.json's ``status`` (a string or null) as its one item, else empty."""

    rel: str
    message: str
    warnings: tuple[tuple[str, str], ...]
    status: tuple[str | None, ...]

    def line(self, path: Any) -> str:
        from pathlib import Path

        return f"{Path(path) / self.rel}: {self.message}"


class Report(msgspec.Struct, **OPTIONS):
    """A run's report store: its index, and for that state of its files the outputs
    under each plan (or why the run could not be scored under it: ``refused``), the
    further answers kept with them, and the score tables."""

    root: str
    index: Index
    outputs: dict[str, Outputs]
    answers: dict[str, tuple[float, ...]]
    tables: dict[str, msgspec.Raw]
    refused: dict[str, Refusal]
    records: dict[str, msgspec.Raw] = {}
    """Further answers that are not plain numbers (``items``' task outcomes, the gate's
    facts), each encoded from its caller's typed record and decoded by that type."""


def problem_rec(p: Any) -> ProblemRec:
    return ProblemRec(p.path, p.message, p.rule, p.blocking)


def load_problem(p: ProblemRec) -> Any:
    from inspector.results.problems import LoadProblem

    return LoadProblem(p.path, p.message, p.rule, p.blocking)


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
                        tuple([IssueRec(i.severity, i.phase, i.code, i.message) for i in a.issues]),
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


ENCODER = msgspec.msgpack.Encoder()
_DECODERS: dict[Any, Any] = {}


def decoder(kind: Any) -> Any:
    found = _DECODERS.get(kind)
    if found is None:
        found = _DECODERS[kind] = msgspec.msgpack.Decoder(kind)
    return found


def decoded(kind: Any, raw: Any) -> Any:
    """``raw`` (msgpack) decoded as ``kind``, or None when it is not one."""
    try:
        return decoder(kind).decode(raw)
    except (ValueError, TypeError):  # msgspec.DecodeError and ValidationError are ValueErrors
        return None
