"""What can be wrong with a run directory, in words a user can act on.

Every unreadable or invalid file becomes a :class:`LoadProblem`: the file (relative to the
run directory), one line saying what is wrong, the rule it breaks (in words; the comments
name the section of ../shared/spec/agentcompass-results.md), and whether
AgentCompass itself would refuse to load the whole run because of it (``blocking``).
"""

from __future__ import annotations

from dataclasses import dataclass

# The rules of AgentCompass's layout that problems refer to, as users read them.
RULE_JSON = "every file is UTF-8 JSON"  # spec §1.3
RULE_RUN_INFO = "a readable run_info.json"  # spec §1.7 step 4
RULE_RUN_INFO_V2 = "run_info.json of the older v2 layout"  # spec §9.2
RULE_PUBLICATION = "task publication (category, ground_truth, attempt_plan)"  # spec §1.7
RULE_TASK_NAME = "a task folder is named after its task id"  # spec §1.4
RULE_ONE_FOLDER = "one folder per task"  # spec §1.4
RULE_TASK_INDEX = "the task index (task.json)"  # spec §1.5
RULE_RETRY_COUNT = "retry_count"  # spec §1.6
RULE_DETAIL = "the task's task.json"  # spec §2.1
RULE_ATTEMPT_PLAN = "attempt_plan"  # spec §2.1
RULE_ATTEMPT = "an attempt's result.json"  # spec §2.2
RULE_METRICS = "an attempt's metrics"  # spec §2.2
RULE_STATUS = "an attempt's status"  # spec §2.2
RULE_ISSUES = "issues must be a list"  # spec §2.2
RULE_ISSUE = "issue fields"  # spec §3
RULE_ATTEMPT_ERROR = "no `error` key in a v3 attempt"  # spec §2.2
RULE_LEGACY = "conversion of the older v2 layout"  # spec §9.2
RULE_DUPLICATE_ID = "the first task folder with a task_id wins"  # spec §1.7 step 4
RULE_SYMLINK = "no symbolic links in result paths"  # layout.contained
RULE_NOT_A_TASK = "what counts as a task folder"  # spec §1.7 step 1
RULE_OLD_FLAT = "older flat detail files are not read"  # spec §9.2
RULE_STORED = "the stored metrics.json"  # spec §8.1
RULE_RUN_FILE = "run-level files"  # spec §1.8
RULE_SPECIAL = "result files are regular files"  # spec §1.3
RULE_NO_DETAILS = "details/ holds the task folders"  # spec §1.7 step 1


NOTED_RULES = frozenset({RULE_RUN_INFO_V2})
"""Problems about a file that is still read (a v2 ``run_info.json`` loads): only noted."""


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

    @property
    def effect(self) -> str:
        """What the problem does: ``refuses run`` (AgentCompass would refuse the whole run),
        ``noted`` (the file is still read) or ``skipped`` (the file or task is left out)."""
        if self.blocking:
            return "refuses run"
        return "noted" if self.rule in NOTED_RULES else "skipped"

    def line(self) -> str:
        """``<path>: <message>``, one line, for CLI stderr ("." names the run directory)."""
        return f"{self.path or '.'}: {self.message}"


def unreadable(message: str) -> bool:
    """Whether a problem's ``message`` (as :mod:`inspector.results.run_files` words it) says
    the file or folder could not be read at all: what it holds is not known."""
    return message.startswith(("permission denied", "cannot be read:", "folder cannot be listed ("))


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
