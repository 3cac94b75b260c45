"""frontier_engineering's rank and medal summaries and its three medal series (spec §7.3).

AgentCompass 1.0.1 scores a frontier_engineering run's raw score as usual, then, for each
reducer of ``score``, compares the tasks' evaluated values with two reference tables:

- **rank**: each task of the rank baseline that the run selected (less the v1_filtered
  exclusions) is ranked among the baseline models' scores, highest first, ties sharing
  their mean rank; the report gives the candidate's mean score and mean rank;
- **medal**: each podium task's value earns gold (≥ gold threshold, credit 1), silver
  (0.67) or bronze (0.33); ``medal_score_v1`` is the credit summed over the podium's tasks
  divided by their number, ``medal_score_v1_lite`` the same over the v1-lite tasks, and
  ``medal_score`` the one of the two the run's task set names. A medal series is reported
  only when every podium task the run selected has a value.

Both summaries go into the report's ``extra`` (``frontier_engineering_rank`` /
``frontier_engineering_medal``, keyed by reducer); the medal series are ``benchmark``
series whose task values are the credits. The tables come with the plan
(:class:`~inspector.engine.reference.FrontierTables`); this module reads no file.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from inspector.engine.corpus import AggregationContext
from inspector.engine.errors import PlanError
from inspector.engine.model import TaskRecord
from inspector.engine.plan import Plan
from inspector.engine.reference import FrontierTables

TASK_SETS = ("v1", "v1_lite", "v1_non_gpu", "v1_filtered")
DEFAULT_TASK_SET = "v1_non_gpu"
# Tasks v1_filtered leaves out of the rank comparison (``score_filter``).
FILTERED_OUT = frozenset(
    {
        "ComputerSystems/MallocLab",
        "Cryptographic/AES-128",
        "Cryptographic/SHA-256",
        "Cryptographic/SHA3-256",
        "WirelessChannelSimulation/HighReliableSimulation",
        "EngDesign",
        "engdesign",
    }
)
SOURCE_REF = "7c61ef642099c0f9024c5d3c5815fff411a35c7f"  # the Frontier-Engineering commit
MEDALS = (("gold", 1.0), ("silver", 0.67), ("bronze", 0.33))
MEDAL_SERIES = (
    ("medal_score", "Medal Score"),
    ("medal_score_v1", "Medal Score (v1)"),
    ("medal_score_v1_lite", "Medal Score (v1-lite)"),
)


def task_set(params: Mapping[str, Any]) -> str:
    """``FrontierEngineeringConfig.task_set``, or the run is refused as AgentCompass does."""
    value = str(params.get("task_set", DEFAULT_TASK_SET) or DEFAULT_TASK_SET).strip().lower()
    if value not in TASK_SETS:
        raise PlanError(
            "frontier_engineering: task_set must be v1, v1_lite, v1_non_gpu, or v1_filtered; "
            f"got {params.get('task_set')!r}"
        )
    return value


def medal_name(task_id: str) -> str:
    """A task id as the podium names it: ``/`` → ``_``; any spelling of EngDesign → EngDesign."""
    task = task_id.strip()
    return "EngDesign" if task.lower() == "engdesign" else task.replace("/", "_")


def _finite(value: Any) -> float | None:
    if isinstance(value, bool | int | float) and math.isfinite(float(value)):
        return float(value)
    return None


def mean_ranks(items: Sequence[tuple[str, float]]) -> dict[str, float]:
    """Rank by score, highest first (name breaks the order of equal scores); tied scores
    share the mean of their places."""
    ordered = sorted(items, key=lambda item: (-item[1], item[0]))
    ranks: dict[str, float] = {}
    start = 0
    while start < len(ordered):
        end = start
        while end < len(ordered) and ordered[end][1] == ordered[start][1]:
            end += 1
        for name, _ in ordered[start:end]:
            ranks[name] = (start + 1 + end) / 2
        start = end
    return ranks


def rank_summary(
    scores: Mapping[str, float], task_ids: set[str], tables: FrontierTables, model: str, tasks: str
) -> dict[str, Any]:
    excluded = set(FILTERED_OUT) if tasks == "v1_filtered" else set()
    baseline: dict[str, list[tuple[str, float]]] = {}
    for task, name, score in tables.rank_rows:
        baseline.setdefault(task, []).append((name, score))
    defined = task_ids - excluded
    included = sorted(defined & set(baseline))
    if not included:
        return {
            "status": "unavailable",
            "reason": "no overlapping rankable baseline tasks",
            "baseline_csv": tables.baseline_csv,
            "compared_tasks": 0,
            "candidate": {"avg_score": None, "avg_task_rank": None},
        }
    named = model or "current_model"
    candidate = f"{named} (current run)" if named in tables.rank_models else named
    ranks: list[float] = []
    values: list[float] = []
    errors: list[str] = []
    for task in included:
        value = _finite(scores.get(task))
        if value is None:
            errors.append(task)
            continue
        values.append(value)
        ranks.append(mean_ranks([*baseline[task], (candidate, value)])[candidate])
    complete = defined == set(baseline) - excluded and not errors
    return {
        "status": "unavailable" if not ranks else "ok" if complete else "partial",
        "reason": "No effective rank observations" if not ranks else "",
        "baseline_csv": tables.baseline_csv,
        "run_model": model,
        "score_filter": "v1_filtered_static" if excluded else "none",
        "compared_tasks": len(ranks),
        "coverage_note": f"Compared {len(ranks)}/{len(included)} applicable selected tasks; "
        "missing observations excluded",
        "excluded_baseline_tasks": [
            {"task": task, "reasons": ["score filter"]} for task in sorted(excluded & set(baseline))
        ],
        "rank_error_tasks": errors,
        "run_only_tasks": sorted(defined - set(baseline)),
        "baseline_tasks_missing_from_run": sorted(set(baseline) - defined),
        "candidate": {
            "model": candidate,
            "avg_score": statistics.mean(values) if values else None,
            "avg_task_rank": statistics.mean(ranks) if ranks else None,
        },
    }


def medal_summary(
    scores: Mapping[str, float], task_ids: set[str], tables: FrontierTables, tasks: str
) -> dict[str, Any]:
    podium = {task: (gold, silver, bronze) for task, gold, silver, bronze in tables.podium}
    unavailable = {"status": "unavailable", "podium_csv": tables.podium_csv}
    if not podium:
        return {**unavailable, "reason": "podium CSV is empty"}
    lite_names = {medal_name(label) for label in tables.lite_labels if label}
    lite = [task for task in podium if task in lite_names]
    if not lite:
        return {**unavailable, "reason": "v1-lite tasks do not overlap the podium"}
    submission = {medal_name(task): score for task, score in scores.items()}
    credits: dict[str, float] = {}
    counts = {"gold": 0, "silver": 0, "bronze": 0}
    for task, thresholds in podium.items():
        score = submission.get(task)
        won = next(
            (
                (tier, credit)
                for (tier, credit), threshold in zip(MEDALS, thresholds, strict=True)
                if score is not None and score >= threshold
            ),
            None,
        )
        if task in submission:
            credits[task] = won[1] if won else 0.0
        if won:
            counts[won[0]] += 1
    v1 = math.fsum(credits.values()) / len(podium)
    v1_lite = math.fsum(credits.get(task, 0.0) for task in lite) / len(lite)
    expected = set(lite) if tasks == "v1_lite" else set(podium)
    selected = {medal_name(task) for task in task_ids}
    values: dict[str, float | None] = {
        "medal_score_v1": v1,
        "medal_score_v1_lite": v1_lite,
        "medal_score": v1_lite if tasks == "v1_lite" else v1,
    }
    baselines = {"medal_score_v1": set(podium), "medal_score_v1_lite": set(lite)}
    baselines["medal_score"] = expected
    status: dict[str, dict[str, Any]] = {}
    for metric_id, tasks_of in baselines.items():
        applicable = selected & tasks_of
        valid = applicable & set(submission)
        missing = applicable - set(submission)
        info: dict[str, Any] = {
            "baseline_tasks": len(tasks_of),
            "selected_tasks": sorted(applicable),
            "valid_tasks": sorted(valid),
            "unselected_tasks": sorted(tasks_of - selected),
            "selected_missing_tasks": sorted(missing),
        }
        if missing or not valid:
            values[metric_id] = None
            info["value_role"] = "unavailable"
            info["reason"] = (
                "Selected tasks lack effective scores"
                if missing
                else "No effective applicable observations"
            )
        status[metric_id] = info
    return {
        "status": "partial" if expected - set(submission) else "ok",
        "podium_csv": tables.podium_csv,
        "source_ref": SOURCE_REF,
        "task_set": tasks,
        **values,
        "metric_status": status,
        "podium_tasks": len(podium),
        "v1_lite_tasks": len(lite),
        "counts": counts,
        "missing_tasks": sorted(set(podium) - set(submission)),
        "expected_missing_tasks": sorted(expected - set(submission)),
        "error_tasks": sorted(medal_name(task) for task in task_ids - set(scores)),
        "run_only_tasks": sorted(
            medal_name(task) for task in task_ids if medal_name(task) not in podium
        ),
        "per_task_credit": credits,
    }


def frontier_engineering(ctx: AggregationContext, plan: Plan, tasks: Sequence[TaskRecord]) -> None:
    """The rank and medal summaries of every reducer of ``score``, and the medal series."""
    tables = plan.reference
    if tables is None:
        raise PlanError("frontier_engineering: its reference tables were not given to the engine")
    chosen = task_set(plan.benchmark_params)
    model = plan.model_id.strip()
    task_ids = {task.task_id for task in tasks if task.task_id}
    failed = ctx.report.evaluation_failed
    ranks: dict[str, Any] = {}
    medals: dict[str, Any] = {}
    for reducer in ctx.reducers_for("score"):
        scores = ctx.task_values("score", reducer)
        rank = rank_summary(scores, task_ids, tables, model, chosen)
        rank["evaluation_failed"] = failed
        rank["value_role"] = (
            "unavailable"
            if rank["status"] == "unavailable"
            else "reference"
            if failed
            else "official"
        )
        rank.setdefault(
            "coverage_note",
            f"Compared {rank['compared_tasks']}/{len(task_ids)} selected tasks; only effective "
            "scores overlapping the rank baseline and not excluded by score filters qualify",
        )
        ranks[reducer] = rank
        medal = medal_summary(scores, task_ids, tables, chosen)
        medal["evaluation_failed"] = failed
        medals[reducer] = medal
        won = medal.get("per_task_credit", {})
        credits = {tid: float(won[medal_name(tid)]) for tid in scores if medal_name(tid) in won}
        for metric_id, label in MEDAL_SERIES:
            status = medal.setdefault("metric_status", {}).setdefault(metric_id, {})
            if medal.get(metric_id) is None:
                medal[metric_id] = None
                status["value_role"] = "unavailable"
                status["reason"] = (
                    status.get("reason") or medal.get("reason") or "No effective observations"
                )
                continue
            status["value_role"] = "reference" if failed else "official"
            ctx.append_benchmark_series(
                metric_id=metric_id,
                reducer=reducer,
                value=float(medal[metric_id]),
                template_metric="score",
                label=label,
                task_values=credits,
            )
    ctx.update_extra({"frontier_engineering_rank": ranks, "frontier_engineering_medal": medals})
