"""Tasks and errors across every run under a results root: ``inspector items``,
``inspector errors`` and the tasks-across-runs screen.

Each run is opened through the one door (:mod:`inspector.loading`), in worker processes,
and reduced there to what the answer needs: a :class:`~inspector.views.items.RunTasks` (the
engine's headline reductions and how each attempt ended) or its issues as
:class:`~inspector.views.fingerprints.Occurrence` records. The parent puts them together.
``items`` keeps each run's reduction in the store beside its report
(:class:`~inspector.answers.kept.KeptItems`, with what the other root commands need):
an unchanged run is answered from there, none of its files read; ``errors`` reads every
file (as ``check ROOT`` does) and keeps nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from inspector import loading
from inspector.answers.kept import (
    ITEMS_QUESTION,
    STATISTICS,
    KeptItems,
    items_record,
    not_finished,
    root_answers,
)
from inspector.answers.run import say_root
from inspector.engine.model import Issue
from inspector.overrides import Overrides
from inspector.results.layout import RUN_FILE_MAX_BYTES
from inspector.results.lazy import RetryRecord
from inspector.results.problems import RULE_ISSUE
from inspector.results.reader import OnProgress
from inspector.results.root_walk import cannot_read, walk_root
from inspector.results.run_files import RunFiles
from inspector.views.attribution import load_retry_records
from inspector.views.fingerprints import Fingerprints, Occurrence, occurrences
from inspector.views.items import RunTasks, TaskOutcome

Say = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Skipped:
    """A run left out, and why (one line naming it)."""

    run: str
    reason: str


def _open(
    path: str, shown_as: str, overrides: Overrides, *, fresh: bool = True
) -> loading.Loaded | Skipped:
    try:
        result = loading.read(path, overrides, fresh=fresh)
    except Exception as exc:  # never a traceback for bad data
        if os.environ.get("INSPECTOR_DEBUG"):
            raise
        return Skipped(shown_as, f"{type(exc).__name__}: {exc}")
    if isinstance(result, loading.Failed):
        return Skipped(shown_as, result.message)
    assert isinstance(result, loading.Loaded)
    return result


def _answer(kept: KeptItems, shown_as: str) -> RunTasks | Skipped:
    """The answer a kept record gives for the run shown as ``shown_as``."""
    if kept.skipped is not None:
        return Skipped(shown_as, kept.skipped)
    tasks = tuple(TaskOutcome(*msgspec.structs.astuple(task)) for task in kept.tasks)
    return RunTasks(shown_as, kept.model, kept.benchmark, kept.plan, kept.binary, tasks)


def items_call(path: str, shown_as: str, overrides: Overrides) -> RunTasks | Skipped:
    """One run reduced for the tasks-across-runs rows (in a worker process): from the store
    when the run is unchanged since its answer was kept, else read (its unchanged task
    folders from the store) and kept, with its report and what the other commands over a
    root answer from (:func:`~inspector.answers.kept.root_answers`)."""
    kept = loading.kept(path, overrides, ITEMS_QUESTION, KeptItems)
    if isinstance(kept, KeptItems):
        return _answer(kept, shown_as)
    found: dict[str, Any] = {}
    try:
        answered = loading.answer(path, overrides, also=root_answers(overrides, found))
    except Exception as exc:  # never a traceback for bad data
        if os.environ.get("INSPECTOR_DEBUG"):
            raise
        return Skipped(shown_as, f"{type(exc).__name__}: {exc}")
    made = found.get(ITEMS_QUESTION)
    if isinstance(made, KeptItems):
        return _answer(made, shown_as)
    if isinstance(answered, loading.Failed):
        return Skipped(shown_as, answered.message)
    if isinstance(answered, loading.Refused) and answered.status:  # as items_record tells
        unfinished = not_finished(answered.status[0])
        if unfinished is not None:
            return _answer(unfinished, shown_as)
        return Skipped(shown_as, f"cannot be recomputed: {answered.refusal}")
    # Its report from the store without this answer, or a run not scored as asked: read.
    loaded = answered if isinstance(answered, loading.Loaded) else None
    loaded = loaded or _open(path, shown_as, overrides, fresh=False)
    if isinstance(loaded, Skipped):
        return loaded
    session = loaded.session
    made = items_record(session)
    if made is None:  # not kept: the reason names files under the path given
        return Skipped(shown_as, f"cannot be recomputed: {loaded.refusal or session.refusal}")
    loading.keep(session, overrides, ITEMS_QUESTION, made)
    return _answer(made, shown_as)


class RunIssues(NamedTuple):
    """One run's issues, and a line naming each file whose issues the reader does not know."""

    found: list[Occurrence]
    unknown: list[str]


def errors_call(path: str, shown_as: str, overrides: Overrides) -> RunIssues | Skipped:
    """Every issue of one run's attempts and retry records (in a worker process)."""
    loaded = _open(path, shown_as, overrides)
    if isinstance(loaded, Skipped):
        return loaded
    run = loaded.session.run
    retry: dict[str, list[tuple[int, Issue]]] = {}
    for task_id, records in load_retry_records(run, run.tasks).items():
        for record in records:
            if isinstance(record, RetryRecord):
                for issue in record.issues:
                    retry.setdefault(task_id, []).append((record.attempt or 0, issue))
    found = occurrences(shown_as, run.tasks, retry)
    unknown = []
    tasks = {entry.folder: entry.task_id for entry in run.entries}
    for problem in run.problems:
        if problem.rule != RULE_ISSUE:
            continue
        task_id = tasks.get(problem.path.rsplit("/", 2)[0]) or problem.path
        found += _as_written(run.path, problem.path, shown_as, task_id)
        unknown.append(f"{shown_as}/{problem.path}: {problem.message} (counted as written)")
    return RunIssues(found, unknown)


def _as_written(run: Path, rel: str, shown_as: str, task_id: str) -> list[Occurrence]:
    """The issues of an attempt file the reader refused for an issue it does not know (an
    unknown phase or severity: AgentCompass refuses the task, ``check`` the run): every
    issue with a text phase, code and message, as written."""
    value, _, _ = RunFiles(run).read_json(
        rel, strict=True, blocking=False, max_bytes=RUN_FILE_MAX_BYTES
    )
    issues = value.get("issues") if isinstance(value, dict) else None
    attempt = re.search(r"attempt-(\d+)/[^/]+$", rel)
    number = int(attempt.group(1)) if attempt else 0
    return [
        Occurrence(shown_as, task_id, number, item["phase"], item["code"], item["message"])
        for item in (issues if isinstance(issues, list) else [])
        if isinstance(item, dict)
        and all(isinstance(item.get(key), str) for key in ("phase", "code", "message"))
    ]


class RunFingerprints(NamedTuple):
    """One run's issues grouped by fingerprint, and :class:`RunIssues`' unknown-issue lines."""

    grouped: Fingerprints
    unknown: list[str]


def fingerprints_call(path: str, shown_as: str, overrides: Overrides) -> RunFingerprints | Skipped:
    """One run's issues grouped by fingerprint (in a worker process: its messages stay there)."""
    found = errors_call(path, shown_as, overrides)
    if isinstance(found, Skipped):
        return found
    grouped = Fingerprints().add(found.found)
    grouped.add_run(shown_as)
    return RunFingerprints(grouped.seal(), found.unknown)


def runs_at(path: str) -> list[tuple[str, str]]:
    """``(path, shown as)`` of every run at or under ``path`` (a run is shown by its folder
    name, the runs of a root by their path under it).

    Raises:
        RunReadError: ``path`` is not a readable directory.
    """
    return _walked(path)[0]


def _walked(
    path: str, say: Callable[[str], None] | None = None
) -> tuple[list[tuple[str, str]], list[Skipped]]:
    """:func:`runs_at`, and each folder that could not be read as a run left out; a link
    out of the root, not followed, is said to ``say``."""
    walk = walk_root(path)
    for line in walk.link_lines(path) if say is not None else ():
        say(line)
    found = []
    for _, relative in walk.runs:
        shown = os.path.basename(os.path.abspath(path)) if relative in ("", ".") else relative
        found.append((os.path.join(path, relative), shown))
    return found, [Skipped(rel, cannot_read(reason)) for rel, reason in walk.unreadable]


def over_runs(
    function: Callable[[str, str, Overrides], object],
    runs: Sequence[tuple[str, str]],
    overrides: Overrides,
    progress: OnProgress | None = None,
) -> list[object]:
    """``function`` over ``runs`` in worker processes, in order; ``progress(done, total)``."""
    calls = [(path, shown, overrides) for path, shown in runs]
    preload = STATISTICS if function is items_call else ()
    return loading.audit(function, calls, progress=progress, preload=preload)


def root_items(
    path: str, overrides: Overrides, progress: OnProgress | None = None, say: Say = say_root
) -> tuple[list[RunTasks], list[Skipped]]:
    """Every finished run at or under ``path`` reduced for the rows, and the runs (and
    unreadable folders) left out."""
    runs, unreadable = _walked(path, say)
    answers = over_runs(items_call, runs, overrides, progress)
    return (
        [a for a in answers if isinstance(a, RunTasks)],
        [a for a in answers if isinstance(a, Skipped)] + unreadable,
    )


def root_fingerprints(
    path: str, overrides: Overrides, progress: OnProgress | None = None, say: Say = say_root
) -> tuple[Fingerprints, list[Skipped]]:
    """The fingerprints of every run at or under ``path`` (grouped run by run in the worker
    processes, merged here), and the runs (and folders) that could not be read; each file
    whose issues the reader does not know is said to ``say``."""
    runs, unreadable = _walked(path, say)
    answers = over_runs(fingerprints_call, runs, overrides, progress)
    merged = Fingerprints()
    for answer in answers:
        if isinstance(answer, RunFingerprints):
            merged.merge(answer.grouped)
            for line in answer.unknown:
                say(line)
    return merged, [a for a in answers if isinstance(a, Skipped)] + unreadable


def stream_items(
    runs: Sequence[tuple[str, str]],
    overrides: Overrides,
    *,
    cancelled: Callable[[], bool] = lambda: False,
) -> Iterator[list[RunTasks | Skipped]]:
    """:func:`items_call` for ``(path, shown as)`` runs in the app's shared reader
    processes, in batches as they are done (in no particular order)."""

    def failed(index: int, exc: BaseException) -> Skipped:
        return Skipped(runs[index][1], f"{type(exc).__name__}: {exc}")

    calls = [(path, shown, overrides) for path, shown in runs]
    for batch in loading.audit_in_app(items_call, calls, failed=failed, cancelled=cancelled):
        yield [answer for _, answer in batch]
