"""Resolving what a run does not record: its plan and contract (spec Appendix A).

Pure: takes what the reader found (run_info, stored metrics.json, tasks) and the user's
overrides, and returns a :class:`~inspector.engine.Plan` whose ``sources`` say where each
part came from. The one thing it reads is the inspector's own package data: the reference
tables a benchmark scores with (:mod:`inspector.results.reference`); from a stored
metrics.json it takes only their provenance, never a value. :func:`reduction_stream`
resolves it from the run-level files alone, when they give it whole, so that the tasks
are reduced as they are read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

from inspector.engine.benchmarks import builtin_contract, default_hierarchy
from inspector.engine.contract import (
    BINARY,
    PRIMARY_IDS,
    SCALAR,
    MetricContract,
    MetricDisplay,
    MetricSpec,
    default_label,
)
from inspector.engine.errors import ContractError, EngineError, PlanError
from inspector.engine.model import TaskRecord
from inspector.engine.plan import Plan
from inspector.engine.reduction_stream import PlannedStream, ReductionStream
from inspector.overrides import Overrides
from inspector.results.reference import reference_for

if TYPE_CHECKING:  # pragma: no cover
    from inspector.results.reader import Run


def _get(data: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def run_identity(
    run_info: Mapping[str, Any] | None, params: Mapping[str, Any] | None
) -> tuple[str, str]:
    """(benchmark id, model id) as AgentCompass names them in ``summary.md``."""

    def pick(section: str) -> str:
        for source in (_get(run_info, "request"), params):
            value = _get(source, section)
            if isinstance(value, Mapping):
                text = str(value.get("id", "") or "").strip()
            elif value is not None:
                text = str(value or "").strip()
            else:
                text = ""
            if text:
                return text
        return ""

    return pick("benchmark"), pick("model")


PARAMS_MAX_DEPTH = 493
"""The deepest request.benchmark.params AgentCompass 1.0.1 scores: its summary deep-copies
them first, and with params 495 levels deep that runs out of stack (measured with the
oracle: a hierarchy chain of 245 levels, params 493 deep, is scored; of 246, 495 deep, is
not; 494 cannot be told from these)."""


def nesting(value: Any) -> int:
    """How deeply objects and arrays nest in ``value`` (a scalar: 0; ``{}``: 1), without
    recursion."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        todo.extend((child, level + 1) for child in children)
    return deepest


def benchmark_params(
    run_info: Mapping[str, Any] | None, params: Mapping[str, Any] | None
) -> dict[str, Any]:
    """``request.benchmark.params`` first, ``params.json`` only if the request has none (item 43)."""
    value = _get(run_info, "request", "benchmark", "params")
    if isinstance(value, Mapping):
        return dict(value)
    value = _get(params, "benchmark", "params")
    return dict(value) if isinstance(value, Mapping) else {}


# In a contract's source when some metric was guessed from what the attempts observed:
# its label, unit, precision and place in the series order are guesses, and a declared
# metric no attempt observed is missing.
GUESSED = "guessed from the attempts' observations"


# In the source of a contract rebuilt from a stored pass@k>1 report none of whose attempts
# observed another metric: its auxiliary metrics (which such a report does not list) are
# unknown. That matters only to a plan that lists them (k=1, avg).
AUXILIARIES_UNLISTED = "which lists no auxiliary metric (pass@k), and no attempt observed one"


def contract_guessed(source: str, lists_auxiliaries: bool = False) -> bool:
    """Whether a contract with this ``source`` was (partly) guessed from observations;
    ``lists_auxiliaries``: for a plan that lists every metric (k=1, avg), where the
    auxiliaries a stored pass@k report hides are missing too."""
    return GUESSED in source or (lists_auxiliaries and AUXILIARIES_UNLISTED in source)


def contract_from_stored(stored: Mapping[str, Any], tasks: Sequence[TaskRecord]) -> MetricContract:
    """Rebuild a contract from a stored metrics.json plus the attempts' observations.

    Series give ids, kinds, labels, order and the headline; metrics that appear only in the
    attempts (auxiliaries under pass at k>1) are added from the observations (bool → binary,
    number → scalar) in first-seen order (spec Appendix A step 3).
    """
    series = stored.get("series")
    if not isinstance(series, list) or not series:
        raise ContractError("the stored metrics.json has no series")
    metrics: dict[str, MetricSpec] = {}
    derived = {"ratio_of_sums", "sum", "benchmark"}
    observed = {m for t in tasks for a in t.attempts.values() for m in a.metrics}
    for item in series:
        if not isinstance(item, Mapping):
            continue
        metric_id = item.get("metric_id")
        kind = item.get("kind")
        if not isinstance(metric_id, str) or kind not in (BINARY, SCALAR) or metric_id in metrics:
            continue
        if item.get("aggregation") in derived and metric_id not in observed:
            continue  # a corpus formula's output that no attempt observes (avg_citations, ...)
        display = item.get("display")
        label = display.get("label") if isinstance(display, Mapping) else None
        primary = item.get("role") == "headline"
        metrics[metric_id] = MetricSpec(
            kind=kind,
            reducers=("avg", "pass") if kind == BINARY else ("avg",),
            primary=primary,
            role=("success" if kind == BINARY else "score") if primary else "component",
            display=MetricDisplay(
                label=label or default_label(metric_id),
                description=display.get("description") if isinstance(display, Mapping) else None,
                unit=display.get("unit") if isinstance(display, Mapping) else None,
                precision=display.get("precision") if isinstance(display, Mapping) else None,
            ),
        )
    # A k=1 or avg report lists every declared metric: a metric its series do not list is
    # undeclared, and AgentCompass would refuse the run. Only pass@k>1 hides auxiliaries.
    lists_every_metric = stored.get("k") == 1 or stored.get("strategy") == "avg"
    guessed = []
    for metric_id, kind in observation_kinds(tasks).items():
        if metric_id not in metrics and not lists_every_metric:
            guessed.append(metric_id)
            metrics[metric_id] = MetricSpec(
                kind=kind,
                reducers=("avg", "pass") if kind == BINARY else ("avg",),
                primary=False,
                role="component",
                display=MetricDisplay(label=default_label(metric_id)),
            )
    source = "inferred from the stored metrics.json"
    if guessed:
        source += f", with {', '.join(guessed)} {GUESSED}"
    elif not lists_every_metric:
        source += f", {AUXILIARIES_UNLISTED}"
    return MetricContract(metrics, source=source)


def observation_kinds(tasks: Sequence[TaskRecord]) -> dict[str, str]:
    """Each observed metric id and its kind (bool → binary, number → scalar), first seen first."""
    kinds: dict[str, str] = {}
    for task in tasks:
        for index in sorted(task.attempts):
            for metric_id, value in task.attempts[index].metrics.items():
                kinds.setdefault(metric_id, BINARY if isinstance(value, bool) else SCALAR)
    return kinds


def contract_from_observations(tasks: Sequence[TaskRecord]) -> MetricContract:
    kinds = observation_kinds(tasks)
    primary = next((m for m in PRIMARY_IDS if kinds.get(m) == PRIMARY_IDS[m]), None)
    if primary is None:
        if not kinds:
            primary, kinds = "correct", {"correct": BINARY}
        else:
            raise ContractError(
                "cannot infer a contract: no 'correct' (bool) or 'score' (number) observation; "
                "pass --contract FILE"
            )
    order = [primary] + [m for m in kinds if m != primary]
    metrics = {
        m: MetricSpec(
            kind=kinds[m],
            reducers=("avg", "pass") if kinds[m] == BINARY else ("avg",),
            primary=m == primary,
            role=("success" if kinds[m] == BINARY else "score") if m == primary else "component",
            display=MetricDisplay(label=default_label(m)),
        )
        for m in order
    }
    return MetricContract(metrics, source=f"all metrics {GUESSED}")


def resolve_plan(
    run_info: Mapping[str, Any] | None,
    params: Mapping[str, Any] | None,
    stored_metrics: Mapping[str, Any] | None,
    tasks: Sequence[TaskRecord],
    overrides: Overrides | None = None,
) -> Plan:
    """The plan AgentCompass would score the run with, plus the user's overrides."""
    o = overrides or Overrides()
    sources: dict[str, str] = {}
    attempts = _get(run_info, "request", "execution", "attempts")
    if o.k is not None:
        k, sources["k"] = o.k, "--k"
    elif isinstance(attempts, Mapping) and "k" in attempts:
        k, sources["k"] = attempts["k"], "run_info.json request.execution.attempts.k"
    elif tasks:
        k, sources["k"] = tasks[0].plan_k, "the tasks' attempt_plan"
    else:
        k, sources["k"] = 1, "default (k=1)"
    if o.strategy is not None:
        strategy, sources["strategy"] = o.strategy, "--strategy"
    elif isinstance(attempts, Mapping) and "strategy" in attempts:
        strategy = attempts["strategy"]
        sources["strategy"] = "run_info.json request.execution.attempts.strategy"
    elif tasks:
        strategy, sources["strategy"] = tasks[0].plan_strategy, "the tasks' attempt_plan"
    else:
        strategy, sources["strategy"] = "avg", "default (avg)"
    if not isinstance(strategy, str):
        raise PlanError(f"strategy must be a string, got {strategy!r}")
    strategy = strategy.lower()

    stored_bench, model = run_identity(run_info, params)
    bench = o.benchmark_id if o.benchmark_id is not None else stored_bench
    sources["benchmark"] = (
        "--benchmark" if o.benchmark_id is not None else "run_info.json request.benchmark.id"
    )
    bparams = benchmark_params(run_info, params)
    if (depth := nesting(bparams)) > PARAMS_MAX_DEPTH:
        raise PlanError(
            f"request.benchmark.params is nested {depth} levels deep: AgentCompass's summary "
            "cannot copy it (deepcopy: RecursionError) and refuses the run"
        )

    if o.aggregation is not None:
        aggregation, sources["aggregation"] = o.aggregation, "--aggregation"
    elif "aggregation_mode" in bparams:
        # Taken literally: AgentCompass's AggregationMode(value) neither strips nor lowercases.
        aggregation = bparams["aggregation_mode"]
        sources["aggregation"] = "run_info.json request.benchmark.params.aggregation_mode"
    else:
        aggregation, sources["aggregation"] = "micro_weighted", "default (micro_weighted)"
    if isinstance(aggregation, str) and o.aggregation is not None:
        aggregation = aggregation.strip().lower()

    hierarchy: Mapping[str, Any] | None
    if o.hierarchy is not None:
        hierarchy, sources["hierarchy"] = o.hierarchy, "--hierarchy"
    elif bparams.get("category_hierarchy") is not None:
        hierarchy = bparams["category_hierarchy"]
        sources["hierarchy"] = "run_info.json request.benchmark.params.category_hierarchy"
    elif default_hierarchy(bench) is not None:
        hierarchy, sources["hierarchy"] = default_hierarchy(bench), f"built-in hierarchy of {bench}"
    else:
        hierarchy, sources["hierarchy"] = None, "none"

    if o.contract is not None:
        contract = o.contract
        sources["contract"] = contract.source or "--contract"
    elif (builtin := builtin_contract(bench)) is not None:
        contract, sources["contract"] = builtin, builtin.source
    elif isinstance(stored_metrics, Mapping) and stored_metrics.get("series"):
        contract = contract_from_stored(stored_metrics, tasks)
        sources["contract"] = contract.source
    else:
        contract = contract_from_observations(tasks)
        sources["contract"] = contract.source
    reference = reference_for(bench, stored_metrics)
    if reference is not None:
        sources["reference"] = (
            "the inspector's copy of AgentCompass 1.0.1's reference tables (NOTICE)"
        )
    return Plan(
        k=k,
        strategy=strategy,
        contract=contract,
        aggregation=aggregation,
        hierarchy=hierarchy,
        benchmark_id=bench,
        benchmark_params=bparams,
        model_id=model,
        sources=sources,
        reference=reference,
    )


class _NoTasks(Sequence[TaskRecord]):
    """No tasks, noting whether plan resolution looked for any."""

    def __init__(self) -> None:
        self.looked = False

    def __len__(self) -> int:
        self.looked = True
        return 0

    @overload
    def __getitem__(self, index: int) -> TaskRecord: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[TaskRecord]: ...
    def __getitem__(self, index: int | slice) -> TaskRecord | Sequence[TaskRecord]:
        self.looked = True
        raise IndexError(index)

    def __iter__(self) -> Iterator[TaskRecord]:
        self.looked = True
        return iter(())


def reduction_stream(run: Run, overrides: Overrides | None) -> ReductionStream | None:
    """A reduction stream for the plan the run-level files give, if they give one without
    the tasks (the usual case; otherwise the tasks are reduced after reading)."""
    if any(problem.blocking for problem in run.problems):
        return None
    no_tasks = _NoTasks()
    try:
        plan = resolve_plan(run.run_info, run.params, run.stored_metrics, no_tasks, overrides)
    except (EngineError, KeyError, TypeError, ValueError):
        return None
    if no_tasks.looked:  # a part of the plan comes from the tasks: resolved once they are read
        return ReductionStream(plan.contract, plan.k, plan.strategy)
    return PlannedStream(plan, overrides)
