"""Error fingerprints: every issue of every attempt (and of every retry record) reduced to its
phase, its code and its message with the volatile parts replaced, grouped with the attempts,
tasks and runs that carry it, and one example message kept literally (issue 41).

The normaliser is a table of rules (:data:`RULES`), applied in order; each replaces one kind
of volatile text (a UUID, a URL, a timestamp, a path, a quoted value, a duration, a port, a
hex string, a number) by a placeholder, so that "timed out after 301.2s on port 8123" and
"timed out after 299.9s on port 8080" are one error. The standard library's ``re`` does the
job: the rules are plain regular expressions, and a table of them is easy to read and test.

Pure: no I/O, no textual, no rich. The stable face (the gate imports it):

- :func:`normalise` ``(message) -> str`` and :func:`fingerprint` ``(phase, code, message) -> str``;
- :func:`occurrences` ``(run, tasks, retry_issues=None) -> list[Occurrence]`` — one run's issues;
- :func:`group` ``(occurrences) -> list[FingerprintGroup]`` — grouped, most attempts first;
- :func:`against` ``(before, after) -> list[FingerprintChange]`` — new / grown / gone / same.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from inspector.engine.model import Issue, TaskRecord

# (name, pattern, placeholder), applied in this order: white space made one space first
# (a rule may match across it), a URL before the path and port inside
# it, a timestamp before the numbers inside it, a quoted value before what it quotes, a
# number (all digits) before a hex string (digits and letters). A placeholder's ``<`` and
# ``>`` count as part of a word next to it, so that a fingerprint normalises to itself.
RULES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("space", re.compile(r"\s+"), " "),
    (
        "uuid",
        re.compile(
            r"(?<![\w>])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
            r"(?![\w<])"
        ),
        "<uuid>",
    ),
    ("url", re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+"), "<url>"),
    (
        "timestamp",
        re.compile(
            r"(?<![\w>])\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"
            r"(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w:<])"
        ),
        "<time>",
    ),
    ("clock", re.compile(r"(?<![\w:.>])\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?![\w:<])"), "<time>"),
    ("quoted", re.compile(r"(?<![\w>])'[^'\n]*'(?![\w<])|\"[^\"\n]*\"|`[^`\n]*`"), "<str>"),
    (
        "path",
        re.compile(
            r"(?<![\w/.<>])(?:[A-Za-z]:\\|~?/|\.{1,2}/)(?:[\w.@+~-]+[/\\])*[\w.@+~-]+[/\\]?"
        ),
        "<path>",
    ),
    (
        "duration",
        re.compile(
            r"(?<![\w.>])\d+(?:\.\d+)?\s?(?:ms|us|µs|ns|s|sec|secs|seconds?|min|mins|minutes?"
            r"|m|h|hrs?|hours?)(?![\w<])"
        ),
        "<duration>",
    ),
    ("ip", re.compile(r"(?<![\w.>])\d{1,3}(?:\.\d{1,3}){3}(?![\w.<])"), "<ip>"),
    ("port", re.compile(r"(?<=[A-Za-z0-9\]>]):\d{2,5}(?!\w)"), ":<port>"),
    (
        "number",
        re.compile(r"(?<![\w.>])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w<]|\.\d)"),
        "<n>",
    ),
    (
        "hex",
        re.compile(r"(?<![\w>])(?:0[xX][0-9a-fA-F]+|(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{8,})(?![\w<])"),
        "<hex>",
    ),
)


def normalise(message: str) -> str:
    """``message`` with every volatile part replaced by its placeholder (:data:`RULES`)."""
    text = message
    for _, pattern, placeholder in RULES:
        text = pattern.sub(placeholder, text)
    return text.strip()


def fingerprint(phase: str, code: str, message: str) -> str:
    """One error's fingerprint: ``phase/code: normalised message``."""
    return f"{phase}/{code}: {normalise(message)}"


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One issue of one attempt of one task of one run (``attempt`` 0: not known)."""

    run: str
    task_id: str
    attempt: int
    phase: str
    code: str
    message: str
    source: str = "issue"
    """``issue`` (the attempt's result) or ``retry`` (a retry record's issue)."""


def occurrences(
    run: str,
    tasks: Iterable[TaskRecord],
    retry_issues: Mapping[str, Sequence[tuple[int, Issue]]] | None = None,
) -> list[Occurrence]:
    """Every issue of the scored attempts of one run's ``tasks``, and of its retry records
    (``retry_issues``: task id -> ``(attempt, issue)`` pairs), in task and attempt order."""
    out: list[Occurrence] = []
    for task in tasks:
        for index in sorted(task.attempts):
            for issue in task.attempts[index].issues:
                out.append(
                    Occurrence(run, task.task_id, index, issue.phase, issue.code, issue.message)
                )
        for index, issue in (retry_issues or {}).get(task.task_id, ()):
            out.append(
                Occurrence(
                    run, task.task_id, index, issue.phase, issue.code, issue.message, "retry"
                )
            )
    return out


@dataclass(frozen=True, slots=True)
class FingerprintGroup:
    """The occurrences sharing one fingerprint."""

    fingerprint: str
    phase: str
    code: str
    example: str
    """The first message seen, literally."""
    attempts: int
    """Distinct (run, task, attempt) carrying it."""
    tasks: int
    """Distinct task ids carrying it."""
    runs: int
    """Distinct runs carrying it."""

    def to_json(self) -> dict[str, object]:
        return {
            "fingerprint": self.fingerprint,
            "phase": self.phase,
            "code": self.code,
            "example": self.example,
            "attempts": self.attempts,
            "tasks": self.tasks,
            "runs": self.runs,
        }


def group(found: Iterable[Occurrence]) -> list[FingerprintGroup]:
    """Occurrences grouped by fingerprint, most attempts first (then by fingerprint)."""
    seen: dict[str, tuple[Occurrence, set[tuple[str, str, int]], set[str], set[str]]] = {}
    memo: dict[tuple[str, str, str], str] = {}
    for item in found:
        key = (item.phase, item.code, item.message)
        print_ = memo.get(key)
        if print_ is None:
            print_ = memo[key] = fingerprint(*key)
        entry = seen.get(print_)
        if entry is None:
            entry = seen[print_] = (item, set(), set(), set())
        entry[1].add((item.run, item.task_id, item.attempt))
        entry[2].add(item.task_id)
        entry[3].add(item.run)
    groups = [
        FingerprintGroup(print_, first.phase, first.code, first.message, len(a), len(t), len(r))
        for print_, (first, a, t, r) in seen.items()
    ]
    groups.sort(key=lambda g: (-g.attempts, g.fingerprint))
    return groups


NEW, GROWN, GONE, SAME = "new", "grown", "gone", "same"
STATUSES = (NEW, GROWN, GONE, SAME)


@dataclass(frozen=True, slots=True)
class FingerprintChange:
    """One fingerprint on two sides: ``before`` and ``after`` are attempt counts (0: absent);
    ``group`` is the after side's group, else the before side's."""

    group: FingerprintGroup
    status: str
    before: int
    after: int

    @property
    def ratio(self) -> float | None:
        """after / before, None when it was absent before."""
        return self.after / self.before if self.before else None

    def to_json(self) -> dict[str, object]:
        return {**self.group.to_json(), "status": self.status, "before": self.before,
                "after": self.after}  # fmt: skip


def against(
    before: Sequence[FingerprintGroup], after: Sequence[FingerprintGroup]
) -> list[FingerprintChange]:
    """Each fingerprint of either side: ``new`` (only after), ``gone`` (only before),
    ``grown`` (more attempts after than before), else ``same`` (as many or fewer). New
    first, then grown (largest ratio first), gone, same."""
    old = {g.fingerprint: g for g in before}
    new = {g.fingerprint: g for g in after}
    out = []
    for print_, g in new.items():
        was = old.get(print_)
        if was is None:
            out.append(FingerprintChange(g, NEW, 0, g.attempts))
        else:
            status = GROWN if g.attempts > was.attempts else SAME
            out.append(FingerprintChange(g, status, was.attempts, g.attempts))
    out += [FingerprintChange(g, GONE, g.attempts, 0) for p, g in old.items() if p not in new]
    order = {status: index for index, status in enumerate(STATUSES)}
    out.sort(
        key=lambda c: (order[c.status], -(c.ratio or 0.0), -c.after, -c.before, c.group.fingerprint)
    )
    return out
