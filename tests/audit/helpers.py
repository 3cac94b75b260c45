"""Builders for the audit tests: engine-level tasks, and run directories copied and edited.

The copies are written into ``tmp_path``; the conformance runs themselves are never touched.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from inspector.answers.run import load_session
from inspector.cli import main as cli
from inspector.engine.contract import MetricContract, make_metric_contract
from inspector.engine.model import Attempt, Issue, TaskRecord
from inspector.engine.plan import Plan
from inspector.engine.recomputation import Recomputation, recompute
from inspector.engine.report import MetricSeries
from inspector.session import Session
from inspector.views.audit import Scope
from tests.conftest import CONFORMANCE as CONFORMANCE
from tests.conftest import FIXTURE_RUNS as FIXTURE_RUNS
from tests.conftest import ROOT as ROOT
from tests.conftest import conformance_runs

RUNS = conformance_runs()

BINARY = make_metric_contract("correct", binary=["correct"])
SCORE = make_metric_contract("score", scalar=["score"])


def scopes(series: MetricSeries) -> Iterator[Scope]:
    """Every scope a series reports: itself, each of its categories, each hierarchy node."""
    yield Scope()
    for key in series.categories:
        yield Scope(category=key)
    for path in series.hierarchy:
        yield Scope(node=path)


def issue(severity: str, phase: str = "run", code: str = "", message: str = "") -> Issue:
    return Issue(
        severity, phase, code or f"{severity}_{phase}", message or f"{severity} in {phase}"
    )


def attempt(
    index: int, metrics: dict[str, Any] | None = None, *issues: Issue, status: str = "completed"
) -> Attempt:
    return Attempt(index=index, status=status, metrics=metrics or {}, issues=tuple(issues))


def task(
    task_id: str,
    attempts: Sequence[Attempt],
    category: Any = None,
    *,
    k: int = 1,
    strategy: str = "avg",
    retry_counts: dict[int, int] | None = None,
) -> TaskRecord:
    return TaskRecord(
        task_id=task_id,
        category=category,
        plan_k=k,
        plan_strategy=strategy,
        attempts={a.index: a for a in attempts},
        retry_counts=retry_counts or {},
    )


def rescore(
    tasks: Sequence[TaskRecord],
    contract: MetricContract = BINARY,
    *,
    k: int = 1,
    strategy: str = "avg",
    aggregation: str = "micro_weighted",
    hierarchy: dict[str, Any] | None = None,
) -> Recomputation:
    plan = Plan(
        k=k, strategy=strategy, contract=contract, aggregation=aggregation, hierarchy=hierarchy
    )
    return recompute(tasks, plan)


def session(path: Path | str) -> Session:
    return load_session(str(path))


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``inspector ARGV`` in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def dump(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def task_folders(run: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Every published task folder of a v3 run with its parsed task.json."""
    for state in ("normal", "error", "fatal"):
        folder = run / "details" / state
        if folder.is_dir():
            for child in sorted(folder.iterdir()):
                if (child / "task.json").is_file():
                    yield child, load(child / "task.json")


def task_folder(run: Path, task_id: str) -> Path:
    for folder, index in task_folders(run):
        if index["task_id"] == task_id:
            return folder
    raise KeyError(task_id)


def _state_of(results: Sequence[dict[str, Any]]) -> str:
    """``layout.task_state``: fatal > error > normal over the recorded attempts' issues."""
    severities = {i.get("severity") for r in results for i in r.get("issues") or []}
    return "fatal" if "fatal" in severities else "error" if "error" in severities else "normal"


def first_attempt_copy(source: Path, target: Path) -> Path:
    """Write ``source`` (a k>1 run) as the genuine k=1 run of its first attempts.

    What AgentCompass would have written had it run k=1: every task keeps only attempt 1
    (its payload and retry count), ``attempt_plan.k`` and the request's k become 1, the task
    folder moves to the state folder its remaining attempt implies, and the k>1 report files
    (``metrics.json``, ``summary.md``) are left out.
    """
    shutil.copytree(source, target)
    for name in ("metrics.json", "summary.md"):
        (target / name).unlink(missing_ok=True)
    for name in ("run_info.json", "params.json"):
        path = target / name
        if not path.is_file():
            continue
        data = load(path)
        execution = (data.get("request", data)).get("execution") or {}
        if isinstance(execution.get("attempts"), dict):
            execution["attempts"]["k"] = 1
        report = (data.get("metric_artifacts") or {}).get("report")
        if isinstance(report, dict):
            report["k"] = 1
        dump(path, data)
    for folder, index in list(task_folders(target)):
        for child in folder.iterdir():
            if child.is_dir() and child.name.startswith("attempt-") and child.name != "attempt-1":
                shutil.rmtree(child)
        index["attempts"] = {n: d for n, d in index["attempts"].items() if n == "1"}
        index["attempt_plan"]["k"] = 1
        dump(folder / "task.json", index)
        results = []
        if "1" in index["attempts"]:
            payload = load(folder / "attempt-1" / "result.json")
            results = [payload] if set(payload) - {"retry_count"} else []
        state = _state_of(results)
        if folder.parent.name != state:
            destination = target / "details" / state
            destination.mkdir(exist_ok=True)
            folder.rename(destination / folder.name)
    return target


def edit_attempt(run: Path, task_id: str, index: int, change: Any) -> None:
    """Apply ``change(payload)`` to one attempt's result.json in a copied run."""
    path = task_folder(run, task_id) / f"attempt-{index}" / "result.json"
    payload = load(path)
    change(payload)
    dump(path, payload)


def drop_task(run: Path, task_id: str) -> None:
    shutil.rmtree(task_folder(run, task_id))


def pilot_test(function: Any) -> Any:
    """Run an ``async def`` test with ``asyncio.run`` (no async pytest plugin is installed)."""
    import asyncio
    import functools

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(function(*args, **kwargs))

    return wrapper
