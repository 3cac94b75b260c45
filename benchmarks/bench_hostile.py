"""Hostile-size benchmark (issue 7): time to first screen and peak memory, headless.

    .venv/bin/python benchmarks/bench_hostile.py [--cases huge_result ...] [--result-mb 200]
        [--workdir DIR] [--tracemalloc]

It generates, in a temporary folder (or --workdir, kept and reused), one run per case from
the k=1 sample run ``fixtures/runs/hostile``:

  huge_result   one attempt's result.json is ~200 MB (a long trajectory, written as
                AgentCompass writes it: indent 2, ensure_ascii=False);
  big_diag      one attempt's artifacts.execution_diagnostics is a 5 MB string;
  long_line     a 1 MB line without a newline, in the final answer and in an artifact file;
  deep_json     100,000-level nested JSON in a retry record and an artifact file (files the
                summary never reads);
  deep_result   100,000-level nested JSON as a result.json (AgentCompass refuses the run).

Each case runs in a fresh process: the app is opened headless with Pilot (140x45) on the
run (overview), then the task screen of the affected task, then its diagnostics screen on
the affected source, and the pager is moved to the end. After each step it prints the
seconds since the app was created (workers finished), the peak RSS so far (VmHWM; on
other systems getrusage) and the RSS now (VmRSS); with --tracemalloc also the peak of
Python allocations during the step (slower). The task cache is off and one reader
process is used, so the reader parses everything in the measured process. Nothing is
timed inside the test suite; these figures go in the issue notes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "fixtures" / "runs" / "hostile"
CASES = ("huge_result", "big_diag", "long_line", "deep_json", "deep_result")
TARGET = "数学/题目-7"  # the hostile run's plainest task (details/normal/7--<sha>)
DEPTH = 100_000
MB = 1024**2


def _task_folder(run: Path, task_id: str = TARGET) -> Path:
    for task_file in run.glob("details/*/*/task.json"):
        if json.loads(task_file.read_text(encoding="utf-8")).get("task_id") == task_id:
            return task_file.parent
    raise SystemExit(f"task {task_id!r} not found in {run}")


def _write_result(path: Path, payload: dict[str, Any]) -> None:
    # As AgentCompass's layout.atomic_json writes it.
    path.write_text(_dumps(payload) + "\n", encoding="utf-8")


def _write_long_trajectory(
    path: Path, payload: dict[str, Any], step: dict[str, Any], count: int
) -> None:
    """``payload`` with ``count`` copies of ``step``, streamed (the same bytes as
    :func:`_write_result` of the whole payload, without holding it in memory)."""
    payload["trajectory"]["steps"] = ["@STEPS@"]
    head, tail = _dumps(payload).split('"@STEPS@"')
    pad = "\n" + " " * 6  # the steps list sits two levels deep
    with path.open("w", encoding="utf-8") as stream:
        stream.write(head)
        for i in range(count):
            text = _dumps(dict(step, step_id=i)).replace("\n", pad)
            stream.write(text if i == 0 else "," + pad + text)
        stream.write(tail + "\n")


def _dumps(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _retry_record_name(folder: Path) -> str:
    return f"{folder.name}.attempt1.retry1.attempt.json"


def make_case(case: str, out: Path, result_mb: int) -> tuple[Path, str]:
    """Write the run of ``case`` under ``out``; return it and the source to open."""
    run = out / case
    if run.exists():
        shutil.rmtree(run)
    shutil.copytree(HOSTILE, run)
    folder = _task_folder(run)
    attempt = folder / "attempt-1"
    result = attempt / "result.json"
    payload = json.loads(result.read_text(encoding="utf-8"))
    if case == "huge_result":
        step = dict(payload["trajectory"]["steps"][0])
        observation = "line of tool output \x1b[31mred\x1b[0m 数学\n" * 200  # ~9 KB a step
        step["observation"] = [{"role": "tool", "tool_call_id": "c", "content": observation}]
        per_step = len(json.dumps(step, indent=2, ensure_ascii=False).encode("utf-8"))
        count = max(1, result_mb * MB // per_step)
        _write_long_trajectory(result, payload, step, count)
        return run, "raw:result.json"
    if case == "big_diag":
        line = '  File "/x.py", line 1, in f \x1b[31m[bold]boom[/bold]\x1b[0m\n'
        payload.setdefault("artifacts", {})["execution_diagnostics"] = line * (5 * MB // len(line))
        _write_result(result, payload)
        return run, "diagnostics"
    if case == "long_line":
        payload["final_answer"] = "x\x1b[2J" * (MB // 5)
        _write_result(result, payload)
        (attempt / "artifacts").mkdir(exist_ok=True)
        (attempt / "artifacts" / "one-line.log").write_bytes(b"y" * MB)
        return run, f"file:{(attempt / 'artifacts' / 'one-line.log').relative_to(run).as_posix()}"
    if case == "deep_json":
        deep = "[" * DEPTH + "]" * DEPTH
        retries = attempt / "retries"
        retries.mkdir(exist_ok=True)
        record = retries / _retry_record_name(folder)
        record.write_text(deep, encoding="utf-8")
        (attempt / "artifacts").mkdir(exist_ok=True)
        (attempt / "artifacts" / "deep.json").write_text(deep, encoding="utf-8")
        return run, f"retry:{record.relative_to(run).as_posix()}"
    if case == "deep_result":
        result.write_text('{"retry_count": 0, "x": ' + "[" * DEPTH + "]" * DEPTH + "}\n")
        return run, ""
    raise SystemExit(f"unknown case {case!r}")


def rss_mb(field: str = "VmHWM") -> float:
    """Resident memory of this process in MiB: the peak so far (VmHWM) or now (VmRSS).

    Linux's /proc figures start afresh at exec (getrusage's ru_maxrss keeps the peak of the
    process that started this one); elsewhere the peak from getrusage.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(f"{field}:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def child(run: Path, source: str, traced: bool) -> dict[str, Any]:
    """Open the run, its task and diagnostics screens; measure each step."""
    import tracemalloc

    if traced:
        tracemalloc.start()
    from inspector.app.app import InspectorApp
    from inspector.app.screens.diagnostics import DiagnosticsScreen
    from inspector.app.screens.overview import OverviewScreen
    from inspector.app.screens.task import TaskScreen

    figures: dict[str, Any] = {"rss_start": rss_mb()}
    start = time.perf_counter()

    async def settle(pilot: Any) -> None:
        for _ in range(3):
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()

    def mark(name: str) -> None:
        figures[f"t_{name}"] = time.perf_counter() - start
        figures[f"rss_{name}"] = rss_mb()
        figures[f"now_{name}"] = rss_mb("VmRSS")
        if traced:  # the peak of Python allocations during this step
            figures[f"py_{name}"] = tracemalloc.get_traced_memory()[1] / MB
            tracemalloc.reset_peak()

    app = InspectorApp([run])
    app.animation_level = "none"
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        mark("overview")
        session = overview.session
        rec = session.recomputation
        figures["refusal"] = session.refusal
        figures["problems"] = [p.line() for p in session.run.problems][:2]
        if rec is None:
            return figures
        series = rec.report.series[0].series_id
        task_screen = TaskScreen(session, TARGET, series)
        app.push_screen(task_screen)
        await settle(pilot)
        mark("task")
        card = task_screen.query_one("#attempt-1")
        figures["card"] = _plain(card.content)[:200]
        diagnostics = DiagnosticsScreen(session, TARGET, 1)
        app.push_screen(diagnostics)
        await settle(pilot)
        keys = [s.key for s in diagnostics.sources]
        figures["sources"] = len(keys)
        if source in keys:
            diagnostics.source_list.highlighted = keys.index(source)
            await settle(pilot)
        mark("diagnostics")
        pager = diagnostics.pager
        document = pager.document
        figures["lines"] = document.line_count if document is not None else None
        figures["status"] = _plain(diagnostics.status.content)[:160]
        figures["notice"] = _plain(diagnostics.notice.content)[:300]
        pager.focus()
        await pilot.press("end")
        await settle(pilot)
        mark("end")
    return figures


def _plain(renderable: Any) -> str:
    from rich.console import Console

    with open(os.devnull, "w") as sink:
        console = Console(width=120, color_system=None, record=True, file=sink)
        console.print(renderable)
    return " ".join(console.export_text().split())


def run_child(run: Path, source: str, traced: bool) -> dict[str, Any]:
    env = dict(os.environ, INSPECTOR_CACHE="0", INSPECTOR_WORKERS="1")
    env["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="bench-cache-")
    argv = [sys.executable, __file__, "--child", str(run), source]
    if traced:
        argv.append("--tracemalloc")
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--result-mb", type=int, default=200)
    parser.add_argument("--workdir", help="keep the generated runs here (default: a temp dir)")
    parser.add_argument("--tracemalloc", action="store_true", help="also trace Python allocations")
    parser.add_argument("--child", nargs=2, metavar=("RUN", "SOURCE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        figures = asyncio.run(child(Path(args.child[0]), args.child[1], args.tracemalloc))
        print(json.dumps(figures))
        return
    workdir = (
        Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    )
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"runs in {workdir}; 140x45; task cache off")
    print(
        "each step: seconds since the app started, peak RSS MiB (VmHWM), RSS MiB now (VmRSS)"
        + (", peak MiB of Python allocations during the step" if args.tracemalloc else "")
    )
    width = 22 if args.tracemalloc else 18
    header = f"{'case':<12} {'file MiB':>8} " + " ".join(
        f"{step:>{width}}" for step in ("overview", "task", "diagnostics", "end")
    )
    print(header)
    details = []
    try:
        for case in args.cases:
            run, source = make_case(case, workdir, args.result_mb)
            size = max(p.stat().st_size for p in run.rglob("*") if p.is_file()) / MB
            figures = run_child(run, source, args.tracemalloc)
            cells = []
            for step in ("overview", "task", "diagnostics", "end"):
                if f"t_{step}" in figures:
                    cell = (
                        f"{figures[f't_{step}']:.2f}s {figures[f'rss_{step}']:.0f}"
                        f" {figures[f'now_{step}']:.0f}"
                    )
                    if args.tracemalloc:
                        cell += f" {figures[f'py_{step}']:.0f}"
                else:
                    cell = "-"
                cells.append(f"{cell:>{width}}")
            print(f"{case:<12} {size:>8.1f} {' '.join(cells)}")
            details.append((case, figures))
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    print()
    for case, figures in details:
        extra = {
            k: figures[k]
            for k in (
                "rss_start",
                "refusal",
                "problems",
                "sources",
                "lines",
                "status",
                "notice",
                "card",
                "error",
            )
            if k in figures
        }
        print(f"{case}: {json.dumps(extra, ensure_ascii=True)}")


if __name__ == "__main__":
    main()
