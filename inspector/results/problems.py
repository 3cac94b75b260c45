"""What can be wrong with a run directory, in words a user can act on.

Every unreadable or invalid file becomes a :class:`LoadProblem`: the file (relative to the
run directory), one line saying what is wrong, the spec rule it breaks, and whether
AgentCompass itself would refuse to load the whole run because of it (``blocking``).
"""

from __future__ import annotations

from dataclasses import dataclass

# The spec rules problems refer to (../shared/spec/agentcompass-results.md).
RULE_JSON = "spec §1.3 (JSON files are UTF-8 JSON)"
RULE_RUN_INFO = "spec §1.7 step 4 (run_info.json)"
RULE_RUN_INFO_V2 = "spec §9.2 (run_info.json v2)"
RULE_PUBLICATION = "spec §1.7 (publication)"
RULE_TASK_NAME = "spec §1.4 (task directory name)"
RULE_ONE_FOLDER = "spec §1.4 (one folder per task)"
RULE_TASK_INDEX = "spec §1.5 (task index)"
RULE_RETRY_COUNT = "spec §1.6 (retry_count)"
RULE_DETAIL = "spec §2.1 (task detail)"
RULE_ATTEMPT_PLAN = "spec §2.1 (attempt_plan)"
RULE_ATTEMPT = "spec §2.2 (attempt payload)"
RULE_METRICS = "spec §2.2 (metrics)"
RULE_STATUS = "spec §2.2 (status)"
RULE_ISSUES = "spec §2.2 (issues must be a list)"
RULE_ISSUE = "spec §3 (issue fields)"
RULE_ATTEMPT_ERROR = "spec §2.2 (no `error` key in a v3 attempt)"
RULE_LEGACY = "spec §9.2 (legacy v2 conversion)"
RULE_DUPLICATE_ID = "spec §1.7 step 4 (first task_id wins)"
RULE_SYMLINK = "layout.contained (no symbolic links in result paths)"
RULE_NOT_A_TASK = "spec §1.7 step 1 (task candidates)"
RULE_OLD_FLAT = "spec §9.2 (older flat detail files are not read)"
RULE_STORED = "spec §8.1 (stored metrics.json)"
RULE_RUN_FILE = "spec §1.8 (run-level files)"
RULE_SPECIAL = "spec §1.3 (result files are regular files)"
RULE_NO_DETAILS = "spec §1.7 step 1 (details/ holds the task folders)"


@dataclass(frozen=True)
class LoadProblem:
    """One thing wrong with one file of a run.

    Attributes:
        path: The file or folder, relative to the run directory, POSIX separators
            ("" for the run directory itself).
        message: One line: what is wrong.
        rule: Which spec rule it breaks.
        blocking: True when AgentCompass itself would refuse to load the whole run;
            False when it silently skips the file or task, or merely tolerates it.
    """

    path: str
    message: str
    rule: str
    blocking: bool

    def __post_init__(self) -> None:
        # A problem is always one line, whatever the exception text held.
        object.__setattr__(self, "message", one_line(self.message))

    def line(self) -> str:
        """``<path>: <message>``, one line, for CLI stderr ("." names the run directory)."""
        return f"{self.path or '.'}: {self.message}"


class RunReadError(Exception):
    """The path is not a readable run directory at all (missing, not a directory, unlistable)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(one_line(f"{path}: {reason}"))
        self.path = path
        self.reason = one_line(reason)


class ResultFileError(Exception):
    """A lazily read file (attempt payload, checkpoint, retry record, log) could not be read."""

    def __init__(self, problem: LoadProblem) -> None:
        super().__init__(problem.line())
        self.problem = problem


def one_line(text: str, limit: int = 400) -> str:
    """Collapse whitespace runs (newlines included) and cut very long text."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
