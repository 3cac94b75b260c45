"""Two plans of one run, or two runs, aligned by ``task_id``: deltas, flips, state changes.

Pure (no textual, no rich, no I/O). Both sides are :class:`~inspector.engine.Recomputation`
objects; every value and count shown comes from one of them. Typical uses:

- plan vs plan: the stored avg@3 against k=1 on attempt 1 (built by
  :func:`inspector.engine.whatif.derived`);
- run vs run: two runs of the same benchmark, with a warning when their plans, models or
  benchmark params differ.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from inspector.engine.contract import BINARY
from inspector.engine.recomputation import Recomputation
from inspector.engine.reduction import TaskReduction
from inspector.engine.report import MetricSeries, dumps_metrics_json
from inspector.engine.vocabulary import EVALUATED
from inspector.engine.whatif import Derivation, derived
from inspector.views.audit import reductions_of
from inspector.views.changes import TaskChange, difference, precision_of
from inspector.views.compare_warnings import inconsistencies, listed, words
from inspector.views.differences import Difference, compare_reports
from inspector.views.paired import PairedStats, paired_stats, series_sample

__all__ = ["Comparison", "PairedStats", "SeriesPair", "TaskChange", "compare", "compare_plans"]

PLANS = "plans"
RUNS = "runs"


@dataclass(frozen=True, slots=True)
class SeriesPair:
    """One series of side A beside its counterpart on side B (either may be absent)."""

    a: MetricSeries | None
    b: MetricSeries | None

    @property
    def label(self) -> str:
        ids = [s.series_id for s in (self.a, self.b) if s is not None]
        return ids[0] if len(set(ids)) == 1 else " ↔ ".join(ids)

    @property
    def precision(self) -> int:
        """The decimals AgentCompass reports this series with (side A's display, else B's)."""
        series = self.a or self.b
        return precision_of(series.display if series is not None else None)

    @property
    def delta(self) -> float | None:
        """B − A of the shown values (official or reference), None if either is null or
        the series is on one side only; exactly 0 when they are the same at the precision
        AgentCompass reports (:mod:`inspector.views.changes`)."""
        if self.a is None or self.b is None:
            return None
        return difference(self.a.shown_value, self.b.shown_value, self.precision)

    @property
    def binary(self) -> bool:
        """Both sides are ``binary_success`` series: 0/1 task values are outcomes (flips)."""
        return self.a is not None and self.b is not None and self.a.kind == self.b.kind == BINARY


@dataclass(frozen=True)
class Comparison:
    """Side A and side B aligned by series and by task."""

    kind: str
    label_a: str
    label_b: str
    a: Recomputation
    b: Recomputation
    series: tuple[SeriesPair, ...]
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    warnings: tuple[str, ...]
    notes: tuple[str, ...] = ()
    report_differences: tuple[Difference, ...] = field(default=())
    # How side B was derived from side A's attempts (plan vs plan only).
    derivation: Derivation | None = None
    # What differs between the two sides' configurations (model, harness, plan, ...).
    config_differences: tuple[str, ...] = ()
    # The side the derivation made: "B", or "A" once the sides were swapped.
    derived_side: str = "B"
    # What each run's files say of how it was made (harness, run_info schema).
    facts: tuple[Mapping[str, str], Mapping[str, str]] = ({}, {})

    def pair(self, label: str | None = None) -> SeriesPair:
        """The pair with ``label`` (or holding that series id); default: the summary pair."""
        if label is None:
            summary = self.a.report.summary_series.series_id
            label = next(p.label for p in self.series if p.a and p.a.series_id == summary)
        for pair in self.series:
            ids = {s.series_id for s in (pair.a, pair.b) if s is not None}
            if label == pair.label or label in ids:
                return pair
        raise KeyError(label)

    def opening_pair(self) -> SeriesPair:
        """The pair a comparison opens on: side A's summary series when side B has its
        counterpart, else the pair holding side B's summary series, else the first pair
        both sides have (a pass@2 what-if of an avg@3 run opens on pass@3 ↔ pass@2, not on
        avg@3, which only side A has)."""
        both = [p for p in self.series if p.a is not None and p.b is not None]
        summary_a = self.a.report.summary_series.series_id
        summary_b = self.b.report.summary_series.series_id
        for pair in both:
            if pair.a is not None and pair.a.series_id == summary_a:
                return pair
        for pair in both:
            if pair.b is not None and pair.b.series_id == summary_b:
                return pair
        return both[0] if both else self.series[0]

    def swapped(self) -> Comparison:
        """The same comparison with the sides exchanged (B becomes A)."""
        other = {"A": "B", "B": "A"}
        notes = [
            f"{other[n[0]]}{n[1:]}" if n[:5] in ("A is ", "B is ") else n
            for n in self.notes
            if not _side_note(n)
        ]
        out = compare(
            self.b, self.a, label_a=self.label_b, label_b=self.label_a, kind=self.kind,
            notes=notes, facts=(self.facts[1], self.facts[0]),
        )  # fmt: skip
        return replace(out, derivation=self.derivation, derived_side=other[self.derived_side])

    def tasks(self, pair: SeriesPair | None = None) -> tuple[TaskChange, ...]:
        """Every task of either side for one series pair, side A's order first."""
        pair = pair or self.pair()
        rows_a = _by_task(self.a, pair.a)
        rows_b = _by_task(self.b, pair.b)
        in_a = {t.task_id for t in self.a.tasks}
        in_b = {t.task_id for t in self.b.tasks}
        ids = list(dict.fromkeys([*(t.task_id for t in self.a.tasks),
                                  *(t.task_id for t in self.b.tasks)]))  # fmt: skip
        precision = pair.precision
        return tuple(
            TaskChange(t, rows_a.get(t), rows_b.get(t), pair.binary,
                       in_a=t in in_a, in_b=t in in_b, precision=precision)
            for t in ids
        )  # fmt: skip

    def changes(self, pair: SeriesPair | None = None) -> tuple[TaskChange, ...]:
        """The tasks on both sides whose state, value (at the reported precision) or
        ``has_error`` differs: the tasks that moved."""
        return tuple(c for c in self.tasks(pair) if c.changed)

    def flips(self, pair: SeriesPair | None = None) -> tuple[TaskChange, ...]:
        return tuple(c for c in self.tasks(pair) if c.flip)

    @property
    def equal(self) -> bool:
        """No report difference, no task only on one side, no task change in any series."""
        if self.report_differences or self.only_a or self.only_b:
            return False
        return not any(self.changes(pair) for pair in self.series)

    @property
    def one_attempt(self) -> bool:
        """Both sides score one attempt per task (k=1): binary task values are outcomes."""
        return self.a.plan.k == 1 and self.b.plan.k == 1

    def stats(
        self,
        pair: SeriesPair | None = None,
        *,
        confidence: float = 0.95,
    ) -> PairedStats:
        """The paired analysis of the series delta B − A (:mod:`inspector.views.paired`)."""
        pair = pair or self.pair()
        changes = self.tasks(pair)
        both = [
            (float(c.value_a), float(c.value_b)) for c in changes
            if c.a and c.b and c.a.state == EVALUATED and c.b.state == EVALUATED
            and c.value_a is not None and c.value_b is not None
        ]  # fmt: skip
        sample = None
        if pair.a is not None and pair.b is not None:
            sample = series_sample(self.a, self.b, pair.a, pair.b)
        return paired_stats(
            pair.label, both, one_outcome=pair.binary and self.one_attempt,
            confidence=confidence, delta=pair.delta, sample=sample,
        )  # fmt: skip


def _side_note(note: str) -> bool:
    """A note :func:`compare` writes from the sides themselves (written again on a swap)."""
    return note.startswith(("A is a derived plan", "B is a derived plan", "plans: ", "compared: "))


def _by_task(rec: Recomputation, series: MetricSeries | None) -> dict[str, TaskReduction]:
    if series is None:
        return {}
    rows = reductions_of(rec, series.series_id) or ()
    return {r.task_id: r for r in rows}


def pair_series(a: Sequence[MetricSeries], b: Sequence[MetricSeries]) -> tuple[SeriesPair, ...]:
    """Pair series by id, then by metric and reducer (any k), then by metric (native ↔ avg)."""
    left = list(a)
    right = list(b)
    pairs: dict[int, MetricSeries | None] = {}
    taken: set[int] = set()
    rules: tuple[Callable[[MetricSeries, MetricSeries], bool], ...] = (
        lambda x, y: x.series_id == y.series_id,
        lambda x, y: (x.metric_id, x.reducer) == (y.metric_id, y.reducer),
        lambda x, y: x.metric_id == y.metric_id and {x.reducer, y.reducer} <= {"native", "avg"},
        lambda x, y: x.metric_id == y.metric_id,
    )
    for rule in rules:
        for i, x in enumerate(left):
            if i in pairs:
                continue
            for j, y in enumerate(right):
                if j not in taken and rule(x, y):
                    pairs[i] = y
                    taken.add(j)
                    break
    out = [SeriesPair(x, pairs.get(i)) for i, x in enumerate(left)]
    out += [SeriesPair(None, y) for j, y in enumerate(right) if j not in taken]
    return tuple(out)


def _plan_facts(rec: Recomputation) -> dict[str, Any]:
    plan = rec.plan
    return {
        "k": plan.k,
        "strategy": plan.strategy,
        "aggregation": rec.report.aggregation,
        "hierarchy": plan.hierarchy or None,
        "benchmark": plan.benchmark_id,
        "model": plan.model_id,
        "benchmark params": dict(plan.benchmark_params),
        "metrics": [s.series_id for s in rec.report.series],
    }


def plan_differences(
    a: Recomputation, b: Recomputation, harness: tuple[str | None, str | None] | None = None
) -> list[str]:
    """What differs between the two sides' plans, models, harnesses and benchmark params,
    in words (``k differs: 3 vs 1``; lists and mappings named by what differs in them)."""
    fa, fb = _plan_facts(a), _plan_facts(b)
    if harness is not None:
        fa["harness"], fb["harness"] = harness
    out = []
    for key in fa:
        if fa[key] == fb[key]:
            continue
        if key == "benchmark params":
            keys = sorted(set(fa[key]) | set(fb[key]))
            changed = [k for k in keys if fa[key].get(k, "∅") != fb[key].get(k, "∅")]
            out.append(f"benchmark params differ in: {listed(changed)}")
        elif key == "metrics":
            out.append("series differ: " + _series_words(a, b))
        elif key == "hierarchy":
            out.append("hierarchy differs: " + ("; ".join(
                f"{words(v)} in {s}" for s, v in (("A", fa[key]), ("B", fb[key])))))  # fmt: skip
        else:
            out.append(f"{key} differs: {_short(fa[key])} vs {_short(fb[key])}")
    return out


def _series_words(a: Recomputation, b: Recomputation) -> str:
    """The series as the table pairs them (:func:`pair_series`): the pairs of two ids, then
    the series with no partner, by side."""
    pairs = pair_series(a.report.series, b.report.series)
    renamed = [f"{p.a.series_id} ↔ {p.b.series_id}" for p in pairs
               if p.a and p.b and p.a.series_id != p.b.series_id]  # fmt: skip
    only_a = [p.a.series_id for p in pairs if p.a and not p.b]
    only_b = [p.b.series_id for p in pairs if p.b and not p.a]
    parts = [f"paired {listed(renamed)}"] if renamed else []
    parts += [f"only in {s}: {listed(ms)}" for s, ms in (("A", only_a), ("B", only_b)) if ms]
    return "; ".join(parts) or "the same series in another order"


def _short(value: Any) -> str:
    if value is None or isinstance(value, int | float):
        return words(value)
    return value if isinstance(value, str) and len(value) <= 60 else words(value)


def compare(
    a: Recomputation,
    b: Recomputation,
    *,
    label_a: str = "A",
    label_b: str = "B",
    kind: str = RUNS,
    notes: Sequence[str] = (),
    facts: tuple[Mapping[str, str], Mapping[str, str]] = ({}, {}),
) -> Comparison:
    """Align two recomputations by series and by task id (``facts``: what each run's files
    say of how it was made, :func:`inspector.views.compare_warnings.run_facts`).

    Runs: the ways the sides are not alike are warnings (:func:`inconsistencies`), said
    before any number; model and harness, which a comparison usually sets out to vary,
    are notes. Plans of one run: what differs between the plans is a note."""
    ids_a = {t.task_id for t in a.tasks}
    ids_b = {t.task_id for t in b.tasks}
    harness = (facts[0].get("harness"), facts[1].get("harness"))
    differences = plan_differences(a, b, harness)
    warnings: list[str] = []
    all_notes = list(notes)
    if kind == RUNS:
        warnings = inconsistencies(a, b, facts)
        all_notes += [
            f"compared: {d}" for d in differences if d.startswith(("model ", "harness "))
        ]
    else:
        all_notes += [f"plans: {d}" for d in differences]
    for side, rec in (("A", a), ("B", b)):
        if rec.plan.derived:
            all_notes.append(f"{side} is a derived plan: {rec.plan.derived}")
    report_differences = compare_reports(
        json.loads(dumps_metrics_json(a.report)), json.loads(dumps_metrics_json(b.report))
    )
    return Comparison(
        kind=kind,
        label_a=label_a,
        label_b=label_b,
        a=a,
        b=b,
        series=pair_series(a.report.series, b.report.series),
        only_a=tuple(t.task_id for t in a.tasks if t.task_id not in ids_b),
        only_b=tuple(t.task_id for t in b.tasks if t.task_id not in ids_a),
        warnings=tuple(warnings),
        notes=tuple(all_notes),
        report_differences=tuple(report_differences),
        config_differences=tuple(differences),
        facts=facts,
    )


def compare_plans(rec: Recomputation, *, k: int, strategy: str | None = None) -> Comparison:
    """The run's own plan (A) beside a what-if plan (B) on the same attempts."""
    other, derivation = derived(rec, k=k, strategy=strategy)
    comparison = compare(
        rec,
        other,
        label_a=rec.plan.derived or rec.plan.label,
        label_b=other.plan.label + " (derived)",
        kind=PLANS,
        notes=(
            *derivation.notes,
            *(() if derivation.equivalent else ("B is not equivalent to having run that plan",)),
        ),
    )
    return replace(comparison, derivation=derivation)
