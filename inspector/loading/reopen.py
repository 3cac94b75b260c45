"""Reopening a run after a few task folders changed: its report from its score table
(:func:`table_of`), only the changed folders read again and
reduced, the rest taken from the table's rows, aggregated by the engine and kept with the
new index and table. Only when that is exactly what reading everything would give (the
run-level files unchanged, no benchmark formula over the attempts, no folder changing which
task is scored); else ``None``, and the run is read as usual.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import operator
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.engine.aggregation import TaskOutcome, category_key
from inspector.engine.benchmarks import OVERRIDES
from inspector.engine.errors import EngineError
from inspector.engine.hierarchy import parse_hierarchy
from inspector.engine.model import TaskRecord
from inspector.engine.recomputation import check_plans, standard_report
from inspector.engine.report import dumps_metrics_json, validate_report
from inspector.loading import index as snapshots
from inspector.loading import reports
from inspector.loading.records import (
    Column,
    Index,
    Outputs,
    ProblemRec,
    RunLevel,
    Table,
    decoded,
    load_problem,
    problem_rec,
)
from inspector.results.layout import TASK_STATES
from inspector.results.listing import RUN_FILES
from inspector.results.problems import LoadProblem
from inspector.results.reader import Run, TaskCollector, first_locations
from inspector.results.run_files import RunFiles
from inspector.results.tasks import TaskEntry, load_running
from inspector.results.validate import BUILTIN_STRATEGIES

if TYPE_CHECKING:  # pragma: no cover
    from inspector.overrides import Overrides
    from inspector.session import Session


def answer(
    path: Path | str, key: str, overrides: Overrides | None, checked: snapshots.Checked
) -> tuple[Outputs, int, int] | None:
    """The report of the run at ``path`` (as the user named it) under ``key`` when only
    the task folders in ``checked`` changed, from its score table, with how many of how
    many task folders were read again; None when that cannot be told exactly this way."""
    snapshot = checked.snapshot
    if overrides is not None and (overrides.k is not None or overrides.strategy is not None):
        return None  # a derived plan
    if snapshot is None or not checked.tables or not checked.listing:
        return None
    candidates, running, listing_problems = checked.listing
    count = len(candidates)
    starts = _starts(snapshot)
    changed = _changed_entries(starts, checked.changed, count)
    if changed is None:
        return None
    table = table_in(checked.tables, key, count)
    if table is None:
        return None
    root = Path(os.path.abspath(path))
    files = RunFiles(root)
    run = _level_run(root, table.level)  # the run-level files are unchanged
    from inspector.engine.reduction_stream import PlannedStream
    from inspector.resolve import reduction_stream

    stream = reduction_stream(run, overrides)
    if not isinstance(stream, PlannedStream) or stream.overrides != overrides:
        return None
    plan = stream.plan
    if plan.benchmark_id in OVERRIDES:
        return None
    if stream.series_ids != table.series:
        return None
    fence = time.time_ns()  # before the changed folders are read: see store.is_racy
    fresh = _read_again(files, candidates, running, changed)
    scored = _merge(run, table, fresh)
    if scored is None:
        return None
    tasks = [fresh[i][0].record for i in scored if i in fresh]
    stream.add(tasks)  # type: ignore[arg-type]
    if stream.failed:
        return None
    try:
        check_plans(tasks, plan)  # type: ignore[arg-type]
        outcomes, keys = _outcomes(table, scored, fresh, stream.by_series)
        report = standard_report(plan, outcomes, keys, parse_hierarchy(plan.hierarchy))
        validate_report(report)
    except (EngineError, KeyError, TypeError, ValueError):
        return None
    at = {i: j for j, i in enumerate(scored) if i in fresh}
    for i, (entry, _) in fresh.items():  # the rows of the folders read again
        j = at.get(i)
        if j is None:
            set_row(table, i, entry)
        else:
            set_row(table, i, entry, keys[j], [outcomes[s][j] for s in table.series])
    problems = list(run.problems)
    problems += [LoadProblem(*p) for p in listing_problems]
    # In folder order: the folders with problems (few) and those read again.
    for i in sorted(fresh.keys() | set(itertools.compress(range(count), table.probs))):
        if i in fresh:
            problems += fresh[i][0].problems
        else:
            problems += [load_problem(p) for p in table.probs[i]]
    for folder in running:
        problems += load_running(files, folder).problems
    if any(problem.blocking for problem in problems):
        return None
    from inspector.loading.reading import guessed_contract_warning

    outputs = Outputs(
        warnings=tuple((p.path, p.message) for p in problems),
        notes=tuple(guessed_contract_warning(path, plan.sources.get("contract", ""))),
        metrics_json=dumps_metrics_json(report),
        summary_markdown=None,  # made when asked, from metrics_json
        stored_metrics_text=run.stored_metrics_text if run.stored_metrics is not None else None,
        tasks=len(scored),
        names=(plan.model_id, plan.benchmark_id),
    )
    _store(root, key, outputs, snapshot, starts, table, fresh, fence)
    return outputs, len(fresh), count + len(running)


def _level_run(root: Path, level: RunLevel) -> Run:
    """The run as its run-level files were read (:func:`table_of`)."""
    run = Run(path=root, run_info=level.run_info, params=level.params, stored_metrics=level.metrics)
    run.stored_metrics_text, run.stored_summary = level.metrics_text, level.summary
    run.problems = [load_problem(p) for p in level.problems]
    return run


def _starts(snapshot: Any) -> list[int]:
    """Where each entry's files begin among the snapshot's files."""
    sizes = snapshots.files_per_entry(snapshot.attempts)
    return list(itertools.accumulate(sizes[:-1], initial=len(RUN_FILES)))


def _pick(items: Any, positions: list[int]) -> list[Any]:
    """``[items[p] for p in positions]``, in C."""
    if len(positions) < 2:
        return [items[p] for p in positions]
    return list(operator.itemgetter(*positions)(items))


def _changed_entries(starts: list[int], changed: frozenset[int], count: int) -> list[int] | None:
    """The task folders (positions among the candidates) with a changed file; None when a
    run-level file or a ``running/`` folder changed."""
    if not changed or min(changed) < len(RUN_FILES) or not starts:
        return None
    entries = sorted({bisect.bisect_right(starts, at) - 1 for at in changed})
    if entries[-1] >= count:
        return None
    return entries


def _read_again(
    files: RunFiles, candidates: tuple[Any, ...], running: tuple[str, ...], changed: list[int]
) -> dict[int, tuple[TaskEntry, Any]]:
    """The changed folders read again, each with its files' keys as read, packed."""
    from inspector.loading.readers import _read_one

    everything = set(running)
    everything.update(map(operator.itemgetter(0), candidates))
    places = []
    for name in {candidates[i][0].rpartition("/")[2] for i in changed}:
        places += [f"details/{state}/{name}" for state in TASK_STATES]
        places.append(f"details/{name}")  # a v2 folder
    # Where AgentCompass finds each name first, among the folders of that name.
    first = first_locations([place for place in places if place in everything])
    out = {}
    for i in changed:
        folder, state = candidates[i]
        name = folder.rpartition("/")[2]
        out[i] = _read_one(files, folder, state, first[name], BUILTIN_STRATEGIES)
    return out


def _merge(run: Run, table: Table, fresh: dict[int, tuple[TaskEntry, Any]]) -> list[int] | None:
    """The positions of the folders whose tasks are scored, in order (the first of each
    task id, as :class:`TaskCollector` takes them); None when an unchanged folder's part
    would differ from what the table says.

    Only the folders sharing a task id with a folder read again (as it was or as it is)
    can change their part: they are taken again one by one, the rest as the table says."""
    ids, won = table.ids, table.won
    touched = {ids[i] for i in fresh}
    touched.update(entry.record.task_id for entry, _ in fresh.values() if entry.record is not None)
    touched.discard(None)
    collector = TaskCollector(run)
    seen = collector.seen
    taken = []
    for i in sorted(fresh.keys() | {i for i, task_id in enumerate(ids) if task_id in touched}):
        if i in fresh:
            if collector.take([fresh[i][0]]):
                taken.append(i)
            continue
        task_id = ids[i]
        wins = task_id not in seen
        if wins != won[i]:
            return None
        if wins:
            seen.add(task_id)
            taken.append(i)
    kept = [i for i in itertools.compress(range(len(ids)), won) if ids[i] not in touched]
    return sorted(kept + taken)


def _outcomes(
    table: Table,
    scored: list[int],
    fresh: dict[int, tuple[TaskEntry, Any]],
    reduced: dict[str, list[Any]],
) -> tuple[dict[str, list[Any]], list[str]]:
    """Per series, the outcome of every scored task, and their category keys."""
    keys = _pick(table.cats, scored)
    again = [(j, i) for j, i in enumerate(scored) if i in fresh]
    for j, i in again:
        record: TaskRecord = fresh[i][0].record  # type: ignore[assignment]
        keys[j] = category_key(record.category)
    if None in keys:
        raise ValueError("a scored task without its category")
    make = functools.partial(tuple.__new__, TaskOutcome)
    out: dict[str, list[Any]] = {}
    for series_id, column in zip(table.series, table.columns, strict=True):
        picked = [
            _pick(column.values, scored),
            _pick(column.states, scored),
            _pick(column.errors, scored),
        ]
        for (j, _), reduction in zip(again, reduced[series_id], strict=True):
            picked[0][j], picked[1][j], picked[2][j] = (
                reduction.value,
                reduction.state,
                reduction.has_error,
            )
        if None in picked[1] or None in picked[2]:
            raise ValueError("a scored task without its outcome")
        out[series_id] = list(map(make, zip(*picked, strict=True)))
    return out, keys


def _store(
    root: Path,
    key: str,
    outputs: Outputs,
    snapshot: Any,
    starts: list[int],
    table: Table,
    fresh: dict[int, tuple[TaskEntry, Any]],
    fence: int,
) -> None:
    """Keep the new report and table with the index of the files as now read; nothing
    when a folder read again could not be (racy, or a file missing)."""
    width = snapshots.RECORD
    attempts = list(snapshot.attempts)
    pieces: list[bytes] = []
    done = 0
    for i in sorted(fresh):
        entry, seen = fresh[i]
        if seen is None or snapshots.racy(seen, fence):
            return
        start = starts[i] * width
        pieces += [snapshot.stats[done:start], seen]
        done = start + width * (2 + len(attempts[i]))
        attempts[i] = tuple(sorted(entry.attempt_dirs))
    pieces.append(snapshot.stats[done:])
    new = Index(snapshot.listing, tuple(attempts), b"".join(pieces))
    reports.store_snapshot(root, new, key, outputs, table)


def table_in(tables: Any, key: str, count: int) -> Table | None:
    """The score table kept under ``key`` for ``count`` task folders, None when there is
    none of that shape (a miss)."""
    raw = tables.get(key) if tables else None
    table = None if raw is None else decoded(Table, raw)
    return table if table is not None and table.fits(count) else None


def table_of(session: Session) -> Table | None:
    """The score table of a run just read and scored with its plan as given (no derived
    plan), or None when :func:`inspector.loading.reopen.answer` could not use one."""
    run, rec = session.run, session.recomputation
    if rec is None or session.refusal is not None or rec.plan.derived:
        return None
    if rec.plan.benchmark_id in OVERRIDES:
        return None
    series = tuple(rec.reductions)  # the plan's series, in order
    entries = run.entries
    count = sum(1 for entry in entries if entry.state != "running")
    if any(entry.state == "running" for entry in entries[:count]):
        return None  # not candidates then running/ folders, as the index lists them
    empty: list[Any] = [None] * count
    columns = [Column(empty[:], empty[:], empty[:]) for _ in series]
    table = Table(None, series, empty[:], [False] * count, empty[:], empty[:], columns)  # type: ignore[arg-type]
    reductions = [rec.reductions[series_id] for series_id in series]
    tasks, keys, scored = rec.tasks, rec.category_keys, 0
    for i, entry in enumerate(entries[:count]):
        record = entry.record
        if record is not None and scored < len(tasks) and tasks[scored] is record:
            set_row(table, i, entry, keys[scored], [reduced[scored] for reduced in reductions])
            scored += 1
        else:
            set_row(table, i, entry)
    if scored != len(tasks):
        return None
    table.level = _run_level(run, table.probs)  # type: ignore[assignment]
    return table if table.level is not None else None


def set_row(table: Table, i: int, entry: Any, key: str | None = None, outcomes: Any = ()) -> None:
    """Row ``i`` of ``table``: the task folder ``entry``, its task scored under category
    ``key`` with ``outcomes`` (one reduction per series), or not scored (``key`` None)."""
    record = entry.record
    table.ids[i] = record.task_id if record is not None else None
    table.probs[i] = tuple([problem_rec(p) for p in entry.problems])
    table.won[i], table.cats[i] = key is not None, key
    for column, outcome in itertools.zip_longest(table.columns, outcomes):
        if outcome is None:
            column.values[i] = column.states[i] = column.errors[i] = None
        else:
            column.values[i], column.states[i] = outcome.value, outcome.state
            column.errors[i] = outcome.has_error


def _run_level(run: Run, probs: list[Any]) -> RunLevel | None:
    """What was read of the run-level files; None when the run's problems are not, in
    order, those of the run-level files, of the listing and of the entries."""
    if run.listing is None:
        return None
    tail = [ProblemRec(*p) for p in run.listing[2]] + [p for row in probs for p in row]
    tail += [problem_rec(p) for e in run.entries if e.state == "running" for p in e.problems]
    problems = [problem_rec(p) for p in run.problems]
    level = len(problems) - len(tail)
    if level < 0 or problems[level:] != tail:
        return None
    return RunLevel(
        run.run_info,
        run.params,
        run.stored_metrics,
        run.stored_metrics_text,
        run.stored_summary,
        tuple(problems[:level]),
    )
