"""Where things are in a run directory: names, schemas, states and size limits.

Names and folder rules follow AgentCompass 1.0.1 ``runtime/results/layout.py`` (spec §1.4,
§1.7). Reading the files is :class:`~inspector.results.run_files.RunFiles`' job, on the
primitives of :mod:`inspector.results.file_io`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal

TASK_SCHEMA = "agentcompass.task.v3"
PREVIOUS_TASK_SCHEMA = "agentcompass.task.v2"
# A tuple, not a set: values read from disk may be unhashable (a list, an object).
TASK_SCHEMAS = (TASK_SCHEMA, PREVIOUS_TASK_SCHEMA)
RUN_INFO_SCHEMA = "agentcompass.run_info.v3"
PREVIOUS_RUN_INFO_SCHEMA = "agentcompass.run_info.v2"
CHECKPOINT_SCHEMA = "agentcompass.attempt_checkpoint.v1"
CHECKPOINT_MAX_BYTES = 32 * 1024**2
RUN_INFO_MAX_BYTES = 4 * 1024**3
"""``run_info.json`` grows with the run (about 190 MB at 50,000 tasks × k=3)."""
RUN_FILE_MAX_BYTES = 256 * 1024**2
"""The other run-level files (params.json, metrics.json, summary.md, progress.json)."""

RUNNING, NORMAL, ERROR, FATAL = "running", "normal", "error", "fatal"
FINAL_STATES = (NORMAL, ERROR, FATAL)
TASK_STATES = (RUNNING, *FINAL_STATES)
StateName = Literal["normal", "error", "fatal", "running", "v2"]
"""Where a task folder was found: a state folder, or ``v2`` (directly under details/)."""
# The publication marker: all three or none (spec §1.5).
SHARED_TASK_KEYS = ("category", "ground_truth", "attempt_plan")

_UNSAFE = re.compile(r"[^A-Za-z0-9._=-]+")


def task_directory_name(task_id: str) -> str:
    """The folder name AgentCompass gives a task (spec §1.4).

    Raises:
        ValueError: ``task_id`` is not a non-empty string without surrounding whitespace.
    """
    if type(task_id) is not str or not task_id.strip() or task_id != task_id.strip():
        raise ValueError("task_id must be a non-empty string without surrounding whitespace")
    readable = _UNSAFE.sub("_", task_id).strip("._-")[:80] or "task"
    return f"{readable}--{hashlib.sha256(task_id.encode()).hexdigest()}"


_COMMON_KEYS = frozenset(str(number) for number in range(1, 65))


def is_canonical_attempt_key(key: object) -> bool:
    """``"1"``, ``"2"``, …: a positive integer string as AgentCompass writes it."""
    if type(key) is str and key in _COMMON_KEYS:
        return True
    return (
        isinstance(key, str)
        and key.isascii()
        and key.isdigit()
        and not key.startswith("0")
        and int(key) >= 1
    )


def is_empty_optional(value: Any) -> bool:
    """``None``, ``""`` or an empty container: what AgentCompass treats as absent."""
    if value is None:
        return True
    if isinstance(value, str):
        return value == ""
    if isinstance(value, dict | list | tuple | set | frozenset):
        return len(value) == 0
    return False


def relpath(*parts: str) -> str:
    """Join POSIX path parts, dropping empty ones."""
    return "/".join([part for part in parts if part])


_NUMBERS: dict[tuple[int, ...], tuple[int, ...]] = {}


class AttemptDirs(Mapping[int, str]):
    """Attempt number → its folder (``<task folder>/attempt-N``), made when asked for.

    Every attempt folder a task is read from is named ``attempt-N`` (the index's tokens
    must be, and a scan takes only those), so the task folder and the numbers say it all:
    kept as strings they were a quarter of what a large run's tasks hold. Equal to the
    ``dict`` of the same items, and shown as one."""

    __slots__ = ("folder", "numbers")

    def __init__(self, folder: str, numbers: tuple[int, ...]) -> None:
        self.folder = folder
        # In the order the folders were found; equal numbers one tuple (most tasks have
        # the same), up to a bound.
        shared = _NUMBERS.get(numbers)
        if shared is None and len(_NUMBERS) < 1024:
            shared = _NUMBERS[numbers] = numbers
        self.numbers = numbers if shared is None else shared

    def __getitem__(self, number: int) -> str:
        if number not in self.numbers:
            raise KeyError(number)
        return relpath(self.folder, f"attempt-{number}")

    def __iter__(self) -> Iterator[int]:
        return iter(self.numbers)

    def __len__(self) -> int:
        return len(self.numbers)

    def __contains__(self, number: object) -> bool:
        return number in self.numbers

    def __repr__(self) -> str:
        return repr(dict(self.items()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (AttemptDirs, (self.folder, self.numbers))
