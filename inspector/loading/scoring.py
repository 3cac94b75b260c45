"""Scoring a run as it is read: the tasks are reduced while the reader processes deliver
them, then the report is made; a plan with another k or strategy (``--k`` / ``--strategy``)
is applied as a derived plan (the attempts restricted or replayed), always with a note
saying so, and a contract guessed from the observations gets a warning."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from inspector.engine.errors import EngineError
from inspector.loading.pending import PendingRead
from inspector.loading.records import NOTE_PREFIX, WARNING_PREFIX
from inspector.overrides import Overrides
from inspector.resolve import contract_guessed
from inspector.session import DERIVED_KEY, Session, reduction_stream, score_run

CONTRACT_WARNING = WARNING_PREFIX + "contract: "


def finish_and_score(
    pending: PendingRead,
    overrides: Overrides | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    save_cache: bool = True,
) -> Session:
    """Finish a read started earlier and score it, reducing the tasks while the rest are
    still read. ``save_cache=False``: the caller writes the task cache later."""
    stream = reduction_stream(pending.run, overrides)
    on_tasks = None
    if stream is not None:
        # The tasks whose files are unchanged take their stored reductions.
        kept = pending.reductions(stream)
        on_tasks = kept.add if kept is not None else stream.add
    run = pending.finish(progress, on_tasks=on_tasks, save_cache=False)
    session = score_run(run, overrides, stream=stream)
    if save_cache:
        pending.save_cache()
    return session


@dataclass
class Derived:
    """A session scored as the command line asked, with what it prints besides the report."""

    session: Session
    notes: list[str] = field(default_factory=list)  # derived-plan notes, whole lines
    refusal: str | None = None  # one line naming the file: the run cannot be scored so


def base_plan(overrides: Overrides | None) -> Overrides | None:
    """The overrides a run is read and scored with before ``--k`` / ``--strategy`` are
    applied as a derived plan (:func:`derive`)."""
    if overrides is None or (overrides.k is None and overrides.strategy is None):
        return overrides
    return Overrides(
        aggregation=overrides.aggregation,
        hierarchy=overrides.hierarchy,
        contract=overrides.contract,
        benchmark_id=overrides.benchmark_id,
    )


def derive(session: Session, overrides: Overrides | None, path: str | Path) -> Derived:
    """Apply ``--k`` / ``--strategy`` to a session scored with :func:`base_plan`'s plan;
    ``path`` is the run as the user named it (for messages)."""
    if session.refusal is not None:
        return Derived(session, refusal=f"{Path(path) / session.refusal_path}: {session.refusal}")
    derived = _derive(session, overrides, path)
    if derived.refusal is None:
        assert session.recomputation is not None and derived.session.recomputation is not None
        source = session.recomputation.plan.sources.get("contract", "")
        plan = derived.session.recomputation.plan
        lists_auxiliaries = plan.k == 1 or plan.strategy == "avg"
        derived.notes.extend(guessed_contract_warning(path, source, lists_auxiliaries))
    return derived


def _derive(session: Session, overrides: Overrides | None, path: str | Path) -> Derived:
    assert session.recomputation is not None
    if overrides is None or base_plan(overrides) is overrides:
        return Derived(session)
    plan = session.recomputation.plan
    k = overrides.k if overrides.k is not None else plan.k
    strategy = (overrides.strategy or plan.strategy).lower()
    if (k, strategy) == (plan.k, plan.strategy):
        return Derived(session)
    from inspector.engine.whatif import derived, no_attempt_warning

    try:
        recomputation, derivation = derived(session.recomputation, k=k, strategy=strategy)
    except EngineError as exc:
        return Derived(session, refusal=f"{path}: cannot score as {strategy}@{k}: {exc}")
    session = session.with_plan(recomputation)
    notes = [f"{NOTE_PREFIX}{derivation.description}: {note}" for note in derivation.notes]
    guess = no_attempt_warning(derivation)
    if guess is not None:
        notes.append(f"{WARNING_PREFIX}{path}: {guess}")
    notes.append(derived_note(derivation.description, derivation.equivalent))
    return Derived(session, notes=notes)


def derived_note(
    description: str,
    equivalent: bool,
    labelled: str = f"the output too (metrics.json: extra.{DERIVED_KEY}; markdown: a heading)",
) -> str:
    """The stderr note every output of a derived plan gets (``labelled``: where the
    output itself says so)."""
    claim = "equivalent to" if equivalent else "NOT equivalent to"
    return (
        f"{NOTE_PREFIX}derived plan: {description} ({claim} having run it); labelled in {labelled}"
    )


def guessed_contract_warning(
    path: str | Path, source: str, lists_auxiliaries: bool = False
) -> list[str]:
    """The warning (as a list of lines: none or one) for a contract guessed from the
    attempts' observations (``lists_auxiliaries``: see :func:`contract_guessed`)."""
    if not contract_guessed(source, lists_auxiliaries):
        return []
    return [
        f"{CONTRACT_WARNING}{path}: the metric contract was {source}: labels, units, "
        "precision and series order may differ from the benchmark's, and a metric no "
        "attempt observed is missing; pass --contract FILE to fix it"
    ]
