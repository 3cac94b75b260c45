"""Error fingerprints: every issue of every attempt (and of every retry record) reduced to its
phase, its code and its message with the volatile parts replaced, grouped with the attempts,
tasks and runs that carry it, and one example message kept literally.

The normaliser is a table of rules (:data:`RULES`), applied in order; each replaces one kind
of volatile text (a UUID, a URL, a timestamp, a path, a quoted value, a duration, a port, a
hex string, a number) by a placeholder, so that "timed out after 301.2s on port 8123" and
"timed out after 299.9s on port 8080" are one error. The standard library's ``re`` does the
job: the rules are plain regular expressions, and a table of them is easy to read and test.

Hostile messages cost little: every rule runs in time linear in the text (the
comment over :data:`RULES` says why, rule by rule), and a fingerprint reads only the first
:data:`PREFIX` characters of a message; a longer message's fingerprint ends in
:data:`CUT`, and its example is that prefix. Grouping (:class:`Fingerprints`) keeps per
fingerprint its counts, the task ids carrying it and one example, never the messages, so
that a root's fingerprints cost memory in proportion to the fingerprints, not the issues.

Pure: no I/O, no textual, no rich. The stable face (the gate imports it):

- :func:`normalise` ``(message) -> str`` and :func:`fingerprint` ``(phase, code, message) -> str``;
- :func:`occurrences` ``(run, tasks, retry_issues=None) -> list[Occurrence]`` — one run's issues;
- :func:`group` ``(occurrences) -> list[FingerprintGroup]`` — grouped, most attempts first;
  :class:`Fingerprints` does the same in steps (add one run's occurrences, merge runs);
- :func:`against` ``(before, after, runs=(1, 1)) -> list[FingerprintChange]`` — new / grown /
  gone / same, per run when the two sides have different numbers of runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from inspector.engine.model import Issue, TaskRecord

PREFIX = 4096
"""Characters of a message a fingerprint reads. Real messages are one line to a few hundred
characters (the longest in the fixtures is 117); 4096 holds a long one with a short
traceback, and caps the rules' work at about a millisecond a message, so a 10 MB message
costs no more than a long one (docs/decisions/app-responsiveness.md)."""
CUT = "<cut>"
"""Ends the fingerprint of a message longer than :data:`PREFIX` (the rest was not read)."""

# (name, pattern, placeholder), applied in this order: white space made one space first
# (a rule may match across it), a URL before the path and port inside
# it, a timestamp before the numbers inside it, a quoted value before what it quotes, a
# number (all digits) before a hex string (digits and letters). A placeholder's ``<`` and
# ``>`` count as part of a word next to it, so that a fingerprint normalises to itself.
#
# Linear time, rule by rule (``re`` backtracks; a rule is linear when each try from a
# position costs O(1) or scans text no other try scans): uuid, ip and port have bounded
# lengths; url's scheme is bounded (at most 32 characters: unbounded, ``a.a.a.…`` made
# every ``a`` scan to the end of the token, quadratic) and its rest always matches what it
# scans; timestamp, clock, duration, number and hex start only where no word character
# precedes (their look-behinds), so a run of digits or hex is scanned by one try; a quoted
# value scans to the next quote of its kind (no newline is left after ``space``); a path's
# segments are split by slashes, which its character class lacks, so it backtracks at most
# one segment. tests/items/test_fingerprint_cost.py times each rule on its trigger.
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
    ("url", re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{0,31}+://[^\s'\"<>]+"), "<url>"),
    (
        "timestamp",
        re.compile(
            r"(?<![\w>])\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"
            r"(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w:<])"
        ),
        "<time>",
    ),
    ("clock", re.compile(r"(?<![\w:.>])\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?![\w:<])"), "<time>"),
    # (a single-quoted value never starts or ends beside another single quote: ``''0''``
    # made ``'<str>'``, which made ``<str>``)
    ("quoted", re.compile(r"(?<![\w>'])'[^'\n]*'(?![\w<'])|\"[^\"\n]*\"|`[^`\n]*`"), "<str>"),
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


def replace_volatile(text: str) -> str:
    """``text`` with every volatile part replaced by its placeholder (:data:`RULES`), all of
    it read (linear in its length)."""
    for _, pattern, placeholder in RULES:
        text = pattern.sub(placeholder, text)
    return text.strip()


def normalise(message: str) -> str:
    """The first :data:`PREFIX` characters of ``message`` with every volatile part replaced,
    followed by :data:`CUT` when the message is longer."""
    if len(message) <= PREFIX:
        return replace_volatile(message)
    return f"{replace_volatile(message[:PREFIX])} {CUT}"


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
    """The first message seen, literally (its first :data:`PREFIX` characters)."""
    attempts: int
    """Distinct (run, task, attempt) carrying it."""
    tasks: int
    """Distinct task ids carrying it."""
    runs: int
    """Distinct runs carrying it."""
    cut: bool = False
    """Its messages are longer than :data:`PREFIX`: the fingerprint and the example are
    made of their first :data:`PREFIX` characters (the fingerprint ends in :data:`CUT`)."""

    def to_json(self) -> dict[str, object]:
        return {
            "fingerprint": self.fingerprint,
            "phase": self.phase,
            "code": self.code,
            "example": self.example,
            "attempts": self.attempts,
            "tasks": self.tasks,
            "runs": self.runs,
            "cut": self.cut,
        }


@dataclass(slots=True)
class _Tally:
    """One fingerprint's counts so far."""

    phase: str
    code: str
    example: str
    cut: bool
    attempts: int = 0
    runs: int = 0
    tasks: set[str] = field(default_factory=set)


class Fingerprints:
    """Occurrences grouped by fingerprint as they come (:meth:`add`), and the groups of other
    runs merged in (:meth:`merge`): a worker process groups its run, the parent merges.

    Memory: per fingerprint its counts, one example (at most :data:`PREFIX` characters) and
    the task ids carrying it (one string per distinct id); while adding, also each
    (fingerprint, attempt) seen, which :meth:`seal` lets go. No message is kept.
    """

    def __init__(self) -> None:
        self.tallies: dict[str, _Tally] = {}
        self.runs: set[str] = set()
        """Every run grouped here, those without an issue included."""
        self._seen: set[tuple[str, str, str, int]] = set()
        self._runs_seen: set[tuple[str, str]] = set()
        self._memo: dict[tuple[str, str, str], str] = {}
        self._ids: dict[str, str] = {}

    def add_run(self, run: str) -> None:
        """Count ``run`` as grouped here even if it carries no issue."""
        self.runs.add(run)

    def add(self, found: Iterable[Occurrence]) -> Fingerprints:
        """Group ``found`` (of runs not merged in from elsewhere); returns ``self``."""
        for item in found:
            prefix = item.message[: PREFIX + 1]  # one more: a cut message stays apart
            key = (item.phase, item.code, prefix)
            print_ = self._memo.get(key)
            if print_ is None:
                if len(self._memo) >= 1024:  # bounded: distinct messages may be countless
                    self._memo.clear()
                print_ = self._memo[key] = fingerprint(*key)
            tally = self.tallies.get(print_)
            if tally is None:
                cut = len(prefix) > PREFIX
                tally = self.tallies[print_] = _Tally(item.phase, item.code, prefix[:PREFIX], cut)
            self.runs.add(item.run)
            if (print_, item.run) not in self._runs_seen:
                self._runs_seen.add((print_, item.run))
                tally.runs += 1
            if (print_, item.run, item.task_id, item.attempt) not in self._seen:
                self._seen.add((print_, item.run, item.task_id, item.attempt))
                tally.attempts += 1
            tally.tasks.add(self._ids.setdefault(item.task_id, item.task_id))
        return self

    def seal(self) -> Fingerprints:
        """Forget what :meth:`add` needs to count each attempt once (before sending this to
        another process or merging it); returns ``self``."""
        self._seen.clear()
        self._runs_seen.clear()
        self._memo.clear()
        self._ids.clear()
        return self

    def merge(self, other: Fingerprints) -> None:
        """Add the groups of ``other``, whose runs are none of these.

        Raises:
            ValueError: a run is in both (its attempts would count twice).
        """
        if not self.runs.isdisjoint(other.runs):
            raise ValueError(f"runs grouped twice: {sorted(self.runs & other.runs)[:3]}")
        self.runs |= other.runs
        for print_, theirs in other.tallies.items():
            tally = self.tallies.get(print_)
            if tally is None:
                tally = self.tallies[print_] = _Tally(
                    theirs.phase, theirs.code, theirs.example, theirs.cut
                )
            tally.attempts += theirs.attempts
            tally.runs += theirs.runs
            tally.tasks.update(self._ids.setdefault(t, t) for t in theirs.tasks)

    def groups(self) -> list[FingerprintGroup]:
        """The groups, most attempts first (then by fingerprint)."""
        found = [
            FingerprintGroup(
                print_, t.phase, t.code, t.example, t.attempts, len(t.tasks), t.runs, t.cut
            )
            for print_, t in self.tallies.items()
        ]
        found.sort(key=lambda g: (-g.attempts, g.fingerprint))
        return found


def group(found: Iterable[Occurrence]) -> list[FingerprintGroup]:
    """Occurrences grouped by fingerprint, most attempts first (then by fingerprint)."""
    return Fingerprints().add(found).groups()


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
    before_runs: int = 1
    """Runs read on the before side (those without an issue included)."""
    after_runs: int = 1
    """Runs read on the after side."""

    @property
    def ratio(self) -> float | None:
        """after / before, in attempts per run of each side (the plain ratio when both have
        as many runs); None when it was absent before."""
        if not self.before:
            return None
        return (self.after * self.before_runs) / (self.before * self.after_runs)

    def to_json(self) -> dict[str, object]:
        return {**self.group.to_json(), "status": self.status, "before": self.before,
                "after": self.after, "before_runs": self.before_runs,
                "after_runs": self.after_runs}  # fmt: skip


def against(
    before: Sequence[FingerprintGroup],
    after: Sequence[FingerprintGroup],
    runs: tuple[int, int] = (1, 1),
) -> list[FingerprintChange]:
    """Each fingerprint of either side: ``new`` (only after), ``gone`` (only before),
    ``grown`` (more attempts per run after than before: ``runs`` is the two sides' run
    counts), else ``same`` (as many or fewer). New first, then grown (largest ratio first),
    gone, same."""
    old = {g.fingerprint: g for g in before}
    new = {g.fingerprint: g for g in after}
    out = []
    for print_, g in new.items():
        was = old.get(print_)
        if was is None:
            out.append(FingerprintChange(g, NEW, 0, g.attempts, *runs))
        else:
            grown = g.attempts * runs[0] > was.attempts * runs[1]
            out.append(FingerprintChange(g, GROWN if grown else SAME, was.attempts, g.attempts,
                                         *runs))  # fmt: skip
    out += [FingerprintChange(g, GONE, g.attempts, 0, *runs) for p, g in old.items()
            if p not in new]  # fmt: skip
    order = {status: index for index, status in enumerate(STATUSES)}
    out.sort(
        key=lambda c: (order[c.status], -(c.ratio or 0.0), -c.after, -c.before, c.group.fingerprint)
    )
    return out
