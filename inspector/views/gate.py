"""The publish gate: a policy's rules judged on what the check of each run found.

Pure (no I/O, no textual, no rich). :class:`Policy` is what a policy file says
(:mod:`inspector.gate_policy` reads it); :class:`RunFacts` what a run's check and its
recomputation give (:mod:`inspector.views.gate_facts`); :func:`judge` the outcome of every
rule that applies to a run, one :class:`RuleOutcome` per rule (its series folded in).

A rule passes at its limit: ``max_*`` fails when the measured figure is above the limit,
``min_evaluated`` when it is below. A rule that cannot be judged (no ``--against`` run, a
series without an interval, no tasks) is *skipped*, saying why; it never passes silently.
A series rule whose scope's ``series`` glob matches none of the run's series *fails*
("matched nothing"): a typo in a glob must not pass. The rules that measure a change
(``max_regression``, ``min_improvement``) say PASS, FAIL or INCONCLUSIVE
(:mod:`inspector.views.gate_verdict`); the policy's ``inconclusive`` says what INCONCLUSIVE does.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from inspector.engine.vocabulary import plural

# FAIL, PASS, SKIP, Regression and RuleOutcome live in gate_verdict; imported from here too.
from inspector.views.gate_verdict import FAIL as FAIL
from inspector.views.gate_verdict import (
    INCONCLUSIVE,
    MEASURED_RULES,
    ON_INCONCLUSIVE,
    measured_verdict,
    outcome,
    regression_words,
)
from inspector.views.gate_verdict import PASS as PASS
from inspector.views.gate_verdict import SKIP as SKIP
from inspector.views.gate_verdict import Regression as Regression
from inspector.views.gate_verdict import RuleOutcome as RuleOutcome

RUN_RULES = (
    "require_stored_equal",
    "require_finished",
    "forbid_derived_plan",
    "max_new_error_fingerprints",
    "max_fingerprint_growth",
)
"""Rules about the run as a whole (scoped by benchmark only)."""
SERIES_RULES = (
    "max_error_rate",
    "max_unavailable_rate",
    "max_invalidated",
    "min_evaluated",
    "max_ci_width",
    "max_regression",
    "min_improvement",
)
"""Rules judged on each series the scope's ``series`` glob names."""
RULES = RUN_RULES + SERIES_RULES
AGAINST_RULES = frozenset(("max_new_error_fingerprints", "max_fingerprint_growth", *MEASURED_RULES))
"""Rules that compare with the ``--against`` run."""
HEADLINE = "headline"
"""``series = "headline"``: the run's headline series, whatever its id."""
FINISHED = "completed"
"""``run_info.status`` of a run that finished (AgentCompass's word)."""

Limit = bool | int | float


@dataclass(frozen=True)
class Scope:
    """Limits for the runs of benchmarks matching ``benchmark`` and the series matching
    ``series`` (globs; ``headline`` names the headline series)."""

    benchmark: str = "*"
    series: str = HEADLINE
    limits: Mapping[str, Limit] = field(default_factory=dict)

    def covers_benchmark(self, benchmark: str | None) -> bool:
        return fnmatch.fnmatchcase(benchmark or "", self.benchmark)

    def covers_series(self, series: SeriesFacts) -> bool:
        if self.series == HEADLINE:
            return series.headline
        return fnmatch.fnmatchcase(series.series_id, self.series)


@dataclass(frozen=True)
class Policy:
    """The rules in force: the top level first, then each ``[[scope]]`` in the file's order;
    for a run (and series) the last scope that covers it and names a rule gives its limit.
    A rule no scope names is off."""

    source: str
    scopes: tuple[Scope, ...]
    inconclusive: str = ON_INCONCLUSIVE[0]
    """What an INCONCLUSIVE verdict does: ``warn`` (skipped, with a warning), ``fail``, ``pass``."""

    def limit(self, rule: str, benchmark: str | None, series: SeriesFacts | None) -> Limit | None:
        found: Limit | None = None
        for scope in self.scopes:
            covered = series is None or scope.covers_series(series)
            if rule in scope.limits and scope.covers_benchmark(benchmark) and covered:
                found = scope.limits[rule]
        return found

    def names(self, rule: str, benchmark: str | None) -> bool:
        """Some scope covering the benchmark names the rule (it applies to the run)."""
        return any(rule in s.limits and s.covers_benchmark(benchmark) for s in self.scopes)

    def unmatched(
        self, rule: str, benchmark: str | None, series: Sequence[SeriesFacts]
    ) -> list[Scope]:
        """The scopes covering the benchmark that name the rule but none of ``series``
        (a typo in a series glob must not pass)."""
        return [
            s for s in self.scopes
            if rule in s.limits and s.covers_benchmark(benchmark)
            and not any(s.covers_series(one) for one in series)
        ]  # fmt: skip


@dataclass(frozen=True)
class SeriesFacts:
    """One recomputed series of a run, as the rules see it."""

    series_id: str
    headline: bool
    value: float | None
    counts: Mapping[str, int]
    interval: tuple[float, float] | None = None
    """The series' own interval (``inspector stats``), None when it has none."""
    no_interval: str = ""
    """Why it has none."""


@dataclass(frozen=True)
class RunFacts:
    """What the check of one run found (``problem``: it is unusable, nothing else is)."""

    run: str
    benchmark: str | None = None
    model: str | None = None
    status: str | None = None
    """``run_info.status``."""
    stored_equal: bool = False
    differences: int = 0
    first_difference: str = ""
    derived: str | None = None
    """Why the numbers come from a derived plan (None: the run's own plan)."""
    series: tuple[SeriesFacts, ...] = ()
    fingerprints: Mapping[str, int] | None = None
    """Error fingerprint → attempts carrying it (None: not known)."""
    problem: str | None = None


@dataclass(frozen=True)
class RunGate:
    """Every rule that applies to one run, judged; ``problem``: the run is unusable."""

    run: str
    outcomes: tuple[RuleOutcome, ...]
    problem: str | None = None

    @property
    def failed(self) -> tuple[RuleOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status == FAIL)

    @property
    def status(self) -> str:
        return "unusable" if self.problem is not None else FAIL if self.failed else PASS

    @property
    def inconclusive(self) -> tuple[RuleOutcome, ...]:
        """The rules whose verdict is INCONCLUSIVE (whatever the policy makes of it)."""
        return tuple(o for o in self.outcomes if o.verdict == INCONCLUSIVE)


Paired = Mapping[str, Regression | str]
"""This run's series id → the paired analysis of its delta, or why there is none."""


def _figure(value: float | int) -> str:
    return str(value) if isinstance(value, int) else f"{value:.4g}"


def judge(
    facts: RunFacts, policy: Policy, against: RunFacts | None = None, paired: Paired | None = None
) -> RunGate:
    """Every rule of ``policy`` that applies to the run. ``against``: the run it is compared
    with (``--against``), ``paired``: the paired analysis of each series delta (:class:`Regression`)."""
    if facts.problem is not None:
        return RunGate(facts.run, (), facts.problem)
    outcomes = []
    for rule in RULES:
        if not policy.names(rule, facts.benchmark):
            continue
        if rule in AGAINST_RULES and against is None:
            outcomes.append(RuleOutcome(facts.run, rule, SKIP, detail="needs --against"))
        elif rule in RUN_RULES:
            limit = policy.limit(rule, facts.benchmark, None)
            assert limit is not None
            outcomes.append(_run_rule(facts, rule, limit, against))
        else:
            outcomes.append(_series_rule(facts, rule, policy, against, paired))
    return RunGate(facts.run, tuple(outcomes))


def _line(run: str, where: str, rule: str, text: str) -> str:
    return f"{run}: {where}: {rule}: {text}"


def _places(facts: RunFacts) -> str:
    return plural(facts.differences, "place")


def _run_rule(facts: RunFacts, rule: str, limit: Limit, against: RunFacts | None) -> RuleOutcome:
    run = facts.run
    failures: list[str] = []
    measured: list[str]
    if rule == "require_stored_equal":
        measured = [
            "stored metrics.json equals the recomputation"
            if facts.stored_equal
            else f"stored metrics.json differs in {_places(facts)}"
        ]
        if limit and not facts.stored_equal:
            failures.append(_line(run, "run", rule, (
                f"stored metrics.json differs from the recomputation in {_places(facts)} "
                f"(first: {facts.first_difference}); limit: equal"
            )))  # fmt: skip
    elif rule == "require_finished":
        status = f"status {facts.status}" if facts.status is not None else "no status recorded"
        measured = [status]
        if limit and facts.status != FINISHED:
            failures.append(_line(run, "run", rule, f"{status}; limit: {FINISHED}"))
    elif rule == "forbid_derived_plan":
        measured = [facts.derived or "the run's own plan"]
        if limit and facts.derived is not None:
            failures.append(_line(run, "run", rule, f"{facts.derived}; limit: the run's own plan"))
    else:
        return _fingerprint_rule(facts, rule, limit, against)
    return outcome(run, rule, failures, measured)


def _fingerprint_rule(
    facts: RunFacts, rule: str, limit: Limit, against: RunFacts | None
) -> RuleOutcome:
    run = facts.run
    if against is None or facts.fingerprints is None or against.fingerprints is None:
        return RuleOutcome(run, rule, SKIP, detail="error fingerprints not known for both runs")
    now, before = facts.fingerprints, against.fingerprints
    if rule == "max_new_error_fingerprints":
        new = sorted(f for f in now if f not in before)
        shown = "; ".join(_short(f) for f in new[:3]) + ("; …" if len(new) > 3 else "")
        text = plural(len(new), "new error fingerprint") + (f" ({shown})" if new else "")
        failed = len(new) > limit
        return outcome(run, rule, [_line(run, "run", rule, f"{text}; limit: {limit}")] if failed
                        else [], [text])  # fmt: skip
    # The largest growth of a fingerprint both runs have: after / before − 1 attempts.
    grown = sorted(((now[f] / before[f] - 1, f) for f in now if f in before), reverse=True)
    if not grown:
        return RuleOutcome(
            run, rule, PASS, detail="no error fingerprint in both runs", verdict=PASS
        )
    growth, worst = grown[0]
    text = f"{_short(worst)}: {before[worst]} → {now[worst]} attempts (growth {growth:.4g})"
    failed = growth > float(limit)
    return outcome(run, rule, [_line(run, "run", rule, f"{text}; limit: {_figure(limit)}")]
                    if failed else [], [text])  # fmt: skip


def _short(fingerprint: str) -> str:
    """A fingerprint in a line (at most 80 characters)."""
    return fingerprint if len(fingerprint) <= 80 else fingerprint[:79] + "…"


def _series_rule(
    facts: RunFacts, rule: str, policy: Policy, against: RunFacts | None, paired: Paired | None
) -> RuleOutcome:
    failures = [_matched_nothing(facts, rule, scope) for scope in
                policy.unmatched(rule, facts.benchmark, facts.series)]  # fmt: skip
    measured: list[str] = []
    unresolved: list[str] = []
    for series in facts.series:
        limit = policy.limit(rule, facts.benchmark, series)
        if limit is None:
            continue
        figure = _measure(rule, series, against, paired)
        if isinstance(figure, str):
            measured.append(f"skipped {series.series_id}: {figure}")
            continue
        text, verdict = figure(float(limit))
        measured.append(f"{series.series_id}: {text}")
        # A measured rule's words name its threshold and verdict; the others end with the limit.
        said = text if rule in MEASURED_RULES else f"{text}; limit: {_figure(limit)}"
        line = _line(facts.run, series.series_id, rule, said)
        if verdict == FAIL:
            failures.append(line)
        elif verdict == INCONCLUSIVE:
            unresolved.append(line)
    return outcome(facts.run, rule, failures, measured, unresolved, policy.inconclusive)


def _matched_nothing(facts: RunFacts, rule: str, scope: Scope) -> str:
    """The failure of a scope naming ``rule`` whose series glob matches no series of the run."""
    ids = [s.series_id for s in facts.series]
    have = ", ".join(ids[:5]) + (", …" if len(ids) > 5 else "") if ids else "none"
    glob = "the headline series" if scope.series == HEADLINE else f"series {scope.series!r}"
    return _line(facts.run, glob, rule, (
        f"matched nothing (the run's series: {have}); limit: {_figure(scope.limits[rule])}"
    ))  # fmt: skip


Measure = Callable[[float], tuple[str, str]]
"""A rule's measure of a series as a function of the limit: (words, verdict)."""


def _verdict(failed: bool) -> str:
    return FAIL if failed else PASS


def _measure(
    rule: str, series: SeriesFacts, against: RunFacts | None, paired: Paired | None
) -> Measure | str:
    """How the rule measures the series (a function of the limit: words, verdict),
    or why it cannot."""
    counts = series.counts
    total = counts.get("total", 0)
    if rule in ("max_error_rate", "max_unavailable_rate"):
        name = "error" if rule == "max_error_rate" else "unavailable"
        if total == 0:
            return "no tasks"
        rate = counts.get(name, 0) / total
        words = f"{name} rate {rate:.4g} ({counts.get(name, 0)} of {total} tasks)"
        return lambda limit: (words, _verdict(rate > limit))
    if rule in ("max_invalidated", "min_evaluated"):
        name = "invalidated" if rule == "max_invalidated" else "evaluated"
        n = counts.get(name, 0)
        words = f"{n} {name} of {total} tasks"
        if rule == "min_evaluated":
            return lambda limit: (words, _verdict(n < limit))
        return lambda limit: (words, _verdict(n > limit))
    if rule == "max_ci_width":
        if series.interval is None:
            return series.no_interval or "no interval"
        low, high = series.interval
        width = high - low
        words = f"95% interval width {width:.4g} ({low:.4g} to {high:.4g})"
        return lambda limit: (words, _verdict(width > limit))
    assert rule in MEASURED_RULES, rule
    return _regression(rule, series, against, paired)


def _regression(
    rule: str, series: SeriesFacts, against: RunFacts | None, paired: Paired | None
) -> Measure | str:
    """B − A of the series (B this run, A the ``--against`` run) and its paired interval,
    as :class:`Regression` (``inspector diff``'s numbers), judged against the rule's
    threshold (``max_regression`` L: −L; ``min_improvement`` M: M) by
    :func:`measured_verdict`; INCONCLUSIVE without an interval. Skipped (a string) when
    nothing was compared."""
    answer = paired.get(series.series_id) if against is not None and paired else None
    if answer is None:
        return "no such series in the --against run"
    if isinstance(answer, str):
        return answer
    beside = (
        "" if answer.against_series == series.series_id else f"; against {answer.against_series}"
    )
    sign = -1.0 if rule == "max_regression" else 1.0

    def judged(limit: float) -> tuple[str, str]:
        threshold = sign * limit + 0.0  # + 0.0: limit 0 is "+0", never "-0"
        words = regression_words(answer, threshold)
        where = f"; where from: {answer.explained}" if answer.explained else ""
        if answer.low is None or answer.high is None:
            why = answer.no_interval or "no interval"
            return f"{words}: inconclusive ({why}{beside}){where}", INCONCLUSIVE
        verdict = measured_verdict(answer.low, answer.high, threshold)
        paired = f"95% paired interval, {plural(answer.tasks, 'task')}{beside}"
        return f"{words}: {verdict} ({paired}){where}", verdict

    return judged
