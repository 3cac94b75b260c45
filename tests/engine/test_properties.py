"""Property tests: generated contracts, tasks and plans against the invariants of spec §6–§8.

Deterministic (``derandomize=True``) with a fixed budget so the file runs in a few seconds;
on failure hypothesis prints the falsifying example and a ``@reproduce_failure`` blob
(``print_blob=True``). A small reference implementation of spec §6.3 (written from the spec,
not from the engine) checks every task state, value and count.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from inspector.engine.aggregation import category_key
from inspector.engine.contract import MetricContract, make_metric_contract
from inspector.engine.errors import AggregationError
from inspector.engine.model import Attempt, Issue, TaskRecord
from inspector.engine.plan import Plan
from inspector.engine.recomputation import recompute
from inspector.engine.report import MetricReport, dumps_metrics_json, validate_report

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    print_blob=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

STATUSES = (
    "completed",
    "completed",
    "completed",
    "skipped",
    "run_error",
    "eval_error",
    "run_error_or_eval_error",
    "cancelled",
    "interrupted",
)
CATEGORIES: list[Any] = [
    "a",
    "b",
    "B",
    " a ",
    "",
    "   ",
    None,
    "None",
    7,
    0,
    2.5,
    True,
    {"g": 1},
    "x/y",
    "t~1",
    "数学",
    "__uncategorized__",
    "overall",
]
BINARY_AUX = ("ok", "tool.used", "f2p_all")
SCALAR_AUX = ("reward", "f1", "cost-usd")
SCALARS = st.one_of(
    st.integers(min_value=-3, max_value=10),
    st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.7, 0.9, 0.11, 1 / 3, 1e-9, 1e6, -1.5]),
    st.floats(min_value=-100, max_value=100, allow_nan=False, allow_infinity=False),
)


@st.composite
def contracts(draw: st.DrawFn) -> MetricContract:
    primary = draw(st.sampled_from(["correct", "score"]))
    binary = draw(st.lists(st.sampled_from(BINARY_AUX), unique=True, max_size=2))
    scalar = draw(st.lists(st.sampled_from(SCALAR_AUX), unique=True, max_size=2))
    if primary == "correct":
        binary = ["correct", *binary]
    else:
        scalar = ["score", *scalar]
    return make_metric_contract(primary, binary, scalar)


def _issue(severity: str) -> Issue:
    return Issue(severity, "run", f"{severity}_code", f"{severity} message")


@st.composite
def attempts_for(draw: st.DrawFn, contract: MetricContract, index: int) -> Attempt:
    metrics: dict[str, Any] = {}
    for metric_id, spec in contract.metrics.items():
        if draw(st.integers(0, 9)) < 7:
            metrics[metric_id] = (
                draw(st.booleans()) if spec.kind == "binary_success" else draw(SCALARS)
            )
    severities = draw(st.lists(st.sampled_from(["warning", "error", "error", "fatal"]), max_size=2))
    if "fatal" in severities and draw(st.integers(0, 3)):
        severities.remove("fatal")  # keep FATALs rare enough that many reports are official
    return Attempt(
        index=index,
        status=draw(st.sampled_from(STATUSES)),
        metrics=metrics,
        issues=tuple(_issue(s) for s in severities),
    )


@st.composite
def tasks_for(draw: st.DrawFn, contract: MetricContract, k: int, strategy: str) -> list[TaskRecord]:
    count = draw(st.integers(0, 9))
    out = []
    for number in range(count):
        present = [i for i in range(1, k + 1) if draw(st.integers(0, 9)) < 8]
        attempts = {i: draw(attempts_for(contract, i)) for i in present}
        retries = {i: 1 for i in range(1, k + 1) if i not in attempts and draw(st.booleans())}
        out.append(
            TaskRecord(
                task_id=f"task-{number}",
                category=draw(st.sampled_from(CATEGORIES)),
                plan_k=k,
                plan_strategy=strategy,
                attempts=attempts,
                retry_counts=retries,
            )
        )
    return out


@st.composite
def hierarchies(draw: st.DrawFn) -> dict[str, Any] | None:
    if draw(st.integers(0, 2)) == 0:
        return None
    names = draw(
        st.lists(
            st.sampled_from(sorted({category_key(c) for c in CATEGORIES} | {"absent"})),
            unique=True,
            min_size=1,
            max_size=6,
        )
    )
    weights = st.sampled_from([0, 0.5, 1, 1, 2, 3, 10])

    def node(children: dict[str, Any]) -> dict[str, Any]:
        aggregation = draw(st.sampled_from(["unweighted", "weighted", "weighted_by_count"]))
        if aggregation == "weighted" or draw(st.booleans()):
            children = {n: {**c, "weight": draw(weights)} for n, c in children.items()}
        return {"aggregation": aggregation, "children": children}

    split = draw(st.integers(0, len(names)))
    groups = [names[:split], names[split:]]
    children: dict[str, Any] = {}
    for number, group in enumerate(groups):
        if not group:
            continue
        leaves = {name: {} for name in group}
        if draw(st.booleans()):
            children[f"group/{number}"] = node(leaves)
        else:
            children.update(leaves)
    return {"overall": node(children)}


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[TaskRecord], Plan]:
    contract = draw(contracts())
    k = draw(st.integers(1, 4))
    strategies = ["avg", "pass"] if contract.primary_id == "correct" else ["avg"]
    strategy = draw(st.sampled_from(strategies))
    plan = Plan(
        k=k,
        strategy=strategy,
        contract=contract,
        aggregation=draw(st.sampled_from(["micro_weighted", "category_mean"])),
        hierarchy=draw(hierarchies()),
    )
    return draw(tasks_for(contract, k, strategy)), plan


def _recompute(tasks: list[TaskRecord], plan: Plan):
    note(
        f"plan: k={plan.k} strategy={plan.strategy} aggregation={plan.aggregation} "
        f"hierarchy={plan.hierarchy} metrics={list(plan.contract.metrics)}"
    )
    try:
        return recompute(tasks, plan)
    except AggregationError:
        # Only a weighted node whose valued children all weigh 0 may refuse (item 51).
        assert plan.hierarchy is not None and "weighted" in repr(plan.hierarchy)
        assert "'weight': 0" in repr(plan.hierarchy)
        return None


# ----------------------------------------------------------------------------- reference


def _reference(task: TaskRecord, metric: str, kind: str, reducer: str, plan: Plan) -> tuple:
    """(value, state, has_error) by spec §6.3, independent of the engine."""
    k = plan.k
    indices = sorted(task.attempts)
    attempts = [task.attempts[i] for i in indices]
    fatal = any(i.severity == "fatal" for a in attempts for i in a.issues)
    errors = sum(any(i.severity in ("fatal", "error") for i in a.issues) for a in attempts)
    missing = k - len(attempts)
    primary = plan.contract.primary_id
    if attempts and indices == list(range(1, len(indices) + 1)) and not fatal:
        last = attempts[-1]
        if (
            task.plan_strategy == "pass"
            and last.status not in ("cancelled", "interrupted", "skipped")
            and last.metrics.get(primary) is True
        ):
            missing = 0
    values = [a.metrics[metric] for a in attempts if metric in a.metrics]
    if reducer == "native":
        value = float(values[0]) if len(values) == 1 else None
    elif reducer == "avg":
        value = math.fsum(float(v) / k for v in values) if len(values) == k else None
    else:
        value = 1.0 if any(v is True for v in values) else (0.0 if len(values) == k else None)
    if fatal:
        state, value = "invalidated", None
    elif value is not None:
        state = "evaluated"
    elif missing or errors:
        state = "error"
    else:
        state = "unavailable"
    return value, state, state in ("error", "invalidated") or errors > 0 or missing > 0


def _fsum_mean(values: list[float]) -> float | None:
    return math.fsum(v / len(values) for v in values) if values else None


# ----------------------------------------------------------------------------- checks


def _all_values(report: MetricReport):
    for series in report.series:
        parts = [series, *series.categories.values(), *series.hierarchy.values()]
        yield series, [v for p in parts for v in (p.value, p.reference_value)]


def _counts_ok(counts: Any) -> None:
    assert counts.evaluated + counts.unavailable + counts.invalidated == counts.total
    for name in ("evaluated", "error", "unavailable", "invalidated"):
        assert 0 <= getattr(counts, name) <= counts.total


def _sum_field(parts: Mapping[str, Any], name: str) -> int:
    return sum(getattr(p.counts, name) for p in parts.values())


FIELDS = ("total", "evaluated", "error", "unavailable", "invalidated")


@SETTINGS
@given(scenarios())
def test_generated_runs_hold_every_invariant(scenario) -> None:
    tasks, plan = scenario
    result = _recompute(tasks, plan)
    if result is None:
        return
    event(f"{plan.strategy}@{plan.k} {result.report.aggregation}")
    _check_counts(tasks, result.report)
    _check_against_reference(tasks, plan, result)
    _check_reasons(tasks, result)


def _check_counts(tasks: list[TaskRecord], report: MetricReport) -> None:
    """Counts add up everywhere, hierarchy parents sum children, binary values in [0, 1]."""
    validate_report(report)
    failed = any(
        i.severity == "fatal" for t in tasks for a in t.attempts.values() for i in a.issues
    )
    assert report.evaluation_failed == failed
    first = report.series[0].counts
    for series in report.series:
        _counts_ok(series.counts)
        assert series.counts.total == len(tasks)
        assert (series.counts.invalidated, series.counts.error) == (first.invalidated, first.error)
        for name in FIELDS:
            assert _sum_field(series.categories, name) == getattr(series.counts, name)
        for part in (*series.categories.values(), *series.hierarchy.values()):
            _counts_ok(part.counts)
        if series.hierarchy:
            paths = set(series.hierarchy)
            for path, part in series.hierarchy.items():
                children = {
                    p: series.hierarchy[p]
                    for p in paths
                    if p.rsplit("/", 1)[0] == path and p != path
                }
                if children:
                    for name in FIELDS:
                        assert _sum_field(children, name) == getattr(part.counts, name)
            for name in FIELDS:
                assert getattr(series.hierarchy["overall"].counts, name) <= getattr(
                    series.counts, name
                )
    for series, values in _all_values(report):
        if series.kind == "binary_success":
            assert all(0.0 <= v <= 1.0 for v in values if v is not None)


def _check_against_reference(tasks: list[TaskRecord], plan: Plan, result: Any) -> None:
    """Every standard series' task states, values, counts and means follow spec §6.3/§7.1."""
    report = result.report
    for series in report.series:
        if series.aggregation not in ("micro_weighted", "category_mean", "category_hierarchy"):
            continue
        expected = [
            _reference(t, series.metric_id, series.kind, series.reducer, plan) for t in tasks
        ]
        reductions = result.reductions[series.series_id]
        assert [(r.value, r.state, r.has_error) for r in reductions] == expected
        evaluated = [v for v, state, _ in expected if state == "evaluated"]
        assert series.counts.evaluated == len(evaluated)
        assert series.counts.error == sum(h for _, _, h in expected)
        assert series.counts.invalidated == sum(s == "invalidated" for _, s, _ in expected)
        by_category: dict[str, list[float]] = {}
        for t, (v, state, _) in zip(tasks, expected, strict=True):
            values = by_category.setdefault(category_key(t.category), [])
            if state == "evaluated":
                values.append(v)
        assert list(series.categories) == sorted(by_category)
        for key, values in by_category.items():
            assert series.categories[key].shown_value == _fsum_mean(values)
            assert series.categories[key].aggregation_weight == float(len(values))
        if series.aggregation == "micro_weighted":
            assert series.shown_value == _fsum_mean(evaluated)
        elif series.aggregation == "category_mean":
            category_values = [_fsum_mean(v) for _, v in sorted(by_category.items()) if v]
            assert series.shown_value == _fsum_mean(category_values)


@settings(SETTINGS, max_examples=100)
@given(scenarios(), st.randoms(use_true_random=False))
def test_results_are_independent_of_task_order(scenario, rng) -> None:
    tasks, plan = scenario
    result = _recompute(tasks, plan)
    if result is None:
        return
    shuffled = list(tasks)
    rng.shuffle(shuffled)
    again = recompute(shuffled, plan)
    assert dumps_metrics_json(again.report) == dumps_metrics_json(result.report)


def _check_reasons(tasks: list[TaskRecord], result: Any) -> None:
    """Every non-evaluated or has_error reduction carries reasons with the right codes."""
    by_id = {t.task_id: t for t in tasks}
    for reductions in result.reductions.values():
        for r in reductions:
            codes = {reason.code for reason in r.reasons}
            if r.state == "evaluated" and not r.has_error:
                assert codes == set()
                continue
            assert codes, r
            task = by_id[r.task_id]
            if r.state == "invalidated":
                assert codes == {"fatal_issue"}
                continue
            if r.missing_attempts:
                assert "missing_attempts" in codes
            if r.coverage.error:
                assert "error_issue" in codes
            if r.state == "unavailable":
                assert "metric_not_observed" in codes
            for reason in r.reasons:
                if reason.code == "error_issue":
                    assert reason.issue is not None and reason.issue.severity == "error"
                    assert reason.issue in task.attempts[reason.attempts[0]].issues
