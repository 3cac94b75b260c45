"""The runs screen's rows: what each run stores, what its recomputation says, and the sorts
and filters over them. Pure: no textual, no rich.

A :class:`RunRow` starts with the run's :class:`~inspector.results.RunSummary` (the stored
headline, read without the tasks) and gains a :class:`~inspector.cli.check_root.RunCheck` once
the run has been recomputed in the background.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from inspector.engine.vocabulary import plural
from inspector.results.discover import RunSummary
from inspector.views.gate import RunGate
from inspector.views.gate_output import rule_counts
from inspector.views.run_check import (
    DIFFERS,
    NO_STORED_REPORT,
    OK,
    UNSTORED,
    UNUSABLE,
    Headline,
    RunCheck,
)
from inspector.views.visible import visible

PENDING = "pending"
"""The check state of a run not yet recomputed."""

SORTS = ("date", "run", "model", "benchmark", "harness", "status", "check", "value")
"""What the runs can be sorted by, in the order ``s`` cycles through them."""

FILTER_FIELDS = ("model", "benchmark", "harness", "status", "date", "check", "plan", "run")
"""The fields a filter term can name (``model:gpt``); other words match anywhere."""


@dataclass(frozen=True)
class RunRow:
    """One run on the runs screen."""

    summary: RunSummary
    check: RunCheck | None = None
    """The check made now (None until it arrives)."""
    cached: RunCheck | None = None
    """What the last check found, shown (marked as cached) until :attr:`check` arrives."""
    gating: bool = False
    """The publish gate's result is shown (``G``): :attr:`gate`, or pending until it comes."""
    gate: RunGate | None = None
    gate_policy: str = ""
    """Where the policy the gate judged under came from (a file, or the defaults)."""

    @property
    def check_state(self) -> str:
        """``pending`` until recomputed, then ``ok`` / ``differs`` / ``unusable`` /
        ``unstored`` (recomputed, no stored metrics.json)."""
        return PENDING if self.check is None else self.check.state

    @property
    def latest(self) -> RunCheck | None:
        """The check made now, else the cached one (None: neither)."""
        return self.check if self.check is not None else self.cached

    @property
    def is_cached(self) -> bool:
        """Shows a cached check, not yet made again."""
        return self.check is None and self.cached is not None

    @property
    def recomputed(self) -> Headline | None:
        return self.check.headline if self.check is not None else None

    @property
    def value(self) -> float | None:
        """The recomputed headline value once known (cached until then), else the stored
        one."""
        latest = self.latest
        if latest is not None:
            return latest.headline.value if latest.headline is not None else None
        return self.summary.headline_value

    @property
    def tasks(self) -> int:
        """Tasks scored by the recomputation, else task folders found (v2 layout included)."""
        if self.check is not None and self.check.tasks is not None:
            return self.check.tasks
        return self.summary.published_count

    @property
    def plan(self) -> str:
        run = self.summary
        if run.k is None:
            return "-"
        return f"{run.strategy or '?'}@{run.k}" if run.k > 1 else "k=1"

    def field(self, name: str) -> str:
        """The text a filter term ``name:…`` is matched against."""
        run = self.summary
        values = {
            "model": run.model,
            "benchmark": run.benchmark,
            "harness": run.harness,
            "status": run.status,
            "date": run.started_at,
            "check": self.check_state,
            "plan": self.plan,
            "run": run.relative,
        }
        return values[name] or ""


def with_checks(rows: Sequence[RunRow], checks: dict[str, RunCheck]) -> list[RunRow]:
    """``rows`` with the checks that arrived (keyed by the run's path as text)."""
    return [replace(row, check=checks.get(str(row.summary.path), row.check)) for row in rows]


def with_gates(
    rows: Sequence[RunRow], gates: dict[str, RunGate], gating: bool, policy: str = ""
) -> list[RunRow]:
    """``rows`` showing the gate's results (keyed by the run's path as text) under ``policy``
    (where it came from), or not."""
    return [
        replace(
            row,
            gating=gating,
            gate=gates.get(str(row.summary.path)) if gating else None,
            gate_policy=policy if gating else "",
        )
        for row in rows
    ]


def gate_words(row: RunRow) -> str:
    """The gate's result in the detail line, naming the policy: pass and the rules by outcome
    (as ``inspector gate`` counts them), or FAIL, the counts and every failing series of each
    failed rule with what it measured, or why the run is unusable; the rules INCONCLUSIVE
    and not counted as failures by the policy named."""
    gate = row.gate
    head = f"gate (policy: {row.gate_policy})" if row.gate_policy else "gate"
    if gate is None:
        return f"{head}: judging…"
    if gate.problem is not None:
        return f"{head}: unusable: {gate.problem}"
    if not gate.failed:
        return f"{head}: pass: {rule_counts(gate, names=True)}"
    failed = []
    for outcome in gate.failed:  # each failure is "run: series: rule: measured; limit"
        series = []
        for failure in outcome.failures:
            where, _, what = failure.removeprefix(f"{gate.run}: ").partition(f": {outcome.rule}: ")
            series.append(f"{where} ({what})")
        failed.append(f"{outcome.rule}: " + ", ".join(series))
    return f"{head}: FAIL ({rule_counts(gate, names=True)}) " + "; ".join(failed)


def with_interval(check: RunCheck, answer: tuple[float, float, float] | None) -> RunCheck:
    """``check`` with its headline's interval, from ``(value, low, high)`` (the statistics
    of a read of the run): only when that value is the headline value the check shows (a
    run changed in between keeps no interval rather than another read's)."""
    headline = check.headline
    if answer is None or headline is None or headline.is_reference or answer[0] != headline.value:
        return check
    return replace(check, headline=replace(headline, interval=(answer[1], answer[2])))


# -- sorting ------------------------------------------------------------------------------

_CHECK_ORDER = {UNUSABLE: 0, DIFFERS: 1, UNSTORED: 2, OK: 3, PENDING: 4}


def sort_rows(rows: Iterable[RunRow], by: str, *, reverse: bool = False) -> list[RunRow]:
    """The rows sorted by one of :data:`SORTS`; rows without that field go last.

    ``date`` puts the newest first and ``check`` the failures first (``reverse`` turns
    either around); ties keep the newest-first order of the listing.
    """
    listed = list(rows)
    if by == "date":
        # The listing is newest first already (results.discover).
        return listed[::-1] if reverse else listed
    keyed: list[tuple[bool, float | str, RunRow]]
    if by == "value":
        keyed = [(row.value is None, -(row.value or 0.0), row) for row in listed]
    elif by == "check":
        keyed = [(False, _CHECK_ORDER[row.check_state], row) for row in listed]
    else:
        keyed = [(not row.field(by), row.field(by).casefold(), row) for row in listed]
    order = sorted(range(len(listed)), key=lambda i: keyed[i][:2])
    if reverse:
        present = [i for i in order if not keyed[i][0]]
        order = present[::-1] + [i for i in order if keyed[i][0]]
    return [listed[i] for i in order]


# -- filtering ----------------------------------------------------------------------------


@dataclass(frozen=True)
class RunFilter:
    """``field:text`` terms (each must match its field) and words (each must match some
    field); all case-insensitive substrings."""

    terms: tuple[tuple[str, str], ...] = ()
    words: tuple[str, ...] = ()
    unknown: tuple[str, ...] = field(default=())
    """Field names in the text that are not filter fields (matched as words)."""

    def matches(self, row: RunRow, haystack: str) -> bool:
        return all(text in row.field(name).casefold() for name, text in self.terms) and all(
            word in haystack for word in self.words
        )


def parse_filter(text: str) -> RunFilter:
    """``model:gpt status:failed k3`` → a :class:`RunFilter` (quotes group words)."""
    try:
        parts = shlex.split(text)
    except ValueError:  # an unclosed quote: take the words as they are
        parts = text.split()
    terms: list[tuple[str, str]] = []
    words: list[str] = []
    unknown: list[str] = []
    for part in parts:
        name, colon, value = part.partition(":")
        if colon and name.casefold() in FILTER_FIELDS:
            terms.append((name.casefold(), value.casefold()))
        else:
            if colon and name:
                unknown.append(name)
            words.append(part.casefold())
    return RunFilter(tuple(terms), tuple(words), tuple(unknown))


# -- the full text of a row (the status line) ---------------------------------------------


def describe(row: RunRow) -> list[str]:
    """Everything about the run, as parts of one line (none shortened): where it is, its
    numbers and check first, then what it ran."""
    run = row.summary
    parts = [run.relative]
    series = run.headline_series_id or (row.recomputed.series_id if row.recomputed else None)
    if series:
        parts.append(series)
    parts.append("stored " + _value(run.headline_value, run.headline_is_reference))
    check = row.latest
    if check is None:
        parts.append("recomputing…")
    elif check.state == UNUSABLE:
        cached = "cached (recomputing again…): " if row.is_cached else ""
        parts.append(f"{cached}cannot recompute: {check.problem}")
    else:
        headline = check.headline
        recomputed = _value(headline.value, headline.is_reference) if headline else "-"
        if row.is_cached:
            parts.append(f"cached: recomputed {recomputed} when last checked (checking again…)")
        else:
            parts.append(f"recomputed {recomputed}")
        if headline is not None and headline.interval is not None:
            low, high = headline.interval
            parts.append(f"interval [{low:.4f}, {high:.4f}]")
        if check.status == OK:
            parts.append("✓ metrics.json equals the recomputation")
        elif check.state == UNSTORED:
            parts.append(f"∅ {NO_STORED_REPORT}: {check.problem}")
        else:
            where, stored, recomputed_value = check.differences[0]
            more = len(check.differences) - 1
            parts.append(
                f"≠ {where}: stored {stored!r}, recomputed {recomputed_value!r}"
                + (f" (and {more} more)" if more else "")
            )
        if headline is not None:
            parts.append(
                f"{plural(headline.count('total'), 'task')}: error {headline.count('error')}, "
                f"unavailable {headline.count('unavailable')}, "
                f"invalidated {headline.count('invalidated')}"
            )
    if row.gating:
        parts.append(gate_words(row))
    parts += [
        f"status {run.status or '-'}",
        f"model {run.model or '-'}",
        f"benchmark {run.benchmark or '-'}",
        f"harness {run.harness or '-'}",
        f"plan {row.plan}",
    ]
    if run.started_at:
        parts.append(f"started {run.started_at}")
    if run.run_id != run.relative.rpartition("/")[2]:
        parts.append(f"run id {run.run_id}")
    return parts


def _value(value: float | None, is_reference: bool) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" + (" (reference: the evaluation failed)" if is_reference else "")


def haystack(row: RunRow) -> str:
    """What a word of the filter is looked for in: every field, made visible, casefolded."""
    run = row.summary
    parts = (
        run.relative, run.namespace, run.run_id, run.model, run.benchmark, run.harness,
        run.status, run.strategy, row.plan, run.started_at, row.check_state,
    )  # fmt: skip
    return " ".join(visible(p, one_line=True) for p in parts if p).casefold()
