"""``find_runs``: the runs under a results root, cheaply (spec §1.1, viewer ``_is_run``).

A folder with ``run_info.json`` or a ``details/`` folder is a run; the search never
descends into a run and never reads task files: it reads ``run_info.json``,
``metrics.json`` (for the stored headline) and ``progress.json`` (for a live status), and
counts task folders per state folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from inspector.results.layout import RUN_FILE_MAX_BYTES, RUN_INFO_MAX_BYTES, TASK_STATES, relpath
from inspector.results.problems import LoadProblem
from inspector.results.root_walk import walk_root
from inspector.results.run_files import RunFiles


@dataclass(frozen=True)
class RunSummary:
    """One run found under a results root, as the runs list shows it."""

    path: Path
    relative: str
    namespace: str | None
    run_id: str
    model: str | None = None
    benchmark: str | None = None
    harness: str | None = None
    k: int | None = None
    strategy: str | None = None
    status: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    task_counts: dict[str, int] = field(default_factory=dict)
    headline_series_id: str | None = None
    headline_value: float | None = None
    headline_is_reference: bool = False
    problems: tuple[LoadProblem, ...] = ()

    @property
    def published_count(self) -> int:
        """Task folders in the final state folders and the v2 layout."""
        return sum(count for state, count in self.task_counts.items() if state != "running")


def is_run(directory: Path) -> bool:
    """A run has ``run_info.json`` or a ``details/`` folder (viewer ``_is_run``)."""
    return os.path.isfile(directory / "run_info.json") or os.path.isdir(directory / "details")


def find_runs(root: Path | str) -> list[RunSummary]:
    """The runs at or under ``root``, newest first (``started_at``, else ``run_id``).

    Raises:
        RunReadError: ``root`` is not a readable directory.
    """
    return newest_first([summarize_run(path, relative) for path, relative in run_folders(root)])


def newest_first(summaries: list[RunSummary]) -> list[RunSummary]:
    """The runs newest first (``started_at``, else ``run_id``), as :func:`find_runs`."""
    return sorted(summaries, key=_newest_first)


def run_folders(root: Path | str) -> list[tuple[Path, str]]:
    """``(run directory, path under root)`` of every run at or under ``root``, by path;
    nothing inside a run is read (:func:`~inspector.results.root_walk.walk_root`, which
    also says what could not be searched).

    Raises:
        RunReadError: ``root`` is not a readable directory.
    """
    return walk_root(root).runs


def summarize_run(path: Path, relative: str = ".") -> RunSummary:
    """The runs-list summary of one run directory, without reading task files."""
    files = RunFiles(path)
    problems: list[LoadProblem] = []
    info = _run_info(files, problems)
    request = _dict(info.get("request"))
    attempts = _dict(_dict(request.get("execution")).get("attempts"))
    params = _object(files, "params.json", problems) if not request else {}
    progress = _object(files, "progress.json", problems)
    run_id = info.get("run_id")
    k, strategy = attempts.get("k"), attempts.get("strategy")
    series_id, value, reference = _headline(_object(files, "metrics.json", problems))
    status = info.get("status") if isinstance(info.get("status"), str) else progress.get("status")
    return RunSummary(
        path=path,
        relative=relative,
        namespace=path.parent.name or None,
        run_id=run_id if isinstance(run_id, str) and run_id.strip() else path.name,
        model=_component_id(request, params, "model"),
        benchmark=_component_id(request, params, "benchmark"),
        harness=_component_id(request, params, "harness"),
        k=k if type(k) is int else (1 if request else None),
        strategy=strategy.strip().lower()
        if isinstance(strategy, str)
        else ("avg" if request else None),
        status=status if isinstance(status, str) else None,
        started_at=_text(info.get("started_at")),
        finished_at=_text(info.get("finished_at")),
        task_counts=_task_counts(files),
        headline_series_id=series_id,
        headline_value=value,
        headline_is_reference=reference,
        problems=tuple(problems),
    )


def task_counts(path: Path) -> dict[str, int]:
    """Task folders per state folder (and ``v2``: the legacy layout's), listed, none read."""
    return _task_counts(RunFiles(path))


def _task_counts(files: RunFiles) -> dict[str, int]:
    names, _ = files.subdirs("details")
    counts = {state: 0 for state in ("normal", "error", "fatal", "running")}
    for state in TASK_STATES:
        if state in names:
            counts[state] = len(files.subdirs(relpath("details", state))[0])
    v2 = sum(1 for name in names if name not in TASK_STATES)
    if v2:
        counts["v2"] = v2
    return counts


def _headline(metrics: dict[str, Any]) -> tuple[str | None, float | None, bool]:
    series = metrics.get("series")
    for item in series if isinstance(series, list) else []:
        if isinstance(item, dict) and item.get("role") == "headline":
            value, reference = item.get("value"), item.get("reference_value")
            chosen = value if _is_number(value) else reference if _is_number(reference) else None
            uses_reference = chosen is not None and not _is_number(value)
            series_id = item.get("series_id")
            return (series_id if isinstance(series_id, str) else None, chosen, uses_reference)
    return None, None, False


def _component_id(request: dict[str, Any], params: dict[str, Any], section: str) -> str | None:
    for source in (request, params):
        value = _dict(source.get(section)).get("id")
        if isinstance(value, str) and value:
            return value
    return None


def _newest_first(summary: RunSummary) -> tuple[int, float, str, str]:
    stamp = _timestamp(summary.started_at)
    has_stamp = stamp is not None
    return (0 if has_stamp else 1, -(stamp or 0.0), _negate(summary.run_id), summary.relative)


def _negate(text: str) -> str:
    # Sort run ids descending inside an ascending sort key.
    return "".join(chr(0x10FFFF - ord(char)) for char in text)


def _timestamp(value: str | None) -> float | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.timestamp()
    except (OverflowError, OSError, ValueError):
        return None


def _run_info(files: RunFiles, problems: list[LoadProblem]) -> dict[str, Any]:
    """``run_info.json`` parsed without its ``resolved_execution_plans``, whatever its size:
    the plans are most of a run's file (760 KB of a 200-task run's) and no summary needs
    them. (Scoring parses them below a few megabytes, :data:`~inspector.results.runinfo.
    PLANS_MIN_SIZE`, as AgentCompass cannot read a run whose plans are broken; the runs
    list shows what its check then finds.) Not JSON so cut: parsed whole, so that what
    is wrong is said of the file as it is."""
    import orjson  # with the run-level files (see file_io.parse_json)

    from inspector.results.runinfo import parse_without_plans, read_without_plans

    data, problem = files.read_bytes(
        "run_info.json",
        strict=False,
        blocking=False,
        max_bytes=RUN_INFO_MAX_BYTES,
        reader=read_without_plans,  # cut as it is read from 1 MiB (never held whole)
    )
    if problem is not None:
        problems.append(problem)
        return {}
    if data is None:
        return {}
    try:
        value, _ = parse_without_plans(data, min_size=0)
    except orjson.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        return _object(files, "run_info.json", problems)  # read whole: see above
    return value if isinstance(value, dict) else {}


def _object(files: RunFiles, rel: str, problems: list[LoadProblem]) -> dict[str, Any]:
    limit = RUN_INFO_MAX_BYTES if rel == "run_info.json" else RUN_FILE_MAX_BYTES
    value, _, problem = files.read_json(rel, strict=False, blocking=False, max_bytes=limit)
    if problem is not None:
        problems.append(problem)
    return value if isinstance(value, dict) else {}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)
