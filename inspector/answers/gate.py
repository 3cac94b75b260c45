"""The publish gate's answers: every run under a path checked as ``check ROOT --cached``
checks it (:func:`inspector.answers.root.check_one`: an unchanged run answered from the
store), with what the rules need of its recomputation (kept beside its report:
:class:`~inspector.answers.kept.KeptFacts`), then judged by a policy
(:mod:`inspector.views.gate`). ``inspector gate`` and the runs screen's ``G`` ask the same.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import msgspec

from inspector import loading
from inspector.answers.kept import (
    STATISTICS,
    KeptFacts,
    facts_question,
    facts_record,
    root_answers,
)
from inspector.answers.root import check_one
from inspector.answers.run import say_root
from inspector.overrides import Overrides
from inspector.results.discover import RunSummary
from inspector.results.root_walk import walk_root
from inspector.views.gate import (
    AGAINST_RULES,
    Policy,
    Regression,
    RunFacts,
    RunGate,
    SeriesFacts,
    judge,
)
from inspector.views.gate_verdict import MEASURED_RULES, outcome
from inspector.views.run_check import DIFFERS, OK


def _found(facts: KeptFacts) -> dict[str, Any]:
    series = tuple(SeriesFacts(*msgspec.structs.astuple(s)) for s in facts.series)
    return {"series": series, "derived": facts.derived, "fingerprints": facts.fingerprints}


def run_facts(
    path: str,
    shown_as: str,
    overrides: Overrides,
    summary: RunSummary | None,
    comparing: bool,
) -> RunFacts:
    """What the check of the run at ``path`` (named ``shown_as``) finds, as the rules see
    it; never raises for bad data (an unusable run is a :class:`RunFacts` with a problem).
    An unchanged run is answered from the store: its report and the facts kept with it."""
    question = facts_question(comparing)
    made: dict[str, Any] = {}  # what a read now made (the facts, and for the other commands)
    also = root_answers(overrides, made, comparing=comparing, strict=question)
    check = check_one(path, shown_as, overrides, cached=True, extra_answers=also)
    if check.status not in (OK, DIFFERS):
        return RunFacts(shown_as, problem=check.problem or f"{shown_as}: unusable")
    found = _found(made[question]) if question in made else {}
    if "series" not in found:  # the check came from the store: so do the facts, or a read
        found.update(_kept_facts(path, overrides, question, comparing))
    if "series" not in found:  # scored, yet not here: a statistics failure is a problem too
        return RunFacts(shown_as, problem=f"{shown_as}: the recomputation gave no series")
    first = ""
    if check.differences:
        where, stored, recomputed = check.differences[0]
        first = f"{where}: stored {stored!r}, recomputed {recomputed!r}"
    return RunFacts(
        run=shown_as,
        benchmark=summary.benchmark if summary is not None else None,
        model=summary.model if summary is not None else None,
        status=summary.status if summary is not None else None,
        stored_equal=check.status == OK,
        differences=len(check.differences),
        first_difference=first,
        derived=found["derived"],
        series=found["series"],
        fingerprints=found["fingerprints"],
    )


def _kept_facts(path: str, overrides: Overrides, question: str, comparing: bool) -> dict[str, Any]:
    """The facts kept for the run as it is now, else those of the run read now (and kept)."""
    kept = loading.kept(path, overrides, question, KeptFacts)
    if isinstance(kept, KeptFacts):
        return _found(kept)
    result = loading.read(path, overrides)
    if not isinstance(result, loading.Loaded) or result.refusal is not None:
        return {}
    facts = facts_record(result.session, comparing)
    if facts is None:
        return {}
    loading.keep(result.session, overrides, question, facts)
    return _found(facts)


def facts_under(
    path: str,
    overrides: Overrides,
    *,
    comparing: bool,
    say: Callable[[str], None] = say_root,
) -> list[RunFacts]:
    """The facts of every run at or under ``path``, by path, in worker processes (as
    ``check ROOT``). A run is named by its path under ``path``, a run given itself by
    ``path`` as given. ``comparing``: with what the rules that compare need (the error
    fingerprints). A folder that could not be read is an unusable run named by its path
    (its runs are not known); a link out of the root, not followed, is said to ``say``.

    Raises:
        RunReadError: ``path`` is not a readable directory.
    """
    walk = walk_root(path)
    for line in walk.link_lines(path):
        say(line)
    summaries = loading.runs_under(path, walk.runs)
    calls = [
        (
            path if s.relative == "." else os.path.join(path, s.relative),
            path if s.relative == "." else s.relative,
            overrides,
            s,
            comparing,
        )
        for s in sorted(summaries, key=lambda s: s.relative)
    ]
    found = loading.audit(run_facts, calls, preload=STATISTICS)
    unreadable = [
        RunFacts(rel, problem=line)
        for (rel, _), line in zip(walk.unreadable, walk.unreadable_lines(), strict=True)
    ]
    return sorted(found + unreadable, key=lambda facts: facts.run)


UNREAD = "not compared: "
"""How a paired analysis whose runs could not be read again starts (the run is unusable)."""


def paired_facts(
    path: str, against: str, overrides: Overrides, series_ids: Sequence[str]
) -> dict[str, Regression | str]:
    """``max_regression``'s and ``min_improvement``'s paired analysis of the run at ``path``
    (B) against the run at ``against`` (A): both recomputations compared as ``inspector diff
    A B`` compares them (:func:`inspector.views.compare.compare`,
    :meth:`~inspector.views.compare.Comparison.stats`), for this run's series ``series_ids``;
    never raises for bad data."""
    from inspector import loading
    from inspector.views.compare import compare
    from inspector.views.gate_facts import regressions

    recs = []
    for where in (against, path):
        result = loading.read(where, overrides)
        problem = result.message if isinstance(result, loading.Failed) else None
        if isinstance(result, loading.Loaded):
            problem = result.refusal
            if problem is None and result.session.recomputation is None:
                problem = f"{where}: the recomputation gave no series"
        if problem is not None or not isinstance(result, loading.Loaded):
            return {s: f"{UNREAD}{problem or where}" for s in series_ids}
        recs.append(result.session.recomputation)
    return regressions(compare(recs[0], recs[1]), series_ids)


def counterpart(facts: RunFacts, against: Sequence[RunFacts]) -> RunFacts | str | None:
    """The ``--against`` run a run is compared with: the only one, else the one at the same
    path under its root, else the only one of the same benchmark and model. A string says
    why it cannot be told, making the run unusable: the run it would be cannot be read (one
    that cannot be read may be of any benchmark and model), or two could be it. None: none
    could be (the rules that compare are skipped)."""
    if len(against) == 1:
        chosen = list(against)
    else:
        chosen = [a for a in against if a.run == facts.run][:1] or [
            a for a in against
            if a.problem is not None or (a.benchmark, a.model) == (facts.benchmark, facts.model)
        ]  # fmt: skip
    unread = [a for a in chosen if a.problem is not None]
    if unread:
        return f"{facts.run}: its --against run cannot be read: {unread[0].problem}"
    if len(chosen) > 1:
        names = ", ".join(a.run for a in chosen)
        return (f"{facts.run}: its --against run cannot be told: {names} are each of its "
                "benchmark and model (name one run with --against)")  # fmt: skip
    return chosen[0] if chosen else None


def gate(
    path: str,
    policy: Policy,
    overrides: Overrides,
    *,
    against: str | None = None,
) -> list[RunGate]:
    """Every run at or under ``path`` judged by ``policy``, with ``against`` (a run or a
    root) for the rules that compare.

    Raises:
        RunReadError: ``path`` or ``against`` is not a readable directory.
    """
    comparing = against is not None and any(
        rule in scope.limits for scope in policy.scopes for rule in AGAINST_RULES
    )
    runs = facts_under(path, overrides, comparing=comparing)
    before = facts_under(against, overrides, comparing=True) if against and comparing else []
    found = [counterpart(facts, before) if against is not None else None for facts in runs]
    others = [other if isinstance(other, RunFacts) else None for other in found]
    paired = _paired(path, against, runs, others, policy, overrides)
    gates = []
    for facts, other, analysis, why in zip(runs, others, paired, found, strict=True):
        unread = [a for a in analysis.values() if isinstance(a, str) and a.startswith(UNREAD)]
        if isinstance(why, str) or unread:  # never a pass for what could not be read
            problem = why if isinstance(why, str) else f"{facts.run}: {unread[0]}"
            gates.append(RunGate(facts.run, (), facts.problem or problem))
            continue
        if against is not None and other is None and facts.problem is None:
            # No run to compare with: the comparing rules cannot judge (INCONCLUSIVE: the
            # policy's `inconclusive` says what that does), the rest stand.
            gated = judge(facts, policy)
            said = f"inconclusive: no run to compare with under {against}"
            gates.append(replace(gated, outcomes=tuple(
                outcome(facts.run, o.rule, [], [said], [f"{facts.run}: {o.rule}: {said}"],
                        policy.inconclusive)
                if o.rule in AGAINST_RULES else o
                for o in gated.outcomes
            )))  # fmt: skip
            continue
        gates.append(judge(facts, policy, other, analysis))
    return gates


def _paired(
    path: str,
    against: str | None,
    runs: Sequence[RunFacts],
    others: Sequence[RunFacts | None],
    policy: Policy,
    overrides: Overrides,
) -> list[dict[str, Regression | str]]:
    """Each run's paired analyses for ``max_regression`` and ``min_improvement`` (in worker
    processes; only for runs with a counterpart and series the rules name)."""
    calls, where = [], []
    for i, (facts, other) in enumerate(zip(runs, others, strict=True)):
        ids = [
            s.series_id for s in facts.series
            if any(policy.limit(rule, facts.benchmark, s) is not None for rule in MEASURED_RULES)
        ]  # fmt: skip
        if against is None or other is None or facts.problem is not None or not ids:
            continue
        calls.append((_under(path, facts.run), _under(against, other.run), overrides, ids))
        where.append(i)
    found: list[dict[str, Regression | str]] = [{} for _ in runs]
    answers = loading.audit(paired_facts, calls)
    for i, answer in zip(where, answers, strict=True):
        found[i] = answer
    return found


def _under(root: str, name: str) -> str:
    """The path of the run named ``name`` under ``root`` (as :func:`facts_under` names)."""
    return root if name == root else os.path.join(root, name)


def gate_runs(
    runs: Sequence[RunSummary],
    policy: Policy,
    overrides: Overrides | None,
    *,
    cancelled: Callable[[], bool] = lambda: False,
) -> Iterator[list[tuple[str, RunGate]]]:
    """The runs screen's gate (``G``): each run judged by ``policy`` in the shared reader
    processes, yielding ``(path, gate)`` pairs in batches as they are done. Nothing is
    compared (the rules that need ``--against`` are skipped, saying so)."""
    shown = [(str(run.path), run.relative) for run in runs]
    calls = [
        (path, name, overrides, run, False) for (path, name), run in zip(shown, runs, strict=True)
    ]

    def failed(index: int, exc: BaseException) -> RunFacts:
        return RunFacts(shown[index][1], problem=f"{shown[index][1]}: {exc}")

    for batch in loading.audit_in_app(run_facts, calls, failed=failed, cancelled=cancelled):
        yield [(shown[index][0], judge(facts, policy)) for index, facts in batch]
