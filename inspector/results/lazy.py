"""Big payloads, read only when the user opens them (design rule 5), read-only.

Attempt payloads (with trajectories), retry records and archived executions, and artifact
files. A file that cannot be read raises :class:`ResultFileError` carrying its
:class:`LoadProblem`; nothing here raises anything else for bad input. (A large attempt
payload is read a page at a time by :mod:`inspector.results.stream`.)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal

from inspector.engine.model import ON_DISK, PHASES, SEVERITIES, Issue, TaskRecord
from inspector.results.layout import relpath
from inspector.results.problems import RULE_JSON, RULE_RUN_FILE, LoadProblem, ResultFileError
from inspector.results.reader import Run
from inspector.results.run_files import RunFiles
from inspector.results.tasks import TaskEntry, exact_json


@dataclass(frozen=True)
class RetryRecord:
    """One retry of one attempt: a diagnostic record or an archived earlier execution."""

    path: str
    kind: Literal["record", "archive"]
    attempt: int | None = None
    retry: int | None = None
    max_retries: int | None = None
    stage: str | None = None
    scope: str | None = None
    matched_pattern: str | None = None
    issues: tuple[Issue, ...] = ()
    files: tuple[str, ...] = ()
    problem: LoadProblem | None = None


@dataclass(frozen=True)
class ArtifactFile:
    """One file under an attempt's ``artifacts/`` folder."""

    path: str
    size: int
    is_link: bool = False


def attempt_dir(entry: TaskEntry, index: int) -> str:
    """The relative folder of attempt ``index`` of ``entry``."""
    return entry.attempt_dirs.get(index) or relpath(entry.folder, f"attempt-{index}")


def read_attempt_payload(run: Run, entry: TaskEntry, index: int) -> dict[str, Any]:
    """The whole ``attempt-N/result.json`` (trajectory included, ``retry_count`` kept)."""
    value = _json(run, relpath(attempt_dir(entry, index), "result.json"), strict=True)
    if not isinstance(value, dict):
        raise _error(
            relpath(attempt_dir(entry, index), "result.json"), "result.json must be an object"
        )
    return value


def ground_truth(run: Run, task: TaskRecord) -> Any:
    """The task's ``ground_truth``: as held, or (:data:`~inspector.engine.model.ON_DISK`,
    as a run's reader leaves it) read again from its ``task.json`` as the reader parsed it
    (strict; exactly when the plan's ``k`` needs it, as ``load_published`` does)."""
    if task.ground_truth is not ON_DISK:
        return task.ground_truth
    value = _json(run, task.source, strict=True)
    plan = value.get("attempt_plan") if isinstance(value, dict) else None
    if isinstance(plan, dict) and type(plan.get("k")) is float and abs(plan["k"]) >= 2.0**63:
        value = exact_json(RunFiles(run.path), task.source, value)
    if not isinstance(value, dict) or "ground_truth" not in value:
        raise _error(task.source, "task.json has no ground_truth any more (changed since read)")
    return value["ground_truth"]


def list_retry_records(run: Run, entry: TaskEntry, index: int | None = None) -> list[RetryRecord]:
    """Retry records (``retries/*.json``) and archived executions (``retries/<hex>/``).

    ``index`` limits the list to one attempt; otherwise every attempt of the task.
    """
    files = RunFiles(run.path)
    numbers = [index] if index is not None else sorted(entry.attempt_dirs)
    records: list[RetryRecord] = []
    for number in numbers:
        folder = relpath(attempt_dir(entry, number), "retries")
        for name in files.files(folder, ".json"):
            records.append(_retry_record(files, relpath(folder, name), number))
        for name in files.subdirs(folder)[0]:
            archive = relpath(folder, name)
            present = tuple(
                item
                for item in ("result.json", "checkpoint.json", "artifacts")
                if files.exists(relpath(archive, item))
            )
            records.append(RetryRecord(path=archive, kind="archive", attempt=number, files=present))
    return records


def read_retry_record(run: Run, path: str) -> dict[str, Any]:
    """The whole retry record at ``path`` (``discarded_result`` included)."""
    value = _json(run, path, strict=True)
    if not isinstance(value, dict):
        raise _error(path, "retry record must be an object")
    return value


def list_artifact_files(
    run: Run, entry: TaskEntry, index: int, *, folder: str | None = None
) -> list[ArtifactFile]:
    """Files under ``attempt-N/artifacts/`` (or under ``folder``), links listed but not followed."""
    base = folder or relpath(attempt_dir(entry, index), "artifacts")
    files = RunFiles(run.path)
    if files.link_problem(base, strict=False) is not None:
        return []
    found: list[ArtifactFile] = []
    for current, dirs, names in os.walk(files.path(base)):
        dirs.sort()
        relative = os.path.relpath(current, run.path).replace(os.sep, "/")
        for name in sorted(names) + [
            name for name in dirs if os.path.islink(os.path.join(current, name))
        ]:
            full = os.path.join(current, name)
            is_link = os.path.islink(full)
            try:
                size = os.lstat(full).st_size
            except OSError:
                size = 0
            found.append(ArtifactFile(path=relpath(relative, name), size=size, is_link=is_link))
    return sorted(found, key=lambda item: item.path)


def _retry_record(files: RunFiles, rel: str, number: int) -> RetryRecord:
    value, _, problem = files.read_json(rel, strict=True, blocking=False)
    if problem is not None or not isinstance(value, dict):
        problem = problem or LoadProblem(
            rel, "retry record must be an object", RULE_RUN_FILE, False
        )
        return RetryRecord(path=rel, kind="record", attempt=number, problem=problem)
    return RetryRecord(
        path=rel,
        kind="record",
        attempt=_int(value.get("attempt")) or number,
        retry=_int(value.get("retry")),
        max_retries=_int(value.get("max_retries")),
        stage=_str(value.get("stage")),
        scope=_str(value.get("scope")),
        matched_pattern=_str(value.get("matched_pattern")),
        issues=_lenient_issues(value.get("issues")),
    )


def _lenient_issues(value: Any) -> tuple[Issue, ...]:
    issues = []
    for item in value if isinstance(value, list) else []:
        if not isinstance(item, dict):
            continue
        severity, phase = item.get("severity"), item.get("phase")
        if severity in SEVERITIES and phase in PHASES:
            issues.append(
                Issue(severity, phase, str(item.get("code", "")), str(item.get("message", "")))
            )
    return tuple(issues)


def _json(run: Run, rel: str, *, strict: bool) -> Any:
    value, found, problem = RunFiles(run.path).read_json(rel, strict=strict, blocking=False)
    if problem is not None:
        raise ResultFileError(problem)
    if not found:
        raise _error(rel, "missing")
    return value


def _error(path: str, message: str) -> ResultFileError:
    return ResultFileError(LoadProblem(path, message, RULE_JSON, False))


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
