"""The built-in benchmark table: contracts, timeout metrics, hierarchies, corpus overrides (spec §5, §7.3).

These are facts about AgentCompass 1.0.1's registered benchmarks, read from its sources:
which metrics each declares, and which benchmarks replace series with corpus formulas.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.engine.contract import MetricContract, make_metric_contract
from inspector.engine.corpus import AggregationContext
from inspector.engine.errors import PlanError
from inspector.engine.frontier import frontier_engineering
from inspector.engine.model import TaskRecord
from inspector.engine.plan import Plan


@dataclass(frozen=True, slots=True)
class _Builtin:
    primary: str
    binary: tuple[str, ...]
    scalar: tuple[str, ...]
    labels: Mapping[str, str]
    timeout_metrics: Mapping[str, Any] = field(default_factory=dict)


BUILTIN_BENCHMARKS: dict[str, _Builtin] = {
    "brainarena": _Builtin(
        "score",
        ("artifact_complete",),
        ("score", "figure_score", "method_score", "conclusion_score"),
        {"artifact_complete": "Artifact Completion Rate"},
        {},
    ),
    "browsecomp": _Builtin("correct", ("correct",), (), {}, {}),
    "browsecomp_zh": _Builtin("correct", ("correct",), (), {}, {}),
    "deepresearch_bench": _Builtin(
        "score",
        ("passed",),
        (
            "score",
            "overall_score",
            "comprehensiveness",
            "insight",
            "instruction_following",
            "readability",
            "citation_accuracy",
            "citations_checked",
            "citations_supported",
            "citations_total",
            "fact_scored",
        ),
        {"passed": "Pass Rate"},
        {},
    ),
    "deepsearchqa": _Builtin("correct", ("correct",), (), {}, {}),
    "deepswe": _Builtin(
        "correct",
        ("correct",),
        ("reward", "f2p", "p2p", "partial"),
        {
            "correct": "Pass Rate",
            "reward": "Mean Reward",
            "f2p": "Mean F2P",
            "p2p": "Mean P2P",
            "partial": "Mean Partial",
        },
        {"correct": False, "reward": 0.0},
    ),
    "frontier_engineering": _Builtin("score", (), ("score",), {"score": "Raw Score"}, {}),
    "frontier_swe": _Builtin(
        "score",
        (),
        ("score", "correctness"),
        {"score": "Leaderboard Score"},
        {"score": 0.0, "correctness": 0.0},
    ),
    "frontierscience": _Builtin("correct", ("correct",), (), {}, {}),
    "gaia": _Builtin("correct", ("correct",), (), {}, {}),
    "gdpval_ac": _Builtin(
        "score",
        (),
        ("score", "total_score", "max_possible_score", "candidate_win", "baseline_win", "tie"),
        {
            "score": "Normalized Score",
            "max_possible_score": "Maximum Possible Score",
            "candidate_win": "Candidate Win Rate",
            "baseline_win": "Baseline Win Rate",
            "tie": "Tie Rate",
        },
        {},
    ),
    "hle": _Builtin("correct", ("correct",), (), {}, {}),
    "hle_verified": _Builtin("correct", ("correct",), (), {}, {}),
    "osworld": _Builtin("score", (), ("score",), {"score": "OSWorld Score"}, {}),
    "pinchbench": _Builtin(
        "score",
        ("passed",),
        ("score",),
        {"score": "Score Ratio", "passed": "Full-Score Pass Rate"},
        {},
    ),
    "researchclawbench": _Builtin("score", ("passed",), ("score",), {"passed": "Pass Rate"}, {}),
    "scicode": _Builtin(
        "correct",
        ("correct",),
        ("subproblem_correctness", "subproblem_correct", "subproblem_total"),
        {},
        {},
    ),
    "screenspot": _Builtin("correct", ("correct",), (), {}, {}),
    "sealqa": _Builtin("correct", ("correct",), (), {}, {}),
    "sgi_deep_research": _Builtin("correct", ("correct",), (), {}, {}),
    "skillsbench": _Builtin(
        "score", ("passed",), ("score",), {"passed": "Pass Rate"}, {"score": 0.0, "passed": False}
    ),
    "special_pattern_check": _Builtin("correct", ("correct",), (), {}, {}),
    "swe_marathon": _Builtin("score", (), ("score",), {}, {"score": 0.0}),
    "swebench_multilingual": _Builtin("correct", ("correct",), (), {}, {"correct": False}),
    "swebench_pro": _Builtin("correct", ("correct",), (), {}, {"correct": False}),
    "swebench_pro_verified": _Builtin("correct", ("correct",), (), {}, {"correct": False}),
    "swebench_verified": _Builtin("correct", ("correct",), (), {}, {"correct": False}),
    "taubench": _Builtin("correct", ("correct",), ("reward",), {}, {}),
    "terminal_bench_2": _Builtin("correct", ("correct",), (), {}, {"correct": False}),
    "terminal_bench_2_1": _Builtin("correct", ("correct",), (), {}, {"correct": False}),
    "terminal_bench_2_verified": _Builtin("correct", ("correct",), (), {}, {"correct": False}),
    "widesearch": _Builtin(
        "correct",
        ("correct",),
        (
            "precision_by_row",
            "recall_by_row",
            "f1_by_row",
            "precision_by_item",
            "recall_by_item",
            "f1_by_item",
        ),
        {"correct": "Table Success Rate"},
        {},
    ),
    "wildclawbench": _Builtin("score", ("passed",), ("score",), {"passed": "Pass Rate"}, {}),
    "xbench_deepsearch": _Builtin("correct", ("correct",), (), {}, {}),
}

SCREENSPOT_HIERARCHY: dict[str, Any] = {
    "overall": {
        "aggregation": "weighted_by_count",
        "weight": None,
        "children": {
            group: {
                "aggregation": "weighted_by_count",
                "weight": None,
                "children": {
                    f"{group}_text": {"aggregation": "leaf"},
                    f"{group}_icon": {"aggregation": "leaf"},
                },
            }
            for group in ("mobile", "desktop", "web")
        },
    }
}

_DEEPSWE_REVISIONS = {
    "v1": "c33fa70e68d11d85f9e58abcd5d78643705e916e",
    "v1.1": "0b9fabbb63b9104d678fe965e1632f2dd9eaa2ea",
}
_DEEPSWE_ALIASES = {
    "1": "v1",
    "1.0": "v1",
    "1.0.0": "v1",
    "v1": "v1",
    "v1.0": "v1",
    "v1.0.0": "v1",
    "1.1": "v1.1",
    "v1.1": "v1.1",
}
_FRONTIER_SWE_REVISION = "422b9bb95deb8efe436becb0ed3c44be23611e10"


def builtin_contract(benchmark_id: str) -> MetricContract | None:
    spec = BUILTIN_BENCHMARKS.get(benchmark_id)
    if spec is None:
        return None
    return make_metric_contract(
        spec.primary,
        spec.binary,
        spec.scalar,
        dict(spec.labels),
        source=f"built-in contract of {benchmark_id}",
    )


def timeout_metrics(benchmark_id: str) -> Mapping[str, Any]:
    spec = BUILTIN_BENCHMARKS.get(benchmark_id)
    return spec.timeout_metrics if spec else {}


def default_hierarchy(benchmark_id: str) -> dict[str, Any] | None:
    """screenspot's built-in tree applies when no hierarchy was configured."""
    return SCREENSPOT_HIERARCHY if benchmark_id == "screenspot" else None


# ----------------------------------------------------------------------------- overrides

Override = Callable[[AggregationContext, Plan, Sequence[TaskRecord]], None]


def _scicode(ctx: AggregationContext, plan: Plan, tasks: Sequence[TaskRecord]) -> None:
    ctx.replace_with_ratio_of_sums(
        output_metric="subproblem_correctness",
        numerator_metric="subproblem_correct",
        denominator_metric="subproblem_total",
        label="Subproblem Resolve Rate",
    )


def _deepresearch_metrics(params: Mapping[str, Any]) -> list[str]:
    """``DeepResearchBenchConfig.metrics``: a non-empty subset of race / fact, or the run is refused."""
    raw = params.get("metrics", ["race", "fact"])
    try:
        items = [raw] if isinstance(raw, str) else list(raw or [])
    except TypeError:
        raise PlanError(
            f"deepresearch_bench: metrics must be a string or a list, got {raw!r}"
        ) from None
    metrics = [str(i).strip().lower() for i in items if str(i).strip()]
    unknown = [m for m in metrics if m not in ("race", "fact")]
    if unknown:
        raise PlanError(
            f"deepresearch_bench: metrics must be a subset of race, fact; got {unknown}"
        )
    if not metrics:
        raise PlanError("deepresearch_bench: metrics must select at least one of race, fact")
    return list(dict.fromkeys(metrics))


def _deepresearch(ctx: AggregationContext, plan: Plan, tasks: Sequence[TaskRecord]) -> None:
    params = plan.benchmark_params
    metrics = _deepresearch_metrics(params)
    if "fact" not in metrics:
        return
    for output, num, den, label in (
        ("citation_accuracy", "citations_supported", "citations_checked", "Citation Accuracy"),
        ("avg_citations", "citations_checked", "fact_scored", "Average Citations"),
        (
            "avg_effective_citations",
            "citations_supported",
            "fact_scored",
            "Average Effective Citations",
        ),
    ):
        ctx.replace_with_ratio_of_sums(
            output_metric=output,
            numerator_metric=num,
            denominator_metric=den,
            label=label,
            respect_report_aggregation=False,
        )
    if "race" not in metrics:
        ctx.replace_with_ratio_of_sums(
            output_metric="score",
            numerator_metric="citations_supported",
            denominator_metric="citations_checked",
            label="Citation Accuracy",
            respect_report_aggregation=False,
        )


def _gdpval_delivery(
    tasks: Sequence[TaskRecord], k: int
) -> tuple[dict[str, float], dict[str, float]]:
    delivered_by: dict[str, float] = {}
    required_by: dict[str, float] = {}
    for task in tasks:
        if not task.task_id:
            continue
        attempts = [task.attempts.get(i) for i in range(1, k + 1)]
        if any(a is None for a in attempts):
            continue
        delivered = required = 0.0
        for attempt in attempts:
            art = attempt.scoring_artifacts if attempt else {}
            expected = art.get("gdpval_ac_expected_deliverables")
            if expected is None:
                had = bool(
                    art.get("gdpval_ac_deliverable_files")
                    or art.get("gdpval_ac_missing_deliverables")
                )
            else:
                had = bool(expected)
            if not had:
                continue
            required += 1.0
            if art.get("gdpval_ac_deliverable_files") and not art.get(
                "gdpval_ac_missing_deliverables"
            ):
                delivered += 1.0
        delivered_by[task.task_id] = delivered
        required_by[task.task_id] = required
    return delivered_by, required_by


def _gdpval(ctx: AggregationContext, plan: Plan, tasks: Sequence[TaskRecord]) -> None:
    ctx.replace_with_ratio_of_sums(
        output_metric="score",
        numerator_metric="total_score",
        denominator_metric="max_possible_score",
        label="Normalized Score",
        respect_report_aggregation=False,
    )
    ctx.replace_with_sum(metric_id="total_score", label="Total Score")
    ctx.replace_with_sum(metric_id="max_possible_score", label="Maximum Possible Score")
    for reducer in ctx.reducers_for("score"):
        delivered, required = _gdpval_delivery(tasks, ctx.report.k)
        ctx.append_ratio_series(
            metric_id="delivery_rate",
            reducer=reducer,
            numerator_values=delivered,
            denominator_values=required,
            template_metric="score",
            label="Delivery Rate",
            respect_report_aggregation=False,
        )


def _deepswe(ctx: AggregationContext, plan: Plan, tasks: Sequence[TaskRecord]) -> None:
    params = plan.benchmark_params
    raw = params.get("version")
    version = _DEEPSWE_ALIASES.get(str(raw or "v1.1").strip().lower())
    if version is None:  # DeepSWEConfig refuses the run
        raise PlanError(f"deepswe: version must be one of: v1, v1.1; got {raw!r}")
    revision = str(params.get("repo_revision") or "").strip() or _DEEPSWE_REVISIONS[version]
    ctx.update_extra({"benchmark_version": version, "dataset_revision": revision})


def _frontier_swe(ctx: AggregationContext, plan: Plan, tasks: Sequence[TaskRecord]) -> None:
    params = plan.benchmark_params
    # FrontierSWEConfig: the default applies only when the key is absent.
    revision = str(params.get("repo_revision", _FRONTIER_SWE_REVISION) or "").strip()
    if not revision and not str(params.get("dataset_path") or "").strip():
        raise PlanError("frontier_swe: repo_revision is required when dataset_path is empty")
    ctx.update_extra(
        {"dataset_revision": revision, "scoring": "Frontier-SWE leaderboard gated score"}
    )


OVERRIDES: dict[str, Override] = {
    "scicode": _scicode,
    "deepresearch_bench": _deepresearch,
    "gdpval_ac": _gdpval,
    "deepswe": _deepswe,
    "frontier_swe": _frontier_swe,
    "frontier_engineering": frontier_engineering,
}
