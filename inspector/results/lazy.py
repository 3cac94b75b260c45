"""Big payloads, read only when the user opens them (design rule 5), read-only.

Attempt payloads (with trajectories), checkpoints, retry records and archived executions,
artifact files, ``progress.json``/``progress.jsonl``, ``analysis_summary.*`` and
``run.log``. A file that cannot be read raises :class:`ResultFileError` carrying its
:class:`LoadProblem`; nothing here raises anything else for bad input.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal

from inspector.engine.model import PHASES, SEVERITIES, Issue
from inspector.results.file_io import open_regular, parse_json
from inspector.results.layout import (
    CHECKPOINT_MAX_BYTES,
    CHECKPOINT_SCHEMA,
    RUN_FILE_MAX_BYTES,
    relpath,
)
from inspector.results.problems import RULE_JSON, RULE_RUN_FILE, LoadProblem, ResultFileError
from inspector.results.reader import Run
from inspector.results.run_files import RunFiles
from inspector.results.tasks import TaskEntry

PAGE_BYTES = 64 * 1024
TAIL_BYTES = 256 * 1024


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


@dataclass(frozen=True)
class TextPage:
    """A slice of a text file: ``text`` decoded from bytes ``offset`` to ``next_offset``."""

    path: str
    text: str
    offset: int
    next_offset: int
    total_bytes: int

    @property
    def at_end(self) -> bool:
        return self.next_offset >= self.total_bytes


@dataclass(frozen=True)
class AnalysisSummary:
    """``analysis_summary.json`` and ``analysis_summary.md`` (either may be absent)."""

    data: dict[str, Any] | None
    markdown: str | None


def attempt_dir(entry: TaskEntry, index: int) -> str:
    """The relative folder of attempt ``index`` of ``entry``."""
    return entry.attempt_dirs.get(index) or relpath(entry.folder, f"attempt-{index}")


def read_attempt_payload(run: Run, entry: TaskEntry, index: int) -> dict[str, Any]:
    """The whole ``attempt-N/result.json`` (trajectory included, ``retry_count`` kept)."""
    value = _json(run, relpath(attempt_dir(entry, index), "result.json"), strict=True)
    if not isinstance(value, dict):
        raise _error(relpath(attempt_dir(entry, index), "result.json"), "result.json must be an object")
    return value


def read_checkpoint(run: Run, entry: TaskEntry, index: int) -> dict[str, Any] | None:
    """``attempt-N/checkpoint.json`` (None when absent); at most 32 MiB, as AgentCompass reads it."""
    rel = relpath(attempt_dir(entry, index), "checkpoint.json")
    value = _json(run, rel, strict=True, max_bytes=CHECKPOINT_MAX_BYTES, missing_ok=True)
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("schema_version") != CHECKPOINT_SCHEMA:
        raise _error(rel, f"unsupported attempt checkpoint schema (expected {CHECKPOINT_SCHEMA})")
    return value


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
                item for item in ("result.json", "checkpoint.json", "artifacts") if files.exists(relpath(archive, item))
            )
            records.append(RetryRecord(path=archive, kind="archive", attempt=number, files=present))
    return records


def read_retry_record(run: Run, path: str) -> dict[str, Any]:
    """The whole retry record at ``path`` (``discarded_result`` included)."""
    value = _json(run, path, strict=True)
    if not isinstance(value, dict):
        raise _error(path, "retry record must be an object")
    return value


def list_legacy_retry_details(run: Run) -> list[str]:
    """``retry_details/*.json`` of the older layout (not written by 1.0.1)."""
    return [relpath("retry_details", name) for name in RunFiles(run.path).files("retry_details", ".json")]


def list_artifact_files(run: Run, entry: TaskEntry, index: int, *, folder: str | None = None) -> list[ArtifactFile]:
    """Files under ``attempt-N/artifacts/`` (or under ``folder``), links listed but not followed."""
    base = folder or relpath(attempt_dir(entry, index), "artifacts")
    files = RunFiles(run.path)
    if files.link_problem(base, strict=False) is not None:
        return []
    found: list[ArtifactFile] = []
    for current, dirs, names in os.walk(files.path(base)):
        dirs.sort()
        relative = os.path.relpath(current, run.path).replace(os.sep, "/")
        for name in sorted(names) + [name for name in dirs if os.path.islink(os.path.join(current, name))]:
            full = os.path.join(current, name)
            is_link = os.path.islink(full)
            try:
                size = os.lstat(full).st_size
            except OSError:
                size = 0
            found.append(ArtifactFile(path=relpath(relative, name), size=size, is_link=is_link))
    return sorted(found, key=lambda item: item.path)


def read_text_page(run: Run, path: str, offset: int = 0, size: int = PAGE_BYTES) -> TextPage:
    """``size`` bytes of a text file from ``offset``, cut at a UTF-8 character boundary."""
    files = RunFiles(run.path)
    refused = files.link_load_problem(path, strict=False, blocking=False)
    if refused is not None:
        raise ResultFileError(refused)
    try:
        with open_regular(files.path(path)) as stream:
            total = os.fstat(stream.fileno()).st_size
            stream.seek(max(0, offset))
            data = stream.read(max(1, size))
    except OSError as exc:
        raise _error(path, f"cannot be read: {exc.strerror or exc}") from exc
    cut = _utf8_boundary(data) if offset + len(data) < total else len(data)
    text = data[:cut].decode("utf-8", errors="replace")
    return TextPage(path=path, text=text, offset=offset, next_offset=offset + cut, total_bytes=total)


def read_progress(run: Run) -> dict[str, Any] | None:
    """``progress.json`` (None when absent)."""
    value = _json(
        run, "progress.json", strict=False, missing_ok=True, max_bytes=RUN_FILE_MAX_BYTES
    )
    return value if isinstance(value, dict) else None


def read_progress_events(run: Run, limit: int = 200) -> list[dict[str, Any]]:
    """The last ``limit`` events of ``progress.jsonl``; unreadable lines are skipped."""
    events = []
    for line in _tail_lines(run, "progress.jsonl", limit):
        try:
            value = parse_json(line.encode("utf-8"))
        except ValueError:
            continue
        if isinstance(value, dict):
            events.append(value)
    return events


def read_analysis_summary(run: Run) -> AnalysisSummary:
    """``analysis_summary.json`` and ``.md`` (only written when some attempt was analysed)."""
    data = _json(run, "analysis_summary.json", strict=False, missing_ok=True)
    markdown, problem = RunFiles(run.path).read_text("analysis_summary.md")
    if problem is not None:
        raise ResultFileError(problem)
    return AnalysisSummary(data=data if isinstance(data, dict) else None, markdown=markdown)


def read_run_log_tail(run: Run, max_lines: int = 200) -> list[str]:
    """The last ``max_lines`` lines of ``run.log`` (empty when absent)."""
    return _tail_lines(run, "run.log", max_lines)


def _tail_lines(run: Run, rel: str, max_lines: int) -> list[str]:
    files = RunFiles(run.path)
    refused = files.link_load_problem(rel, strict=False, blocking=False)
    if refused is not None:
        raise ResultFileError(refused)
    try:
        with open_regular(files.path(rel)) as stream:
            total = os.fstat(stream.fileno()).st_size
            start = max(0, total - TAIL_BYTES)
            stream.seek(start)
            data = stream.read()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise _error(rel, f"cannot be read: {exc.strerror or exc}") from exc
    lines = data.decode("utf-8", errors="replace").splitlines()
    if start > 0 and lines:
        lines = lines[1:]  # the first line was cut
    return lines[-max_lines:] if max_lines > 0 else []


def _retry_record(files: RunFiles, rel: str, number: int) -> RetryRecord:
    value, _, problem = files.read_json(rel, strict=True, blocking=False)
    if problem is not None or not isinstance(value, dict):
        problem = problem or LoadProblem(rel, "retry record must be an object", RULE_RUN_FILE, False)
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
            issues.append(Issue(severity, phase, str(item.get("code", "")), str(item.get("message", ""))))
    return tuple(issues)


def _json(run: Run, rel: str, *, strict: bool, max_bytes: int | None = None, missing_ok: bool = False) -> Any:
    value, found, problem = RunFiles(run.path).read_json(rel, strict=strict, blocking=False, max_bytes=max_bytes)
    if problem is not None:
        raise ResultFileError(problem)
    if not found:
        if missing_ok:
            return None
        raise _error(rel, "missing")
    return value


def _utf8_boundary(data: bytes) -> int:
    """The length of ``data`` without a trailing, incomplete UTF-8 character."""
    end = len(data)
    for back in range(1, min(4, end) + 1):
        byte = data[end - back]
        if byte & 0xC0 != 0x80:  # a lead byte (or ASCII)
            width = 1 if byte < 0x80 else 2 if byte >> 5 == 0b110 else 3 if byte >> 4 == 0b1110 else 4
            return end - back if width > back else end
    return end


def _error(path: str, message: str) -> ResultFileError:
    return ResultFileError(LoadProblem(path, message, RULE_JSON, False))


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
