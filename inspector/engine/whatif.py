"""What-if plans on one run: score a k-attempt run as k=1, avg@j or pass@j (spec §6.3).

A derived plan re-reads the attempts a run *has*; it can only claim what those attempts
show. Under ``pass``, attempts skipped after an early success were never run — they are
"not run", not failures — so a derived ``avg`` plan over a ``pass`` run is not equivalent
to having run it, and the derivation says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from inspector.engine.errors import PlanError
from inspector.engine.model import TaskRecord
from inspector.engine.recomputation import Recomputation, recompute
from inspector.engine.reduction import article
from inspector.engine.strategies import attempt_completed, resolve_attempt_strategy
from inspector.engine.vocabulary import plural


@dataclass(frozen=True)
class Derivation:
    """Tasks rewritten for a derived plan, and what the derivation can honestly claim."""

    tasks: tuple[TaskRecord, ...]
    k: int
    strategy: str
    description: str
    equivalent: bool
    notes: tuple[str, ...]
    # task id -> attempt indices the derived plan needs but the run never executed
    not_run: dict[str, tuple[int, ...]]
    # tasks with attempts, none of them in 1..k: an error here, where AgentCompass refuses
    # to score a run at k that holds such a task (an attempt index > k)
    no_attempt: tuple[str, ...] = ()


def _first_stop(task: TaskRecord, primary_id: str, primary_kind: str, k: int) -> int | None:
    """The attempt after which a pass run would have stopped, within 1..k."""
    pass_strategy = resolve_attempt_strategy("pass")
    for index in range(1, k + 1):
        attempt = task.attempts.get(index)
        if attempt is None:
            return None
        if attempt.has_fatal:
            continue
        if pass_strategy.should_stop(
            attempt_completed(attempt.status), primary_kind, attempt.metrics.get(primary_id)
        ):
            return index
    return None


def derive(
    tasks: Sequence[TaskRecord],
    *,
    source_k: int,
    source_strategy: str,
    k: int,
    strategy: str,
    primary_id: str,
    primary_kind: str,
) -> Derivation:
    """Rewrite ``tasks`` (scored with ``source_k``/``source_strategy``) for ``k``/``strategy``."""
    strategy = resolve_attempt_strategy(strategy).id
    source_strategy = resolve_attempt_strategy(source_strategy).id
    if k < 1 or k > source_k:
        raise PlanError(f"a derived plan needs 1 <= k <= {source_k} (the run's k), got {k}")
    out: list[TaskRecord] = []
    not_run: dict[str, tuple[int, ...]] = {}
    truncated = 0
    no_attempt: list[str] = []
    for task in tasks:
        attempts = {i: a for i, a in task.attempts.items() if i <= k}
        if task.attempts and not attempts:
            no_attempt.append(task.task_id)
        if strategy == "pass" and source_strategy == "avg" and k > 1:
            stop = _first_stop(task, primary_id, primary_kind, k)
            if stop is not None and stop < k:
                # A pass run would never have started the attempts after the stop.
                dropped = [i for i in attempts if i > stop]
                if dropped:
                    truncated += 1
                attempts = {i: a for i, a in attempts.items() if i <= stop}
        if source_strategy == "pass" and strategy == "avg" and k > 1:
            stop = _first_stop(task, primary_id, primary_kind, source_k)
            if stop is not None and stop < k:
                not_run[task.task_id] = tuple(range(stop + 1, k + 1))
        retry_counts = {i: n for i, n in task.retry_counts.items() if i <= k}
        out.append(
            replace(
                task, attempts=attempts, retry_counts=retry_counts, plan_k=k, plan_strategy=strategy
            )
        )
    run = f"{article(source_strategy)} {source_strategy}@{source_k} run"
    if k == 1:
        description = f"k=1 on attempt 1 of {run}"
    else:
        description = f"{strategy}@{k} on attempts 1..{k} of {run}"
    notes: list[str] = []
    equivalent = True
    if not_run:
        equivalent = False
        notes.append(
            f"{plural(len(not_run), 'task')} stopped early under pass: the attempts after their success "
            "were never run, so avg counts them as missing (error) — not as failures"
        )
    if truncated:
        notes.append(
            f"{plural(truncated, 'task')}: attempts after the first completed success are ignored, "
            "as a pass run would never have started them"
        )
    if k > 1 and strategy == "pass" and source_strategy == "avg":
        notes.append("FATAL retries and scheduling of a real pass run may differ from this replay")
    if no_attempt:
        equivalent = False  # a run at k would have had them, or AgentCompass refuses it
    return Derivation(
        tuple(out), k, strategy, description, equivalent, tuple(notes), not_run, tuple(no_attempt)
    )


def derived(
    rec: Recomputation,
    *,
    k: int,
    strategy: str | None = None,
) -> tuple[Recomputation, Derivation]:
    """The same run under a what-if plan: k=1 on attempt 1, avg@j / pass@j on attempts 1..j.

    The tasks are rewritten by :func:`derive`, which says when the derived plan is not
    equivalent to having run it (``Derivation.equivalent`` / ``notes``).
    """
    plan = rec.plan
    derivation = derive(
        rec.tasks,
        source_k=plan.k,
        source_strategy=plan.strategy,
        k=k,
        strategy=strategy or plan.strategy,
        primary_id=plan.contract.primary_id,
        primary_kind=plan.contract.primary.kind,
    )
    new_plan = replace(
        plan, k=derivation.k, strategy=derivation.strategy, derived=derivation.description
    )
    return recompute(derivation.tasks, new_plan), derivation


def no_attempt_warning(derivation: Derivation, shown: int = 10) -> str | None:
    """What to say about the tasks :attr:`Derivation.no_attempt` names (None: there are none)."""
    ids = derivation.no_attempt
    if not ids:
        return None
    k = derivation.k
    which = "attempt 1" if k == 1 else f"attempt in 1..{k}"
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    task = "task has" if len(ids) == 1 else "tasks have"
    return (
        f"{len(ids)} {task} no {which}, kept as an error under k={k}, where AgentCompass "
        f"refuses to score a k={k} run with such a task: {', '.join(ids[:shown])}{more}"
    )


def only_attempt(tasks: Sequence[TaskRecord], attempt: int) -> tuple[TaskRecord, ...]:
    """Each task as if attempt ``attempt`` were its only one: that attempt (if the task has
    it) as attempt 1 of a k=1 plan, with its retries — scored by the engine's usual rules
    (a task without that attempt has a missing attempt: an error, as at k=1)."""
    out = []
    for task in tasks:
        chosen = task.attempts.get(attempt)
        attempts = {} if chosen is None else {1: replace(chosen, index=1)}
        retries = {1: task.retry_counts[attempt]} if attempt in task.retry_counts else {}
        out.append(replace(task, attempts=attempts, retry_counts=retries, plan_k=1))
    return tuple(out)
