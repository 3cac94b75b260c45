"""What ``inspector bundle`` embeds: the answers the other commands print, gathered as one
JSON document. Nothing here aggregates: each number is the one ``report --json``,
``stats --format json``, ``tasks --format jsonl``, ``leaderboard --format json``,
``gate --format json`` and ``items --format json`` print (the same functions make them).

Per attempt the evidence the diagnostics screen shows (issues, the verifier's output,
the trajectory) is embedded cut to a stated number of characters, the number left out said.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector.answers.run import Unusable, load_session
from inspector.app.diagnostics import trajectory_text
from inspector.app.payloads import read_payload
from inspector.cli.stats import plan_json, stats_json
from inspector.engine.model import TaskRecord
from inspector.engine.recomputation import Recomputation
from inspector.engine.strategies import HEADLINE
from inspector.overrides import Overrides
from inspector.results.discover import is_run
from inspector.results.problems import ResultFileError
from inspector.results.reader import Run
from inspector.results.tasks import TaskEntry
from inspector.session import Session
from inspector.views.audit import scoped_tasks
from inspector.views.distribution import distribution_rows
from inspector.views.documents import json_text
from inspector.views.run_stats import run_stats
from inspector.views.task_rows import task_json
from inspector.views.tasks import series_values

PAYLOAD_LIMIT = 32 * 1024**2
"""The largest ``result.json`` read for its verifier output and trajectory (as the screens)."""


@dataclass(frozen=True)
class Cuts:
    """How many characters of each attempt's evidence the bundle keeps."""

    trajectory: int
    verifier: int


def cut(text: str, limit: int) -> dict[str, Any]:
    """``text`` cut to ``limit`` characters, with its whole size and how much was left out."""
    return {"text": text[:limit], "left_out": max(0, len(text) - limit), "size": len(text)}


def recut(kept: dict[str, Any] | None, limit: int) -> dict[str, Any] | None:
    """A :func:`cut` cut again to at most ``limit`` characters."""
    if kept is None or len(kept["text"]) <= limit:
        return kept
    return {"text": kept["text"][:limit], "left_out": kept["size"] - limit, "size": kept["size"]}


def runs_under(path: str) -> list[tuple[str, str]]:
    """``(path, name)`` of the run at ``path`` or of every run under the root ``path``."""
    if is_run(Path(path)):
        return [(path, os.path.basename(os.path.normpath(path)) or path)]
    from inspector.results.root_walk import walk_root

    return [(os.path.join(path, rel), rel) for _, rel in sorted(walk_root(path).runs)]


def run_data(
    path: str, name: str, overrides: Overrides, cuts: Cuts, say: Callable[[str], None]
) -> dict[str, Any]:
    """One run's part of the bundle (``problem`` alone when it cannot be recomputed), each
    attempt's evidence cut to ``cuts`` (cut shorter by :func:`evidence_cut` if need be)."""
    try:
        session = load_session(path, overrides, say=say)
    except Unusable as exc:
        return {"run": name, "problem": str(exc)}
    rec = session.recomputation
    assert rec is not None
    report = json.loads(session.metrics_json())  # exactly what `report --json` prints
    return {
        "run": name,
        "problem": None,
        "check": _check(session),
        "report": report,
        "stats": _intervals(stats_json(rec, run_stats(rec))),
        "plan": {**plan_json(rec), **_plan_more(rec)},
        "headline": next((s.series_id for s in rec.report.series if s.role == HEADLINE), None),
        "distribution": {
            s.series_id: distribution_rows(series_values(rec, s.series_id))
            for s in rec.report.series
            if s.series_id in rec.reductions
        },
        "tasks": {
            s.series_id: [task_json(t) for t in scoped_tasks(rec, s.series_id)]
            for s in rec.report.series
        },
        "attempts": _attempts(session, rec, cuts),
    }


def _intervals(stats: dict[str, Any]) -> dict[str, Any]:
    """``stats --format json`` without its flaky tasks (a list as long as the run, which
    the page does not show)."""
    return {key: value for key, value in stats.items() if key != "flaky"}


def _check(session: Session) -> dict[str, Any]:
    """The recomputation against the stored metrics.json, as ``check`` says it."""
    if session.recomputation is None or session.recomputation.plan.derived or not session.own_plan:
        return {"state": "derived", "differences": []}  # a what-if plan: nothing to compare
    if session.run.stored_metrics is None:
        return {"state": "unstored", "differences": []}
    found = session.differences
    shown = [{"where": d.where, "stored": d.stored, "recomputed": d.recomputed} for d in found[:50]]
    return {"state": "differs" if found else "ok", "differences": shown, "count": len(found)}


def _plan_more(rec: Recomputation) -> dict[str, Any]:
    plan = rec.plan
    return {
        "benchmark": plan.benchmark_id,
        "model": plan.model_id,
        "primary": plan.contract.primary_id,
        "metrics": {m: spec.kind for m, spec in plan.contract.metrics.items()},
        "hierarchy": bool(plan.hierarchy),
        "sources": dict(plan.sources),
    }


def _entries(run: Run) -> dict[str, TaskEntry]:
    """Each task id's entry, as :meth:`Run.entry_for` finds it, for every task at once."""
    found: dict[str, TaskEntry] = {}
    for entry in run.entries:
        task_id = entry.task_id
        if task_id is None:
            continue  # no task id: not one of the tasks scored
        if task_id not in found or (found[task_id].record is None and entry.record is not None):
            found[task_id] = entry
    return found


def _attempts(session: Session, rec: Recomputation, cuts: Cuts) -> dict[str, list[dict[str, Any]]]:
    entries = _entries(session.run)
    return {
        task.task_id: [
            _attempt(session.run, entries.get(task.task_id), task, index, cuts)
            for index in sorted(task.attempts)
        ]
        for task in rec.tasks
    }


def _attempt(
    run: Run, entry: TaskEntry | None, task: TaskRecord, index: int, cuts: Cuts
) -> dict[str, Any]:
    attempt = task.attempts[index]
    verifier, trajectory, problem = _evidence(run, entry, index)
    return {
        "attempt": index,
        "status": attempt.status,
        "metrics": dict(attempt.metrics),
        "retries": task.retry_counts.get(index, 0),
        "issues": [
            {"severity": i.severity, "phase": i.phase, "code": i.code, "message": i.message}
            for i in attempt.issues
        ],
        "verifier": None if verifier is None else cut(verifier, cuts.verifier),
        "trajectory": None if trajectory is None else cut(trajectory, cuts.trajectory),
        "evidence_problem": problem,
    }


def _evidence(
    run: Run, entry: TaskEntry | None, index: int
) -> tuple[str | None, str | None, str | None]:
    """The verifier's output (``meta.benchmark.eval_raw_data``) and the trajectory as the
    diagnostics screen shows them, and why they could not be read (None: read)."""
    if entry is None:
        return None, None, "no task folder"
    try:
        payload = read_payload(run, entry, index, PAYLOAD_LIMIT)
    except ResultFileError as exc:
        return None, None, f"{exc.problem.path}: {exc.problem.message}"
    benchmark = (payload.get("meta") or {}).get("benchmark")
    raw = benchmark.get("eval_raw_data") if isinstance(benchmark, dict) else None
    verifier = None if raw is None else raw if isinstance(raw, str) else json_text(raw)
    steps = payload.get("trajectory")
    trajectory = trajectory_text(steps) if isinstance(steps, dict) and steps else None
    return verifier, trajectory, None


def evidence_cut(runs: list[dict[str, Any]], cuts: Cuts) -> list[dict[str, Any]]:
    """The runs with each attempt's verifier output and trajectory cut to ``cuts``."""
    out = []
    for run in runs:
        if run.get("problem"):
            out.append(run)
            continue
        attempts = {
            task_id: [
                {
                    **a,
                    "verifier": recut(a["verifier"], cuts.verifier),
                    "trajectory": recut(a["trajectory"], cuts.trajectory),
                }
                for a in shown
            ]
            for task_id, shown in run["attempts"].items()
        }
        out.append({**run, "attempts": attempts})
    return out
