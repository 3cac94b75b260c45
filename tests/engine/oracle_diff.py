#!/usr/bin/env python3
"""Differential check of the scoring engine against the real AgentCompass 1.0.1 (not part of CI).

Not collected by pytest (the name does not start with ``test_``). Run it with the project venv::

    export LITELLM_LOCAL_MODEL_COST_MAP=True
    ACVENV=~/.cache/agentcompass-oracle/venv
    .venv/bin/python tests/engine/oracle_diff.py --acvenv $ACVENV --seeds 1 2 3 --count 100 \\
        --work /tmp/oracle-diff [--refusals] [--corpus 40]

For each seed it asks the oracle for ``--count`` random run directories
(``/work/shared/oracle/random_cases.py``; AgentCompass's own writers plus its own
``metrics.json`` / ``summary.md``), reads every run with the project's reader
(``inspector.results.read_run``; a minimal loader here if that does not exist), resolves the
plan with ``inspector.resolve.resolve_plan`` exactly as the inspector does, recomputes with
``inspector.engine.recompute`` and compares ``dumps_metrics_json`` / ``render_summary_markdown``
byte for byte with the stored files.

``oracle_case.json`` (the contract the oracle used for benchmark ids it does not ship) is
never read, except when the stored ``metrics.json`` cannot tell the inspector a metric's
series information; then the case is retried with that contract and the output says so.

``--corpus N`` also writes N run directories per seed for the built-in benchmarks the
generator does not cover (gdpval_ac, deepresearch_bench, screenspot, ...; a small v3
writer here), lets the oracle score them and compares the same way.

``--refusals`` also checks runs AgentCompass refuses: the generator's rejected designs
(``--keep-rejected``), mutations of accepted runs (undeclared metric, binary as int,
scalar as bool, unknown status), hierarchy changes, and changed benchmark params in
``run_info.json`` (deepswe version, frontier_swe revision, deepresearch metrics,
aggregation_mode spelling, unknown params), each confirmed by running the oracle on it.
Where the oracle refuses, the engine must raise an ``EngineError`` (a blocking
``LoadProblem`` from the reader counts too, since it is the reader's refusal). Refusals that
come from benchmark config fields the engine never reads (``judge_model``, unknown keys,
the Jina key) are listed as "not modelled".

Exit status 0 when every comparison is byte-identical and every refusal is shared.

``oracle_sweep.py`` beside it drives this module's corpus writer over every registered
benchmark at k=1 and k=3, with and without metrics.json and as a ``--k 1`` what-if, through
the inspector's command line (issue 39); ``oracle_batch.py`` lets AgentCompass score many
runs in one process.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from inspector.engine.errors import EngineError  # noqa: E402
from inspector.engine.model import Attempt, Issue, TaskRecord  # noqa: E402
from inspector.engine.recomputation import recompute  # noqa: E402
from inspector.engine.render import render_summary_markdown  # noqa: E402
from inspector.engine.report import dumps_metrics_json  # noqa: E402
from inspector.resolve import Overrides, resolve_plan  # noqa: E402
from inspector.user_files import contract_from_data  # noqa: E402

ORACLE_DIR = Path("/work/shared/oracle")


# --------------------------------------------------------------------------- loading


@dataclass
class LoadedRun:
    run_info: dict[str, Any] | None
    params: dict[str, Any] | None
    stored_metrics: dict[str, Any] | None
    metrics_text: str
    summary_text: str
    tasks: list[TaskRecord]
    blocking: list[str] = field(default_factory=list)
    reader: str = ""


def _json(path: Path) -> Any:
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def _minimal_tasks(run_dir: Path) -> list[TaskRecord]:
    """``RunStore._load_persisted_results`` for the v3 layout the generator writes (spec §1.7)."""
    tasks: list[TaskRecord] = []
    seen: set[str] = set()
    for state in ("normal", "error", "fatal"):
        for task_file in sorted((run_dir / "details" / state).glob("*/task.json")):
            index = json.loads(task_file.read_text(encoding="utf-8"))
            if not all(key in index for key in ("category", "ground_truth", "attempt_plan")):
                continue
            folder = task_file.parent
            attempts: dict[int, Attempt] = {}
            retry_counts: dict[int, int] = {}
            for key in index["attempts"]:
                payload = json.loads((folder / f"attempt-{key}" / "result.json").read_text("utf-8"))
                retries = payload.pop("retry_count")
                if retries:
                    retry_counts[int(key)] = retries
                if not payload:
                    continue  # retry-only attempt (spec §10 item 32)
                attempts[int(key)] = Attempt(
                    index=int(key),
                    status=payload["status"],
                    metrics=payload["metrics"],
                    issues=tuple(Issue(**item) for item in payload["issues"]),
                    scoring_artifacts=payload.get("artifacts") or {},
                )
            task_id = index["task_id"]
            if task_id in seen:
                continue
            seen.add(task_id)
            plan = index["attempt_plan"]
            category = index["category"]
            tasks.append(
                TaskRecord(
                    task_id=task_id,
                    category=None if category in ("", {}, []) else category,
                    plan_k=plan["k"],
                    plan_strategy=plan["strategy"],
                    attempts=attempts,
                    retry_counts=retry_counts,
                    ground_truth=index["ground_truth"],
                    source=str(task_file.relative_to(run_dir)),
                )
            )
    return tasks


def load_run(run_dir: Path, use_reader: bool = True) -> LoadedRun:
    if use_reader:
        try:
            from inspector.results.reader import read_run
        except ImportError:
            read_run = None  # type: ignore[assignment]
        if read_run is not None:
            run = read_run(run_dir)
            return LoadedRun(
                run_info=run.run_info,
                params=run.params,
                stored_metrics=run.stored_metrics,
                metrics_text=_text(run_dir / "metrics.json"),
                summary_text=_text(run_dir / "summary.md"),
                tasks=list(run.tasks),
                blocking=[f"{p.path}: {p.message}" for p in run.blocking_problems],
                reader="inspector.results.read_run",
            )
    return LoadedRun(
        run_info=_json(run_dir / "run_info.json"),
        params=_json(run_dir / "params.json"),
        stored_metrics=_json(run_dir / "metrics.json"),
        metrics_text=_text(run_dir / "metrics.json"),
        summary_text=_text(run_dir / "summary.md"),
        tasks=_minimal_tasks(run_dir),
        reader="oracle_diff minimal loader",
    )


def _case_contract(run_dir: Path) -> Any:
    """The oracle's contract (``oracle_case.json``) as a ``--contract`` file, or None."""
    case = _json(run_dir / "oracle_case.json") or {}
    dump = case.get("metric_contract")
    if not isinstance(dump, dict):
        return None
    metrics = dump["metrics"]
    primary = next(mid for mid, spec in metrics.items() if spec.get("primary"))
    binary = [mid for mid, spec in metrics.items() if spec["kind"] == "binary_success"]
    scalar = [mid for mid, spec in metrics.items() if spec["kind"] == "scalar"]
    display = {
        mid: {k: v for k, v in (spec.get("display") or {}).items() if v is not None}
        for mid, spec in metrics.items()
        if spec.get("display")
    }
    contract = contract_from_data(
        {"primary": primary, "binary": binary, "scalar": scalar, "display": display},
        source="oracle_case.json",
    )
    if list(contract.metrics) != list(metrics):
        # make_metric_contract reorders (primary, binary, scalar); keep the oracle's order.
        from inspector.engine.contract import MetricContract

        contract = MetricContract(
            {mid: contract.metrics[mid] for mid in metrics}, source="oracle_case.json"
        )
    return contract


# --------------------------------------------------------------------------- one case


@dataclass
class Outcome:
    name: str
    json_ok: bool = False
    md_ok: bool = False
    used_case_contract: bool = False
    error: str = ""
    diff: str = ""


def _first_diff(expected: str, actual: str) -> str:
    exp, act = expected.splitlines(), actual.splitlines()
    for number, (a, b) in enumerate(zip(exp, act, strict=False), start=1):
        if a != b:
            return f"line {number}:\n  expected {a!r}\n  actual   {b!r}"
    return f"length differs: expected {len(exp)} lines, actual {len(act)} lines"


def score(run: LoadedRun, overrides: Overrides | None = None) -> tuple[str, str]:
    plan = resolve_plan(run.run_info, run.params, run.stored_metrics, run.tasks, overrides)
    result = recompute(run.tasks, plan)
    return (
        dumps_metrics_json(result.report),
        render_summary_markdown(plan.model_id, plan.benchmark_id, result.report),
    )


def check_case(run_dir: Path, use_reader: bool = True) -> Outcome:
    outcome = Outcome(run_dir.name)
    run = load_run(run_dir, use_reader)
    if run.blocking:
        outcome.error = "reader refused an accepted run: " + "; ".join(run.blocking[:3])
        return outcome
    try:
        metrics, summary = score(run)
    except Exception as exc:
        metrics = summary = ""
        outcome.error = f"{type(exc).__name__}: {exc}"
    if (metrics != run.metrics_text or summary != run.summary_text) and (
        contract := _case_contract(run_dir)
    ) is not None:
        # Only when the stored metrics.json cannot tell us a metric's series information.
        try:
            alt_metrics, alt_summary = score(run, Overrides(contract=contract))
        except Exception:
            alt_metrics = alt_summary = ""
        if alt_metrics == run.metrics_text and alt_summary == run.summary_text:
            outcome.used_case_contract = True
            metrics, summary, outcome.error = alt_metrics, alt_summary, ""
    outcome.json_ok = metrics == run.metrics_text
    outcome.md_ok = summary == run.summary_text
    if not outcome.json_ok and metrics:
        outcome.diff = "metrics.json " + _first_diff(run.metrics_text, metrics)
    elif not outcome.md_ok and summary:
        outcome.diff = "summary.md " + _first_diff(run.summary_text, summary)
    return outcome


# --------------------------------------------------------------------------- refusals


def _oracle(
    acvenv: Path, run_dir: Path, extra: list[str], *, write_in_place: bool = False
) -> tuple[bool, str]:
    """(accepted, message) from running the oracle on ``run_dir``.

    The output goes to a scratch folder, or into the run directory with ``write_in_place``.
    """
    out = run_dir if write_in_place else run_dir.parent / (run_dir.name + ".oracle-out")
    cmd = [str(acvenv / "bin" / "python"), str(ORACLE_DIR / "ac_oracle.py"), str(run_dir)]
    cmd += ["--out", str(out), *extra]
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if not write_in_place:
        shutil.rmtree(out, ignore_errors=True)
    last = (proc.stderr.strip().splitlines() or [""])[-1]
    return proc.returncode == 0, last


def check_refusal(run_dir: Path, overrides: Overrides | None = None) -> str:
    """'engine-error' / 'reader-refused' / 'accepted' / 'crash: ...' for a run the oracle refuses."""
    run = load_run(run_dir)
    if run.blocking:
        return "reader-refused"
    try:
        score(run, overrides)
    except EngineError as exc:
        return f"engine-error ({type(exc).__name__})"
    except Exception as exc:
        return f"crash: {type(exc).__name__}: {exc}"
    return "accepted"


def _rewrite_attempt(run_dir: Path, change: Any) -> bool:
    for result in sorted((run_dir / "details").glob("*/*/attempt-1/result.json")):
        if "/running/" in str(result):
            continue
        payload = json.loads(result.read_text(encoding="utf-8"))
        if not payload.get("metrics"):
            continue
        before = json.dumps(payload, sort_keys=True)
        change(payload)
        if json.dumps(payload, sort_keys=True) == before:
            return False  # the mutation does not apply to this run (e.g. no binary metric)
        result.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", "utf-8")
        return True
    return False


def _first_binary(payload: dict[str, Any]) -> str | None:
    return next((k for k, v in payload["metrics"].items() if isinstance(v, bool)), None)


def _first_scalar(payload: dict[str, Any]) -> str | None:
    return next((k for k, v in payload["metrics"].items() if not isinstance(v, bool)), None)


MUTATIONS: dict[str, Any] = {
    # (mutate the run directory, oracle extra args, inspector overrides)
    "undeclared_metric": lambda p: p["metrics"].__setitem__("zz_undeclared", 1.0),
    "binary_as_int": lambda p: (
        p["metrics"].__setitem__(_first_binary(p), 1) if _first_binary(p) else None
    ),
    "scalar_as_bool": lambda p: (
        p["metrics"].__setitem__(_first_scalar(p), True) if _first_scalar(p) else None
    ),
    "unknown_status": lambda p: p.__setitem__("status", "exploded"),
}
PLAN_MUTATIONS: dict[str, tuple[list[str], Overrides]] = {
    "weighted_all_zero": (
        [
            "--category-hierarchy",
            '{"overall": {"aggregation": "weighted", "children": {"__uncategorized__": {"weight": 0},'
            ' "zz_absent": {"weight": 0}}}}',
        ],
        Overrides(
            hierarchy={
                "overall": {
                    "aggregation": "weighted",
                    "children": {"__uncategorized__": {"weight": 0}, "zz_absent": {"weight": 0}},
                }
            }
        ),
    ),
    "hierarchy_two_roots": (
        ["--category-hierarchy", '{"overall": {}, "other": {}}'],
        Overrides(hierarchy={"overall": {}, "other": {}}),
    ),
    "weighted_child_without_weight": (
        [
            "--category-hierarchy",
            '{"overall": {"aggregation": "weighted", "children": {"a": {"weight": 1}, "b": {}}}}',
        ],
        Overrides(
            hierarchy={
                "overall": {
                    "aggregation": "weighted",
                    "children": {"a": {"weight": 1}, "b": {}},
                }
            }
        ),
    ),
}


# run_info.json request.benchmark.params changes: (benchmark id of the base run, params).
PARAM_PROBES: list[tuple[str, dict[str, Any]]] = [
    ("deepswe", {"version": "v2"}),
    ("deepswe", {"version": "1.0.0"}),
    ("deepswe", {"version": " V1.1 ", "repo_revision": " abc "}),
    ("frontier_swe", {"repo_revision": "   "}),
    ("frontier_swe", {"repo_revision": "", "dataset_path": "/data/fswe"}),
    ("frontier_swe", {"repo_revision": " abc "}),
    ("deepresearch_bench", {"metrics": ["race", "bogus"]}),
    ("deepresearch_bench", {"metrics": []}),
    ("deepresearch_bench", {"metrics": " RACE "}),
    ("frontier_engineering", {"task_set": "v2"}),
    ("frontier_engineering", {"task_set": " V1_FILTERED "}),
    ("*", {"aggregation_mode": "Category_Mean"}),
    ("*", {"aggregation_mode": " category_mean"}),
    ("*", {"aggregation_mode": "category_mean"}),
    ("*", {"unknown_param": 1}),
]
# Refusals that come from benchmark config fields the engine does not read (not modelled).
CONFIG_ONLY = ("unexpected keyword argument", "judge_model", "Jina Reader key", "agent_style")


def _benchmark_of(run_dir: Path) -> str:
    info = _json(run_dir / "run_info.json") or {}
    return str(((info.get("request") or {}).get("benchmark") or {}).get("id") or "")


def _has_hierarchy(run_dir: Path) -> bool:
    info = _json(run_dir / "run_info.json") or {}
    params = ((info.get("request") or {}).get("benchmark") or {}).get("params") or {}
    return bool(params.get("category_hierarchy"))


def _verdict(
    acvenv: Path,
    run_dir: Path,
    extra: list[str] | None = None,
    overrides: Overrides | None = None,
    *,
    in_place: bool = True,
) -> str:
    """Run the oracle, then the inspector; one line saying whether they agree.

    With ``in_place`` the oracle writes metrics.json / summary.md into ``run_dir`` (a
    scratch copy) and an accepted run is compared byte for byte.
    """
    ok, message = _oracle(acvenv, run_dir, extra or [], write_in_place=in_place)
    if ok and in_place:
        outcome = check_case(run_dir)
        same = outcome.json_ok and outcome.md_ok
        return "both accept, identical" if same else f"DIVERGENCE {outcome.error or outcome.diff}"
    if ok:
        return "oracle accepts; skipped"
    verdict = check_refusal(run_dir, overrides)
    if verdict.startswith(("engine-error", "reader-refused")):
        return f"both refuse: oracle {message[:90]!r} -> inspector {verdict}"
    if any(marker in message for marker in CONFIG_ONLY):
        return f"not modelled (config field): oracle {message[:90]!r} -> inspector {verdict}"
    return f"DIVERGENCE oracle refuses {message[:90]!r} -> inspector {verdict}"


def refusal_checks(acvenv: Path, accepted: list[Path], rejected: list[Path], work: Path) -> int:
    """Runs AgentCompass refuses: the inspector must refuse them too (EngineError or reader)."""
    lines: list[str] = []
    for run_dir in rejected:
        if not (run_dir / "details").is_dir():
            continue
        lines.append(f"  {run_dir.name}: {_verdict(acvenv, run_dir)}")
    scratch = work / "mutations"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    bases = [d for d in accepted if list((d / "details").glob("*/*/task.json"))][:6]
    for base in bases:
        for name, change in MUTATIONS.items():
            target = scratch / f"{base.name}__{name}"
            shutil.copytree(base, target)
            if not _rewrite_attempt(target, change):
                shutil.rmtree(target)
                continue
            lines.append(f"  {target.name}: {_verdict(acvenv, target)}")
    # The oracle merges --category-hierarchy over a stored one: use runs without one.
    flat = [d for d in bases + accepted if not _has_hierarchy(d)][:2]
    for base in flat:
        for name, (extra, overrides) in PLAN_MUTATIONS.items():
            verdict = _verdict(acvenv, base, extra, overrides, in_place=False)
            lines.append(f"  {base.name} + {name}: {verdict}")
    for benchmark, params in PARAM_PROBES:
        base = next(
            (d for d in accepted if benchmark in ("*", _benchmark_of(d)) and not _has_hierarchy(d)),
            None,
        )
        if base is None and benchmark == "deepresearch_bench":
            base = write_corpus_case(scratch, accepted[0], 0, 1)
        if base is None and benchmark == "frontier_engineering":
            base = write_corpus_case(scratch, accepted[0], 0, 1, benchmark=benchmark, k=1)
        if base is None:
            lines.append(f"  {benchmark} {params}: no base run; skipped")
            continue
        label = "_".join(params)
        target = scratch / f"{base.name}__params_{label}_{abs(hash(repr(params))) % 1000}"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(base, target)
        info = json.loads((target / "run_info.json").read_text("utf-8"))
        info["request"]["benchmark"].setdefault("params", {}).update(params)
        (target / "run_info.json").write_text(json.dumps(info, indent=2, sort_keys=True), "utf-8")
        lines.append(f"  {target.name} {params}: {_verdict(acvenv, target)}")
    print("\nRefusals and benchmark params:")
    print("\n".join(lines))
    divergences = sum("DIVERGENCE" in line for line in lines)
    print(f"  {len(lines)} checks, {divergences} divergences")
    return divergences


# --------------------------------------------------------------------------- built-in benchmarks

# The random generator covers scicode, deepswe, frontier_swe and synthetic contracts. These
# cases cover the other built-in benchmarks (corpus formulas of gdpval_ac and
# deepresearch_bench, screenspot's built-in hierarchy, the plain contracts), written in the
# v3 layout by the small writer below and scored by the oracle (``ac_oracle.py``).

CORPUS_BENCHMARKS = (
    "gdpval_ac",
    "deepresearch_bench",
    "screenspot",
    "taubench",
    "widesearch",
    "brainarena",
    "pinchbench",
    "skillsbench",
    "swebench_verified",
    "osworld",
    "frontier_engineering",
)
CORPUS_CATEGORIES = [
    "mobile_text",
    "mobile_icon",
    "desktop_text",
    "web_icon",
    "web_text",
    "finance",
    "law",
    None,
    " spaced ",
    "a/b",
    3,
    "日本語",
]


def _corpus_value(rng: Any, metric: str, kind: str) -> Any:
    if kind == "binary_success":
        return rng.random() < 0.5
    if metric in (
        "total_score",
        "max_possible_score",
        "citations_checked",
        "citations_total",
        "citations_supported",
        "fact_scored",
    ):
        return rng.choice([0, 0, 1, 2, 3, 5, 8])
    return rng.choice([0, 1, 0.25, 0.5, 0.75, round(rng.random(), 3), 1 / 3, 0.1])


# Benchmarks whose config requires a judge model (AgentCompass refuses the run without one).
JUDGED = (
    "widesearch",
    "brainarena",
    "browsecomp",
    "browsecomp_zh",
    "deepsearchqa",
    "frontierscience",
    "gaia",
    "hle",
    "hle_verified",
    "researchclawbench",
    "sealqa",
    "sgi_deep_research",
    "xbench_deepsearch",
)


def _corpus_params(rng: Any, benchmark: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if rng.random() < 0.4:
        params["aggregation_mode"] = "category_mean"
    # What these benchmarks' configs require (a real run has them in run_info.json).
    if benchmark in JUDGED:
        params["judge_model"] = {"id": "judge-1"}
    if benchmark == "osworld":
        params["agent_style"] = "claude"
    if benchmark == "deepresearch_bench":
        params["judge_model"] = {"id": "judge-1"}
        params["jina_api_key"] = "jina-test"
        choice = rng.choice(
            [None, ["race", "fact"], ["race"], ["fact"], "fact", [" FACT ", "race"]]
        )
        if choice is not None:
            params["metrics"] = choice
    if benchmark == "frontier_engineering" and rng.random() < 0.8:
        params["task_set"] = rng.choice(
            ["v1", "v1_lite", " V1_Lite ", "v1_filtered", "v1_non_gpu", "", None]
        )
    if benchmark != "screenspot" and rng.random() < 0.3:
        params["category_hierarchy"] = {
            "overall": {
                "aggregation": rng.choice(["unweighted", "weighted_by_count", "weighted"]),
                "children": {
                    "g1": {
                        "aggregation": "unweighted",
                        "weight": 2,
                        "children": {"finance": {}, "law": {}},
                    },
                    "a/b": {"weight": 1},
                    "__uncategorized__": {"weight": 1},
                },
            }
        }
    return params


# frontier_engineering: task ids from its reference tables (rank baseline with "/", the medal
# podium with "_", both spellings of EngDesign), some only in one table, some in neither.
FRONTIER_TASKS = (
    "Astrodynamics/MannedLunarLanding",
    "ComputerSystems/MallocLab",
    "JobShop/abz",
    "JobShop_abz",
    "engdesign",
    "EngDesign",
    "Robotics/PIDTuning",
    "StructuralOptimization/ISCSO2015",
    "StructuralOptimization/TopologyOptimization",
    "InventoryOptimization/disruption_eoqd",
    "QuantumComputing/task_01_routing_qftentangled",
    "QuantumComputing/task_02_clifford_t_synthesis",
    "Aerodynamics/CarAerodynamicsSensing",
    "Cryptographic/AES-128",
    "Optics/holographic_multiplane_focusing",
    "ReactionOptimisation/snar_multiobjective",
    "Custom/not_in_any_table",
)
# (gold, silver, bronze) of some podium rows, to land on and around the thresholds.
FRONTIER_THRESHOLDS = {
    "Astrodynamics/MannedLunarLanding": (6839.0331, 6660.942428, 6079.2455),
    "ComputerSystems/MallocLab": (96.0, 86.0, 57.0),
    "JobShop/abz": (96.1035, 91.23143065488635, 88.4924),
    "engdesign": (27.0, 27.0, 27.0),
    "EngDesign": (27.0, 27.0, 27.0),
    "Robotics/PIDTuning": (0.1632, 0.1585, 0.1521),
    "StructuralOptimization/ISCSO2015": (-968.4567, -1120.212, -1139.3354),
    "StructuralOptimization/TopologyOptimization": (-185.7983, -188.4673, -189.3039),
    "InventoryOptimization/disruption_eoqd": (1.0, 0.6473, 0.639),
}


def _frontier_full() -> tuple[list[str], list[str]]:
    """Every task of the rank baseline; and those plus the podium's other tasks."""
    from inspector.engine.frontier import medal_name
    from inspector.results.reference import frontier_tables

    tables = frontier_tables()
    ranked = sorted({task for task, _, _ in tables.rank_rows})
    named = {medal_name(task) for task in ranked}
    return ranked, ranked + [task for task, *_ in tables.podium if task not in named]


def _frontier_score(rng: Any, task_id: str) -> Any:
    from inspector.engine.frontier import medal_name
    from inspector.results.reference import frontier_tables

    podium = {task: levels for task, *levels in frontier_tables().podium}
    levels = FRONTIER_THRESHOLDS.get(task_id) or podium.get(medal_name(task_id))
    if levels is None or rng.random() < 0.2:
        return rng.choice([0, 1, 0.5, -3.25, 42.0, round(rng.uniform(-10, 100), 4)])
    gold, silver, bronze = levels
    return rng.choice([gold, silver, bronze, gold * 1.5 + 1, bronze - 1.0, (silver + bronze) / 2])


def write_corpus_case(
    root: Path,
    template: Path,
    seed: int,
    index: int,
    *,
    benchmark: str | None = None,
    k: int | None = None,
    strategy: str | None = None,
    keep_first: bool = False,
) -> Path:
    """One run directory for a built-in benchmark, in AgentCompass's v3 layout (the
    benchmark, k and strategy drawn from the seed unless given; ``keep_first``: every task
    has its attempt 1, so the run's attempt 1 at k=1 is a run AgentCompass accepts)."""
    import random

    from inspector.engine.benchmarks import builtin_contract
    from inspector.results.layout import task_directory_name

    fixed = (benchmark, k, strategy) != (None, None, None)
    rng = random.Random(
        f"{seed}-{index}-{benchmark}-{k}-{strategy}" if fixed else f"{seed}-{index}"
    )
    benchmark = benchmark or CORPUS_BENCHMARKS[index % len(CORPUS_BENCHMARKS)]
    contract = builtin_contract(benchmark)
    assert contract is not None
    drawn_k = rng.choice([1, 1, 2, 3])
    k = k or drawn_k
    drawn = "pass" if contract.primary_id == "correct" and rng.random() < 0.3 else "avg"
    strategy = strategy or drawn
    name = f"corpus_s{seed}_{index:03d}_{benchmark}_k{k}{strategy}"
    run_dir = root / name
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    params = _corpus_params(rng, benchmark)
    info = json.loads((template / "run_info.json").read_text("utf-8"))
    info["run_id"] = name
    info["request"]["benchmark"] = (
        {"id": benchmark, "params": params} if params else {"id": benchmark}
    )
    info["request"]["execution"]["attempts"] = {"k": k, "strategy": strategy}
    info["request"]["output"]["run_id"] = name
    if benchmark == "frontier_engineering" and rng.random() < 0.3:
        info["request"]["model"]["id"] = rng.choice(["GLM-5", " GPT-5.4 ", "model (current run)"])
    (run_dir / "run_info.json").write_text(json.dumps(info, indent=2, sort_keys=True), "utf-8")
    if (template / "params.json").is_file():  # as AgentCompass records the request
        record = json.loads((template / "params.json").read_text("utf-8"))
        record["benchmark"] = info["request"]["benchmark"]
        record["execution"] = {**record["execution"], "attempts": {"k": k, "strategy": strategy}}
        record["model"] = {"id": info["request"]["model"]["id"]}
        record["output"] = {"run_id": name}
        text = json.dumps(record, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
        (run_dir / "params.json").write_text(text, "utf-8")
    severities = ["fatal"] * 1 + ["error"] * 4 + ["warning"] * 3 + [None] * 40
    # " spaced " breaks the corpus formulas' category counts (item 16): only in some runs.
    spaced = rng.random() < 0.25
    categories = [c for c in CORPUS_CATEGORIES if spaced or c != " spaced "]
    # A frontier_engineering run that observed every score (half of them) has medal series.
    missing, present = 0.1, 0.85
    if benchmark == "frontier_engineering":
        task_ids = rng.sample(FRONTIER_TASKS, rng.randint(0, len(FRONTIER_TASKS)))
        if rng.random() < 0.2:  # the whole rank baseline (rank "ok"), or all podium tasks too
            task_ids = list(rng.choice(_frontier_full()))
        if rng.random() < 0.5:
            missing, present, severities = 0.0, 1.0, [None] * 40 + ["warning"]
    else:
        task_ids = [f"{benchmark}-{number}" for number in range(rng.randint(0, 14))]
    for task_id in task_ids:
        attempts: dict[str, dict[str, Any]] = {}
        same_score = _frontier_score(rng, task_id) if benchmark == "frontier_engineering" else 0
        for attempt_index in range(1, k + 1):
            if rng.random() < missing and not (keep_first and attempt_index == 1):
                continue
            metrics = {
                m: _corpus_value(rng, m, spec.kind)
                for m, spec in contract.metrics.items()
                if rng.random() < present
            }
            if benchmark == "frontier_engineering" and "score" in metrics:
                metrics["score"] = (
                    same_score if rng.random() < 0.6 else _frontier_score(rng, task_id)
                )
            severity = rng.choice(severities)
            issues = (
                []
                if severity is None
                else [
                    {
                        "severity": severity,
                        "phase": "evaluate",
                        "code": f"{severity}_code",
                        "message": f"{severity} message",
                    }
                ]
            )
            artifacts: dict[str, Any] = {}
            if benchmark == "gdpval_ac":
                if rng.random() < 0.7:
                    artifacts["gdpval_ac_expected_deliverables"] = rng.choice(
                        [["a.docx"], [], None]
                    )
                if rng.random() < 0.6:
                    artifacts["gdpval_ac_deliverable_files"] = rng.choice([["a.docx"], []])
                if rng.random() < 0.3:
                    artifacts["gdpval_ac_missing_deliverables"] = ["b.xlsx"]
                artifacts = {k2: v for k2, v in artifacts.items() if v is not None}
            status = "completed" if severity in (None, "warning") else "eval_error"
            attempts[str(attempt_index)] = {
                "status": status,
                "metrics": metrics,
                "final_answer": None,
                "trajectory": {},
                "issues": issues,
                "artifacts": artifacts,
                "analysis_result": {},
                "meta": {"benchmark": {}, "harness": {}},
            }
            if strategy == "pass" and metrics.get("correct") is True and rng.random() < 0.8:
                break
        if not attempts:
            attempts["1"] = {
                "status": "completed",
                "metrics": {},
                "final_answer": None,
                "trajectory": {},
                "issues": [],
                "artifacts": {},
                "analysis_result": {},
                "meta": {"benchmark": {}, "harness": {}},
            }
        severities_seen = {i["severity"] for a in attempts.values() for i in a["issues"]}
        state = (
            "fatal"
            if "fatal" in severities_seen
            else "error"
            if "error" in severities_seen
            else "normal"
        )
        folder = run_dir / "details" / state / task_directory_name(task_id)
        for key, payload in attempts.items():
            (folder / f"attempt-{key}").mkdir(parents=True)
            (folder / f"attempt-{key}" / "result.json").write_text(
                json.dumps({**payload, "retry_count": 0}, indent=2), "utf-8"
            )
        index_doc = {
            "schema_version": "agentcompass.task.v3",
            "task_id": task_id,
            "attempts": {key: f"attempt-{key}" for key in attempts},
            "category": rng.choice(categories),
            "ground_truth": None,
            "attempt_plan": {"k": k, "strategy": strategy},
        }
        (folder / "task.json").write_text(json.dumps(index_doc, indent=2), "utf-8")
    return run_dir


def corpus_checks(acvenv: Path, work: Path, seed: int, count: int, template: Path) -> int:
    root = work / f"corpus_s{seed}"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    same = refused_ok = 0
    problems: list[str] = []
    for index in range(count):
        run_dir = write_corpus_case(root, template, seed, index)
        accepted, message = _oracle(acvenv, run_dir, [], write_in_place=True)
        if not accepted:
            verdict = check_refusal(run_dir)
            if verdict.startswith(("engine-error", "reader-refused")):
                refused_ok += 1
            else:
                problems.append(f"{run_dir.name}: oracle refuses ({message[:120]}) -> {verdict}")
            continue
        outcome = check_case(run_dir)
        if outcome.json_ok and outcome.md_ok:
            same += 1
        else:
            problems.append(f"{run_dir.name}: {outcome.error or outcome.diff}")
    print(f"\nbuilt-in benchmark cases: {count}  identical: {same}  refused by both: {refused_ok}")
    for line in problems:
        print(f"DIVERGENCE {line}")
    return len(problems)


# --------------------------------------------------------------------------- main


def generate(acvenv: Path, seed: int, count: int, out: Path, keep_rejected: Path | None) -> None:
    if out.is_dir() and len(list(out.glob("rnd_*"))) >= count:
        return
    cmd = [str(acvenv / "bin" / "python"), str(ORACLE_DIR / "random_cases.py")]
    cmd += ["--seed", str(seed), "--count", str(count), "--out", str(out), "--clean"]
    if keep_rejected is not None:
        cmd += ["--keep-rejected", str(keep_rejected)]
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--acvenv", type=Path, default=Path.home() / ".cache/agentcompass-oracle/venv"
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--work", type=Path, default=Path("/tmp/oracle-diff"))
    parser.add_argument("--refusals", action="store_true")
    parser.add_argument("--cases", type=Path, nargs="*", help="check these run dirs only")
    parser.add_argument(
        "--corpus", type=int, default=0, help="also check N built-in benchmark cases per seed"
    )
    parser.add_argument(
        "--minimal-loader", action="store_true", help="use the loader here, not read_run"
    )
    args = parser.parse_args(argv)

    if args.cases:
        dirs = list(args.cases)
    else:
        dirs = []
        for seed in args.seeds:
            out = args.work / f"s{seed}"
            rejected = args.work / f"rejected_s{seed}" if args.refusals else None
            generate(args.acvenv, seed, args.count, out, rejected)
            dirs += sorted(p for p in out.glob("rnd_*") if p.is_dir())

    outcomes = []
    use_reader = not args.minimal_loader
    reader = load_run(dirs[0], use_reader).reader if dirs else ""
    for run_dir in dirs:
        try:
            outcomes.append(check_case(run_dir, use_reader))
        except Exception:
            outcomes.append(Outcome(run_dir.name, error=traceback.format_exc(limit=3)))
    json_ok = sum(o.json_ok for o in outcomes)
    md_ok = sum(o.md_ok for o in outcomes)
    print(f"reader: {reader}")
    print(
        f"cases: {len(outcomes)}  metrics.json identical: {json_ok}  summary.md identical: {md_ok}"
    )
    used = [o.name for o in outcomes if o.used_case_contract]
    if used:
        print(
            f"used the contract from oracle_case.json (stored metrics.json lacked it): {len(used)}"
        )
        for name in used:
            print(f"  {name}")
    for o in outcomes:
        if not (o.json_ok and o.md_ok):
            print(f"DIVERGENCE {o.name}: {o.error or o.diff}")
    corpus_problems = 0
    if args.corpus and dirs:
        for seed in args.seeds:
            corpus_problems += corpus_checks(args.acvenv, args.work, seed, args.corpus, dirs[0])
    if args.refusals and dirs:
        accepted = list(dirs)
        rejected = sorted(
            p
            for seed in args.seeds
            for p in (args.work / f"rejected_s{seed}").glob("*")
            if p.is_dir()
        )
        corpus_problems += refusal_checks(args.acvenv, accepted, rejected, args.work)
    return 0 if json_ok == md_ok == len(outcomes) and not corpus_problems else 1


if __name__ == "__main__":
    raise SystemExit(main())
