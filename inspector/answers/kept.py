"""What the commands over a results root keep of each run they read, so that whichever runs
first leaves in the store what the others answer from:

- ``items``: the run's task outcomes (:class:`KeptItems`);
- ``gate``: what its rules need of the recomputation (:class:`KeptFacts`);
- ``leaderboard``: its headline series' tasks as the ties' paired sample takes them
  (:class:`KeptSide`), so a column is compared without reading its runs again;
- ``check ROOT --cached``: the report itself, which every read keeps.

:func:`root_answers` makes all three from the session a read scored, for the same store
write as its report (:func:`inspector.loading.answer`'s ``also``); each is a typed record
(msgspec Struct) kept under its question and the plan.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import msgspec

from inspector import loading
from inspector.overrides import Overrides

if TYPE_CHECKING:  # pragma: no cover
    from inspector.session import Session
    from inspector.views.side_tasks import SideTasks

STATISTICS = ("numpy", "scipy.special")
"""What making the records needs beyond the read (the gate's intervals): for
:func:`inspector.loading.audit`'s ``preload``, imported once before its reader processes
start on a first pass rather than by each of them."""
ITEMS_QUESTION = "items v1"
"""The question :class:`KeptItems` answers (under each plan)."""
OPTIONS: dict[str, Any] = {"array_like": True, "frozen": True, "gc": False}
Number = bool | int | float


class KeptOutcome(msgspec.Struct, **OPTIONS):
    """A :class:`~inspector.views.items.TaskOutcome` as the store keeps it (``value`` of
    the type the engine gave)."""

    task_id: str
    solved: int
    failed: int
    errored: int
    unavailable: int
    value: Number | None
    state: str
    verifier: tuple[str, ...]


class KeptItems(msgspec.Struct, **OPTIONS):
    """One run's answer to ``items`` as the store keeps it, without the name it is shown
    by: its :class:`~inspector.views.items.RunTasks`, or why it is left out (``skipped``)."""

    skipped: str | None
    model: str = ""
    benchmark: str = ""
    plan: str = ""
    binary: bool = False
    tasks: tuple[KeptOutcome, ...] = ()


def not_finished(status: Any) -> KeptItems | None:
    """The ``items`` answer of a run whose run_info.json says ``status``, when that leaves
    it out (its tasks are not read)."""
    from inspector.views.items import FINISHED

    return KeptItems(f"not finished (status {status!r})") if status not in FINISHED else None


def items_record(session: Session) -> KeptItems | None:
    """The run's ``items`` answer (None: not kept, the run cannot be recomputed: the
    reason names files under the path it was given)."""
    from inspector.views.items import run_tasks

    unfinished = not_finished((session.run.run_info or {}).get("status"))
    if unfinished is not None:
        return unfinished
    if session.recomputation is None:
        return None
    found = run_tasks("", session.recomputation)
    if found is None:
        return KeptItems("no headline series")
    tasks = tuple(
        KeptOutcome(t.task_id, t.solved, t.failed, t.errored, t.unavailable, t.value, t.state,
                    t.verifier)
        for t in found.tasks
    )  # fmt: skip
    return KeptItems(None, found.model, found.benchmark, found.plan, found.binary, tasks)


class KeptSeries(msgspec.Struct, **OPTIONS):
    """A :class:`~inspector.views.gate.SeriesFacts` as the store keeps it."""

    series_id: str
    headline: bool
    value: Number | None
    counts: dict[str, int]
    interval: tuple[float, float] | None
    no_interval: str


class KeptFacts(msgspec.Struct, **OPTIONS):
    """What the gate's rules need of a run's recomputation, as the store keeps it beside
    the run's report (``fingerprints`` None: not asked for)."""

    series: tuple[KeptSeries, ...]
    derived: str | None
    fingerprints: dict[str, int] | None


def facts_question(comparing: bool) -> str:
    return "gate facts v1" + (" with fingerprints" if comparing else "")


def facts_record(session: Session, comparing: bool) -> KeptFacts | None:
    """The gate's facts of a scored session (None: it has no recomputation)."""
    from inspector.views.gate_facts import derived_reason, fingerprint_counts, series_facts

    rec = session.recomputation
    if rec is None:
        return None
    series = tuple(
        KeptSeries(s.series_id, s.headline, s.value, dict(s.counts), s.interval, s.no_interval)
        for s in series_facts(rec)
    )
    derived = derived_reason(rec, session.run.stored_metrics)
    return KeptFacts(series, derived, fingerprint_counts(session.run) if comparing else None)


class KeptNode(msgspec.Struct, **OPTIONS):
    """A :class:`~inspector.engine.hierarchy.HierarchyNode` as the store keeps it."""

    name: str
    path: str
    aggregation: str
    weight: float | None
    children: tuple[KeptNode, ...]


class KeptSide(msgspec.Struct, **OPTIONS):
    """A run's headline series' tasks as the leaderboard's ties sample them
    (:class:`~inspector.views.series_sample.SideTasks`)."""

    task_ids: tuple[str, ...]
    categories: tuple[str, ...]
    values: tuple[Number | None, ...]
    aggregation: str
    root: KeptNode | None
    value: Number | None
    attempts: int | float | None
    shape: str

    def side(self) -> SideTasks:
        from inspector.engine.hierarchy import HierarchyNode
        from inspector.views.run_stats import Shape
        from inspector.views.side_tasks import SideTasks

        def node(n: KeptNode) -> HierarchyNode:
            return HierarchyNode(n.name, n.path, n.aggregation, n.weight,
                                 tuple(node(c) for c in n.children))  # fmt: skip

        root = node(self.root) if self.root is not None else None
        return SideTasks(self.task_ids, self.categories, self.values, self.aggregation, root,
                         self.value, Shape(self.attempts, self.shape))  # fmt: skip


def side_question(series_id: str) -> str:
    return f"ties side v1 {series_id}"


def side_record(session: Session, series_id: str) -> KeptSide | None:
    """The tasks of the series ``series_id`` of a scored session (None: it has none)."""
    from inspector.views.side_tasks import side_tasks

    rec = session.recomputation
    series = next((s for s in rec.report.series if s.series_id == series_id),
                  None) if rec is not None else None  # fmt: skip
    found = side_tasks(rec, series) if rec is not None and series is not None else None
    if found is None:
        return None

    def node(n: Any) -> KeptNode:
        return KeptNode(n.name, n.path, n.aggregation, n.weight, tuple(node(c) for c in n.children))

    root = node(found.root) if found.root is not None else None
    return KeptSide(found.task_ids, found.categories, found.values, found.aggregation, root,
                    found.value, found.shape.attempts, found.shape.text)  # fmt: skip


def headline_id(session: Session) -> str | None:
    """The headline series of a scored session (as
    :func:`~inspector.views.run_check.headline_of` finds it in the metrics.json written
    from it), None when it has none."""
    from inspector.engine.strategies import HEADLINE  # loaded with the session it scored

    rec = session.recomputation
    series = rec.report.series if rec is not None else ()
    return next((s.series_id for s in series if s.role == HEADLINE), None)


def root_answers(
    overrides: Overrides, found: dict[str, Any], *, comparing: bool = False, strict: str = ""
) -> Any:
    """``also`` for a read of one run under a root: every record above for the session it
    scored, each under its key (:func:`~inspector.loading.question_key`), and in ``found``
    under its question. A record that fails to be made is left out, except the one whose
    question is ``strict`` (the command's own: its failure is the command's)."""

    def answers(session: Session) -> dict[str, Any]:
        series_id = headline_id(session)
        makers = {
            ITEMS_QUESTION: lambda: items_record(session),
            facts_question(comparing): lambda: facts_record(session, comparing),
        }
        if series_id is not None:
            makers[side_question(series_id)] = lambda: side_record(session, series_id)
        keep: dict[str, Any] = {}
        for question, make in makers.items():
            try:
                record = make()
            except Exception:
                if question == strict or os.environ.get("INSPECTOR_DEBUG"):
                    raise
                continue
            key = loading.question_key(overrides, question)
            if record is not None:
                found[question] = record
                if key is not None:
                    keep[key] = record
        return keep

    return answers
