"""One task folder: publication check, strict read and assembly of its scoring record.

Mirrors AgentCompass 1.0.1 ``runtime/results/layout.py`` — ``has_task_result`` (is it a
published result?), ``RunLayout.task_index`` and ``read_result`` (read and assemble) — and
``detail.build_detail_record(strict=True)``. Where AgentCompass raises, the task gets one
blocking :class:`LoadProblem`; where it silently skips, one non-blocking problem.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from inspector.engine.model import NO_RETRIES, ON_DISK, Attempt, TaskRecord, alike_attempts
from inspector.results.file_io import JsonError, parse_json
from inspector.results.layout import (
    PREVIOUS_TASK_SCHEMA,
    SHARED_TASK_KEYS,
    TASK_SCHEMAS,
    AttemptDirs,
    StateName,
    is_canonical_attempt_key,
    relpath,
    task_directory_name,
)
from inspector.results.legacy import LegacyConversionError, convert_legacy_attempt
from inspector.results.problems import (
    RULE_DETAIL,
    RULE_JSON,
    RULE_LEGACY,
    RULE_NOT_A_TASK,
    RULE_ONE_FOLDER,
    RULE_PUBLICATION,
    RULE_RETRY_COUNT,
    RULE_TASK_INDEX,
    RULE_TASK_NAME,
    LoadProblem,
)
from inspector.results.run_files import RunFiles
from inspector.results.runinfo import MIN_SIZE, parse_result_without_trajectory
from inspector.results.validate import (
    DetailError,
    check_index_attempts,
    shape_attempt,
    shape_plan,
    task_category,
)

_BIG = float(2**63)  # orjson turns integers beyond 64 bits into floats of at least this size


@dataclass(slots=True)
class TaskEntry:
    """One task folder found in the run, in any state folder (published or not)."""

    task_id: str | None
    folder: str
    state: StateName
    published: bool = False
    record: TaskRecord | None = None
    attempt_dirs: Mapping[int, str] = field(default_factory=dict)
    problems: list[LoadProblem] = field(default_factory=list)
    schema_version: str | None = None

    @property
    def task_file(self) -> str:
        """The relative path of the task index."""
        return f"{self.folder}/task.json" if self.folder else "task.json"

    @property
    def name(self) -> str:
        """The folder name (readable part plus hash)."""
        return self.folder.rpartition("/")[2]

    @property
    def blocking(self) -> bool:
        """True when AgentCompass would refuse the run because of this task."""
        return any(problem.blocking for problem in self.problems)


class _Refused(Exception):
    """Stops reading one task; carries its single problem."""

    def __init__(self, problem: LoadProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def load_published(
    files: RunFiles,
    folder: str,
    state: StateName,
    first_location: str,
    strategies: Collection[str],
) -> TaskEntry:
    """Read one candidate of a final state folder (or the v2 flat layout).

    Args:
        files: The run's files.
        folder: The task folder, relative to the run.
        state: Its state folder ("v2" for ``details/<task>``).
        first_location: The folder AgentCompass's ``RunLayout.task_dir`` finds first for
            this folder name (running, normal, error, fatal, then v2).
        strategies: Registered attempt strategy ids.
    """
    entry = TaskEntry(task_id=None, folder=folder, state=state)
    files.prime_folder(folder)
    try:
        index = _read_index(files, entry)
        attempts = _check_publication(files, entry, index, first_location)
        entry.published = True
        entry.record = _assemble(files, entry, index, attempts, strategies)
    except _Refused as refused:
        entry.problems.append(refused.problem)
    finally:
        files.forget_prefetched()
    return entry


def load_running(files: RunFiles, folder: str) -> TaskEntry:
    """Read the index of an unpublished task under ``details/running/`` (never scored)."""
    entry = TaskEntry(task_id=None, folder=folder, state="running")
    task_file = entry.task_file
    if not files.exists(task_file) and not files.is_link(task_file):
        entry.attempt_dirs = _scan_attempt_dirs(files, folder)
        return entry
    index, _, problem = files.read_json(task_file, strict=True, blocking=False)
    if problem is not None:
        entry.problems.append(problem)
    elif isinstance(index, dict):
        task_id = index.get("task_id")
        entry.task_id = task_id if isinstance(task_id, str) else None
        entry.schema_version = _text(index.get("schema_version"))
        entry.attempt_dirs = _index_attempt_dirs(folder, index)
    else:
        message = f"task.json must be an object, got {type(index).__name__}"
        entry.problems.append(LoadProblem(task_file, message, RULE_TASK_INDEX, False))
    if not entry.attempt_dirs:
        entry.attempt_dirs = _scan_attempt_dirs(files, folder)
    return entry


def _read_index(files: RunFiles, entry: TaskEntry) -> dict[str, Any]:
    """``has_task_result`` up to the publication marker."""
    task_file = entry.task_file
    link = files.link_load_problem(task_file, strict=True, blocking=True)
    if link is not None:
        raise _Refused(link)
    if not files.is_file(task_file):
        raise _Refused(missing_index_problem(files, entry.folder, task_file))
    data, _, problem = files.read_json(task_file, strict=True, blocking=True)
    if problem is not None:
        raise _Refused(problem)
    plan = data.get("attempt_plan") if isinstance(data, dict) else None
    if isinstance(plan, dict) and type(plan.get("k")) is float and abs(plan["k"]) >= _BIG:
        data = exact_json(files, task_file, data)
    if not isinstance(data, dict):
        raise _Refused(
            _blocking(
                task_file,
                f"task.json must be an object, got {type(data).__name__}",
                RULE_TASK_INDEX,
            )
        )
    entry.schema_version = _text(data.get("schema_version"))
    task_id = data.get("task_id")
    entry.task_id = task_id if isinstance(task_id, str) else None
    if data.get("schema_version") not in TASK_SCHEMAS:
        message = f"unsupported task schema {data.get('schema_version')!r}; expected agentcompass.task.v3 or v2"
        raise _Refused(_blocking(task_file, message, RULE_TASK_INDEX))
    present = [key for key in SHARED_TASK_KEYS if key in data]
    if present and len(present) < len(SHARED_TASK_KEYS):
        lacking = ", ".join(key for key in SHARED_TASK_KEYS if key not in data)
        message = f"incomplete task metadata: has {', '.join(present)} but lacks {lacking}"
        raise _Refused(_blocking(task_file, message, RULE_PUBLICATION))
    entry.attempt_dirs = _index_attempt_dirs(entry.folder, data)
    if not present:
        message = "not published: task.json lacks category, ground_truth and attempt_plan; AgentCompass skips it"
        raise _Refused(LoadProblem(task_file, message, RULE_PUBLICATION, False))
    if "task_id" not in data:
        raise _Refused(_blocking(task_file, "task.json has no task_id", RULE_TASK_INDEX))
    try:
        expected = task_directory_name(data["task_id"])
    except ValueError as exc:
        raise _Refused(_blocking(task_file, f"{exc} (got {task_id!r})", RULE_TASK_INDEX)) from exc
    if entry.name != expected:
        message = f"folder name does not match task_id {task_id!r}: expected {expected}"
        raise _Refused(_blocking(task_file, message, RULE_TASK_NAME))
    return data


def missing_index_problem(files: RunFiles, folder: str, task_file: str) -> LoadProblem:
    """Why a task folder has no readable ``task.json``: it is a FIFO or device (refused by
    its type), the folder cannot be entered (permission denied: AgentCompass's
    ``Path.is_file`` raises there, so the run is refused), or there is none (ignored)."""
    special = files.special(task_file)
    if special is not None:
        return special
    if files.absent_reason(task_file) == "permission denied":
        message = "permission denied: the task folder cannot be entered"
        return LoadProblem(folder, message, RULE_JSON, True)
    message = "no task.json file in this task folder; AgentCompass ignores the folder"
    return LoadProblem(folder, message, RULE_NOT_A_TASK, False)


def _check_publication(
    files: RunFiles, entry: TaskEntry, index: dict[str, Any], first_location: str
) -> dict[str, str]:
    """The rest of ``has_task_result``: the index and a result.json for every attempt."""
    task_file = entry.task_file
    tokens_from = index
    if first_location != entry.folder:
        # AgentCompass checks this folder's results against the index it finds first.
        other = relpath(first_location, "task.json")
        tokens_from, _, problem = files.read_json(other, strict=True, blocking=True)
        if problem is not None or not isinstance(tokens_from, dict):
            message = f"the same task is also in {first_location}, whose task.json is unusable"
            raise _Refused(_blocking(task_file, message, RULE_ONE_FOLDER))
    try:
        tokens = check_index_attempts(tokens_from, entry.task_id or "")
        attempts = (
            tokens if tokens_from is index else check_index_attempts(index, entry.task_id or "")
        )
    except DetailError as exc:
        raise _Refused(_blocking(task_file, str(exc), exc.rule)) from exc
    for token in tokens.values():
        # Checked above: token is "attempt-<n>", the folder a non-empty relative path.
        result_file = f"{entry.folder}/{token}/result.json"
        files.probe_file(result_file)
        link = files.link_load_problem(result_file, strict=True, blocking=True)
        if link is not None:
            raise _Refused(link)
        if not files.is_file(result_file):
            special = files.special(result_file)
            if special is not None:
                raise _Refused(special)
            message = (
                f"not published: the index names {token} but {token}/result.json is missing;"
                " AgentCompass skips this task"
            )
            raise _Refused(LoadProblem(result_file, message, RULE_PUBLICATION, False))
    if first_location != entry.folder:
        message = (
            f"the same task is also in {first_location}; AgentCompass refuses a task with"
            " more than one result directory"
        )
        raise _Refused(_blocking(task_file, message, RULE_ONE_FOLDER))
    return attempts


def _assemble(
    files: RunFiles,
    entry: TaskEntry,
    index: dict[str, Any],
    tokens: dict[str, str],
    strategies: Collection[str],
) -> TaskRecord:
    """``read_result`` + ``build_detail_record(strict=True)``, keeping only the scoring view."""
    task_file = entry.task_file
    legacy = index.get("schema_version") == PREVIOUS_TASK_SCHEMA
    attempts: dict[int, Attempt] = {}
    retry_counts: dict[int, int] = {}
    recorded: list[int] = []
    invalid: LoadProblem | None = None
    for number, token in tokens.items():
        result_file = f"{entry.folder}/{token}/result.json"
        payload = _read_result(files, result_file)
        count = payload.pop("retry_count")
        if count:
            retry_counts[int(number)] = count
        if not payload:
            continue  # a retry-only attempt: its retries count, it is not an attempt
        recorded.append(int(number))
        if legacy:
            try:
                payload = convert_legacy_attempt(payload)
            except LegacyConversionError as exc:
                raise _Refused(_blocking(result_file, str(exc), RULE_LEGACY)) from exc
        if invalid is not None:
            continue
        try:
            attempts[int(number)] = shape_attempt(payload, number)
        except DetailError as exc:
            # AgentCompass reads every attempt before it validates any, so a later
            # unreadable file is what it reports: keep reading.
            invalid = _blocking(result_file, str(exc), exc.rule)
    if not recorded:
        message = "no attempt has a terminal payload (attempts is required and must be a non-empty mapping)"
        raise _Refused(_blocking(task_file, message, RULE_DETAIL))
    if invalid is not None:
        raise _Refused(invalid)
    try:
        k, strategy = shape_plan(index["attempt_plan"], max(recorded), strategies)
    except DetailError as exc:
        raise _Refused(_blocking(task_file, str(exc), exc.rule)) from exc
    if any(number > k for number in retry_counts):
        message = "retry_counts contains an attempt index greater than attempt_plan.k"
        raise _Refused(_blocking(task_file, message, RULE_DETAIL))
    try:
        category = task_category(index["category"])
    except DetailError as exc:
        raise _Refused(_blocking(task_file, str(exc), exc.rule)) from exc
    return TaskRecord(
        task_id=entry.task_id or "",
        category=category,
        plan_k=k,
        plan_strategy=strategy,
        attempts=alike_attempts(dict(sorted(attempts.items()))),
        retry_counts=dict(sorted(retry_counts.items())) or NO_RETRIES,
        ground_truth=ON_DISK,  # present (checked by _read_index); read again where shown
        source=task_file,
    )


def _read_result(files: RunFiles, result_file: str) -> dict[str, Any]:
    """One result.json with a valid ``retry_count`` (spec §1.6).

    Files over 1 MiB are parsed without their trajectory (never needed for scoring).
    """
    data, problem = files.read_bytes(result_file, strict=True, blocking=True)
    if problem is not None:
        raise _Refused(problem)
    payload: Any = None
    if data is not None:
        if len(data) >= MIN_SIZE:
            try:
                payload = parse_result_without_trajectory(data)
            except ValueError:
                payload = None  # not JSON: parse_json below says why
        if payload is None:
            try:
                payload = parse_json(data)
            except JsonError as exc:
                raise _Refused(_blocking(result_file, str(exc), RULE_JSON)) from None
        del data
    if not isinstance(payload, dict):
        message = f"result.json must be an object, got {type(payload).__name__}"
        raise _Refused(_blocking(result_file, message, RULE_RETRY_COUNT))
    if _needs_exact(payload):
        payload = exact_json(files, result_file, payload)
    if "retry_count" not in payload:
        raise _Refused(_blocking(result_file, "result.json has no retry_count", RULE_RETRY_COUNT))
    count = payload["retry_count"]
    if type(count) is not int or count < 0:
        message = f"invalid attempt retry_count {count!r}: must be an integer >= 0"
        raise _Refused(_blocking(result_file, message, RULE_RETRY_COUNT))
    checked: dict[str, Any] = payload  # an object (checked above)
    return checked


def _needs_exact(payload: dict[str, Any]) -> bool:
    """True when orjson may have turned a huge integer that matters into a float."""
    metrics = payload.get("metrics")
    values = [*metrics.values()] if isinstance(metrics, dict) else []
    values.append(payload.get("retry_count"))
    return any(type(value) is float and abs(value) >= _BIG for value in values)


def exact_json(files: RunFiles, rel: str, fallback: dict[str, Any]) -> dict[str, Any]:
    data, _ = files.read_bytes(rel, strict=True, blocking=True)
    try:
        return parse_json(data, exact=True) if data is not None else fallback
    except ValueError:
        return fallback


def _index_attempt_dirs(folder: str, index: dict[str, Any]) -> AttemptDirs:
    raw = index.get("attempts")
    if not isinstance(raw, dict):
        return AttemptDirs(folder, ())
    return AttemptDirs(
        folder,
        tuple(
            int(number)
            for number, token in raw.items()
            if is_canonical_attempt_key(number) and token == f"attempt-{number}"
        ),
    )


def _scan_attempt_dirs(files: RunFiles, folder: str) -> AttemptDirs:
    names, _ = files.subdirs(folder)
    found = set()
    for name in names:
        number = name.removeprefix("attempt-")
        if name.startswith("attempt-") and is_canonical_attempt_key(number):
            found.add(int(number))
    return AttemptDirs(folder, tuple(sorted(found)))


def _blocking(path: str, message: str, rule: str) -> LoadProblem:
    return LoadProblem(path, message, rule, True)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
