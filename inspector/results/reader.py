"""``read_run``: a run directory as AgentCompass's ``RunStore`` loads it, plus everything else.

Run-level files (``run_info.json``, ``params.json``, ``metrics.json``, ``summary.md``) and
every task folder are read once, read-only. ``Run.tasks`` holds exactly the published
tasks AgentCompass would score (spec §1.7, ``RunStore._load_persisted_results``); tasks it
would refuse are left out with a blocking problem, so the rest can still be shown.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from inspector.engine.model import TaskRecord
from inspector.results.file_io import parse_json
from inspector.results.layout import (
    PREVIOUS_RUN_INFO_SCHEMA,
    RUN_FILE_MAX_BYTES,
    RUN_INFO_MAX_BYTES,
    RUN_INFO_SCHEMA,
    TASK_STATES,
    StateName,
)
from inspector.results.problems import (
    RULE_DUPLICATE_ID,
    RULE_JSON,
    RULE_RUN_FILE,
    RULE_RUN_INFO,
    RULE_RUN_INFO_V2,
    RULE_STORED,
    LoadProblem,
    RunReadError,
)
from inspector.results.run_files import RunFiles, listing_key, task_folders
from inspector.results.runinfo import (
    parse_without_plans,
    read_without_plans,
    run_info_without_plans,
)
from inspector.results.tasks import TaskEntry, load_published, load_running
from inspector.results.validate import BUILTIN_STRATEGIES

OnProgress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while task folders are read."""


@dataclass
class Run:
    """One run directory as read from disk."""

    path: Path
    run_info: dict[str, Any] | None = None
    params: dict[str, Any] | None = None
    stored_metrics: dict[str, Any] | None = None
    stored_metrics_text: str | None = None
    stored_summary: str | None = None
    tasks: list[TaskRecord] = field(default_factory=list)
    entries: list[TaskEntry] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)
    # With the cache on, what inspector.loading.snapshot needs: the stat_key of
    # the run-level files and running/ folders as seen when read, each task folder's file
    # signature (inspector.loading.tasks; or all of them in one bytearray), and the
    # task folder listing.
    seen: dict[str, tuple[int, ...] | None] | None = field(default=None, repr=False)
    signatures: Any = field(default_factory=dict, repr=False)
    # The run's index once taken (inspector.loading.index.take): the signatures are then
    # joined in it and not kept apart.
    index: Any = field(default=None, repr=False)
    listing: tuple[Any, ...] | None = field(default=None, repr=False)
    # When reading began (time.time_ns()): files stamped after it are racy (not cached).
    read_started_ns: int = field(default=0, repr=False)
    # Task folders taken from the cache instead of being read (0: everything was read).
    cache_hits: int = field(default=0, repr=False)

    @property
    def blocking_problems(self) -> list[LoadProblem]:
        """The problems that make AgentCompass refuse the whole run."""
        return [problem for problem in self.problems if problem.blocking]

    @property
    def run_id(self) -> str:
        """``run_info.run_id``, else the folder name."""
        run_id = (self.run_info or {}).get("run_id")
        return run_id if isinstance(run_id, str) and run_id.strip() else self.path.name

    @property
    def request(self) -> dict[str, Any]:
        """``run_info.request`` (``{}`` when absent or not an object)."""
        request = (self.run_info or {}).get("request")
        return request if isinstance(request, dict) else {}

    def entry_for(self, task_id: str) -> TaskEntry | None:
        """The entry whose record AgentCompass scores for ``task_id``, else the first with that id."""
        matches = [entry for entry in self.entries if entry.task_id == task_id]
        return next(
            (entry for entry in matches if entry.record is not None),
            matches[0] if matches else None,
        )


def read_run(
    path: Path | str,
    *,
    strategies: Collection[str] = BUILTIN_STRATEGIES,
    progress: OnProgress | None = None,
) -> Run:
    """Read one run directory, read-only, in this process and without any cache (the
    reference :mod:`inspector.loading` is compared with; it reads faster, never differently).

    Args:
        path: The run directory (``<results>/<namespace>/<run_id>``).
        strategies: Registered attempt strategy ids (``attempt_plan.strategy`` must be one).
        progress: Called with ``(done, total)`` as task folders are read.

    Raises:
        RunReadError: ``path`` does not exist, is not a directory, or cannot be listed.
    """
    listed = list_run(path)
    files, run, collector = listed.files, listed.run, listed.collector
    read_run_files(files, run)
    run.problems.extend(listed.problems)
    total = len(listed.candidates) + len(listed.running)
    for done, (folder, state) in enumerate(listed.candidates, start=1):
        first = listed.first_location[folder.rpartition("/")[2]]
        collector.take([load_published(files, folder, state, first, strategies)])
        if progress is not None:
            progress(done, total)
    for done, folder in enumerate(listed.running, start=len(listed.candidates) + 1):
        run.entries.append(load_running(files, folder))
        if progress is not None:
            progress(done, total)
    run.problems.extend(problem for entry in run.entries for problem in entry.problems)
    return run


@dataclass
class ListedRun:
    """A run directory whose task folders are listed and not yet read."""

    run: Run
    collector: TaskCollector  # takes the run's entries as they are read
    files: RunFiles
    candidates: list[tuple[str, StateName]]  # in RunStore order
    running: list[str]
    first_location: dict[str, str]  # for each folder name, where AgentCompass finds it first
    problems: list[LoadProblem]  # of the listing (added after the run-level files')
    listing: tuple[Any, ...]  # the listing as comparable data (:func:`listing_key`)


def list_run(path: Path | str) -> ListedRun:
    """Check the run directory and list its task folders (nothing is read yet).

    Raises:
        RunReadError: as :func:`read_run`.
    """
    root = Path(os.path.abspath(path))
    if not root.exists():
        raise RunReadError(str(path), "no such directory")
    if not root.is_dir():
        raise RunReadError(str(path), "not a directory")
    try:
        os.listdir(root)
    except OSError as exc:
        raise RunReadError(str(path), f"cannot be listed: {exc.strerror or exc}") from exc
    run = Run(path=root)
    collector = TaskCollector(run)
    files = RunFiles(root)
    problems: list[LoadProblem] = []
    candidates, running = task_folders(files, problems)
    listing = listing_key(candidates, running, problems)
    first_location = first_locations([*running, *(folder for folder, _ in candidates)])
    return ListedRun(run, collector, files, candidates, running, first_location, problems, listing)


class TaskCollector:
    """Adds task entries to a run in candidate order; the first of a task_id wins."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.seen: set[str] = set()
        self.on_tasks: Callable[[list[TaskRecord]], None] | None = None
        """Given the tasks AgentCompass scores among the entries of each :meth:`take`."""

    def take(self, entries: list[TaskEntry]) -> list[TaskRecord]:
        """Add ``entries``; returns the tasks among them AgentCompass scores (given to
        :attr:`on_tasks` too, when there are any)."""
        run, seen = self.run, self.seen
        start = len(run.tasks)
        for entry in entries:
            if entry.record is not None:
                task_id = entry.record.task_id
                if task_id in seen:
                    message = f"task_id {task_id!r} was already loaded; the first one wins"
                    entry.problems.append(
                        LoadProblem(entry.task_file, message, RULE_DUPLICATE_ID, False)
                    )
                else:
                    seen.add(task_id)
                    run.tasks.append(entry.record)
            run.entries.append(entry)
        tasks = run.tasks[start:]
        if self.on_tasks is not None and tasks:
            self.on_tasks(tasks)
        return tasks


def read_run_files(files: RunFiles, run: Run) -> None:
    """The run-level files: run_info.json, params.json, metrics.json and summary.md."""
    run.run_info = _run_info(files, run.problems)
    # AgentCompass's summary refuses a params.json that is not JSON or not an object
    # ("JSON file must contain an object", measured with the oracle): so does this.
    params, found, problem = files.read_json(
        "params.json", strict=False, blocking=True, max_bytes=RUN_FILE_MAX_BYTES
    )
    if problem is not None:
        run.problems.append(problem)
    elif found and not isinstance(params, dict):
        message = f"must be a JSON object, got {_kind(params)}"
        run.problems.append(LoadProblem("params.json", message, RULE_RUN_FILE, True))
    else:
        run.params = params
    text, problem = files.read_text("metrics.json", max_bytes=RUN_FILE_MAX_BYTES)
    if problem is not None:
        run.problems.append(problem)
    elif text is not None:
        run.stored_metrics_text = text
        run.stored_metrics = _parse_object(text, "metrics.json", RULE_STORED, run.problems)
    run.stored_summary, problem = files.read_text("summary.md", max_bytes=RUN_FILE_MAX_BYTES)
    if problem is not None:
        run.problems.append(problem)


def _run_info(files: RunFiles, problems: list[LoadProblem]) -> dict[str, Any] | None:
    """``run_info.json``, checked as ``RunStore._require_current_run_info`` does.

    Its ``resolved_execution_plans`` section is left unparsed on large files
    (:mod:`inspector.results.runinfo`).
    """
    rel = "run_info.json"
    data, problem = files.read_bytes(
        rel, strict=False, blocking=True, max_bytes=RUN_INFO_MAX_BYTES, reader=read_without_plans
    )
    found = data is not None or problem is not None
    value: Any = None
    if data is not None:
        try:
            value = run_info_without_plans(data)
            if value is None:
                value, _ = parse_without_plans(data)
        except orjson.JSONDecodeError:
            # Not JSON as read without its plans: read whole, so that what is wrong is
            # said of the file as it is (its own lines and columns).
            data, problem = files.read_bytes(
                rel, strict=False, blocking=True, max_bytes=RUN_INFO_MAX_BYTES
            )
            if data is not None:
                try:
                    value = parse_json(data)
                except ValueError as exc:
                    problem = LoadProblem(rel, str(exc), RULE_JSON, True)
        del data
    if problem is not None:
        problems.append(problem)
        return None
    if not found:
        problems.append(
            LoadProblem(rel, "missing: AgentCompass requires run_info.json", RULE_RUN_INFO, True)
        )
        return None
    if not isinstance(value, dict) or not value:
        message = f"must be a non-empty JSON object, got {'{}' if isinstance(value, dict) else _kind(value)}"
        problems.append(LoadProblem(rel, message, RULE_RUN_INFO, True))
        return None
    schema = value.get("schema_version")
    if schema not in (RUN_INFO_SCHEMA, PREVIOUS_RUN_INFO_SCHEMA):
        found_text = repr(schema) if schema is not None else "missing"
        message = (
            f"unsupported run_info schema: expected {RUN_INFO_SCHEMA!r} (or v2), found {found_text}"
        )
        problems.append(LoadProblem(rel, message, RULE_RUN_INFO, True))
    elif type(value.get("run_id")) is not str or not value["run_id"].strip():
        problems.append(
            LoadProblem(rel, "run_info.json requires a non-empty run_id", RULE_RUN_INFO, True)
        )
    elif not isinstance(value.get("request"), dict):
        problems.append(
            LoadProblem(rel, "run_info.json requires a request object", RULE_RUN_INFO, True)
        )
    elif schema == PREVIOUS_RUN_INFO_SCHEMA:
        message = (
            "run_info schema v2: loadable, but `agentcompass summary` and `analysis` require v3"
        )
        problems.append(LoadProblem(rel, message, RULE_RUN_INFO_V2, False))
    return value


def _parse_object(
    text: str, rel: str, rule: str, problems: list[LoadProblem]
) -> dict[str, Any] | None:
    try:
        value = parse_json(text.encode("utf-8"))
    except ValueError as exc:
        problems.append(LoadProblem(rel, str(exc), rule, False))
        return None
    if not isinstance(value, dict):
        problems.append(LoadProblem(rel, f"must be a JSON object, got {_kind(value)}", rule, False))
        return None
    return value


def first_locations(folders: list[str]) -> dict[str, str]:
    """For each folder name, where ``RunLayout.task_dir`` finds it first."""
    rank = {state: position for position, state in enumerate(TASK_STATES)}

    def search_order(folder: str) -> int:
        parts = folder.split("/")
        return rank[parts[1]] if len(parts) == 3 else len(rank)

    first: dict[str, str] = {}
    for folder in sorted(folders, key=search_order):
        first.setdefault(folder.rpartition("/")[2], folder)
    return first


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__
