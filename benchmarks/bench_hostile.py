"""Hostile-size benchmark (issue 7): time to first screen and peak memory, headless.

    .venv/bin/python benchmarks/bench_hostile.py [--cases huge_result ...] [--result-mb 200]
        [--workdir DIR] [--tracemalloc]
    .venv/bin/python benchmarks/bench_hostile.py --errors [--message-mb 10]
        [--messages 1200000] [--runs 4] [--tasks 1000] [--workdir DIR]

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

``--errors`` (issue 48) times ``inspector errors`` instead, each in a fresh process (seconds,
and the peak RSS of that process and of its largest reader process):

  hostile   a copy of ``fixtures/runs/hostile`` whose task's attempt carries one issue per
            hostile family (``a.`` repeated, digits, quotes, hex, paths, ``a://a.a.a…`` and
            each rule's trigger), each message --message-mb MB; first the fingerprint of each
            message alone, timed in this process;
  distinct  a root of --runs runs × --tasks tasks × 1 attempt holding --messages distinct
            messages in all (a handful of fingerprints), against its size on disk.
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


# --errors (issue 48) --------------------------------------------------------------------------

HOSTILE_MESSAGES = {
    "a.": "a.", "digits": "1", "digits.": "1.", "single quotes": "'a", "double quotes": '"a ',
    "backticks": "`a", "hex": "a1", "0x": "0x", "path": "/a", "dotted path": "../",
    "windows path": "C:\\a", "url": "a://a.", "url scheme": "a.a+", "space": " \t\na",
    "uuid": "3f2a1b4c-1234-", "timestamp": "2026-04-01T", "clock": "11:11:1", "duration": "1.5 ",
    "ip": "1.1.1.", "port": "a:1", "number": "-1e",
}  # fmt: skip
"""Each family repeats a unit that starts (or almost completes) a fingerprint rule's match."""


def _hostile_message(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def make_hostile_errors(out: Path, message_mb: float) -> Path:
    """The hostile run with one issue per family on its plainest task's attempt."""
    run = out / "hostile_errors"
    if run.exists():
        shutil.rmtree(run)
    shutil.copytree(HOSTILE, run)
    result = _task_folder(run) / "attempt-1" / "result.json"
    payload = json.loads(result.read_text(encoding="utf-8"))
    size = int(message_mb * MB)
    payload["issues"] = [
        {"severity": "error", "phase": "run", "code": f"hostile_{i}",
         "message": _hostile_message(unit, size)}
        for i, unit in enumerate(HOSTILE_MESSAGES.values())
    ]  # fmt: skip
    result.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
    return run


TEMPLATES = (
    ("run", "model_failed", "HTTP 50{a}: upstream overloaded (request id {uuid}) after {b}.{a}s"),
    ("run", "model_timeout", "APITimeoutError: request {uuid} timed out at 2026-04-0{a}T10:{b2:02d}:00Z"),
    ("evaluate", "verifier_failed", "exit status {a} in /work/{hex}/test_{b}.py line {b}"),
    ("evaluate", "grader_note", "answer 'FINAL: {b}' not found in {b} characters of {hex}"),
    ("run", "sandbox_lost", "container tb2-{hex} on 10.0.{a}.{a}:{port} is not running"),
)  # fmt: skip
"""Distinct messages of five fingerprints: every one has its own numbers and ids."""


def make_distinct_errors(out: Path, messages: int, runs: int, tasks: int) -> Path:
    """A root of ``runs`` runs × ``tasks`` tasks, one attempt each, ``messages`` distinct
    messages spread evenly over the attempts."""
    sys.path.insert(0, str(ROOT / "fixtures"))
    import uuid

    import make_large_run as large
    from acfixtures.layout import TASK_SCHEMA, fast_atomic_bytes, task_directory_name

    root = out / "distinct_errors"
    if root.exists():
        shutil.rmtree(root)
    per_attempt = max(1, messages // (runs * tasks))
    serial = 0
    for r in range(runs):
        run = root / f"run{r + 1}"
        summary = []
        for t in range(tasks):
            task_id = f"task_{t:05d}"
            issues = []
            for _ in range(per_attempt):
                phase, code, text = TEMPLATES[serial % len(TEMPLATES)]
                values = {"a": serial % 10, "b": serial, "b2": serial % 60, "uuid": uuid.UUID(int=serial),
                          "hex": f"{serial * 2654435761 % 16**12:012x}", "port": 1024 + serial % 60000}  # fmt: skip
                issues.append({"severity": "error", "phase": phase, "code": code,
                               "message": text.format(**values)})  # fmt: skip
                serial += 1
            folder = run / "details" / "error" / task_directory_name(task_id)
            (folder / "attempt-1").mkdir(parents=True)
            payload = {"status": "run_error", "metrics": {}, "final_answer": "", "trajectory": {},
                       "issues": issues, "artifacts": {}, "analysis_result": {},
                       "meta": {"benchmark": {}, "harness": {"telemetry": {}}},
                       "retry_count": 0}  # fmt: skip
            (folder / "attempt-1" / "result.json").write_bytes(fast_atomic_bytes(payload))
            index = {"schema_version": TASK_SCHEMA, "task_id": task_id, "attempts": {"1": "attempt-1"},
                     "category": "cat_000", "ground_truth": "42",
                     "attempt_plan": {"k": 1, "strategy": "avg"}}  # fmt: skip
            (folder / "task.json").write_bytes(fast_atomic_bytes(index))
            summary.append((task_id, "cat_000", "error", [1], ["completed"]))
        args = argparse.Namespace(out=str(run), k=1, strategy="avg", tasks=tasks, seed=r,
                                  categories=1, hierarchy=False, resolved_plans=False,
                                  model=f"model-{r}")  # fmt: skip
        large.write_run_files(args, summary)
    return root


ERRORS_CHILD = """
import json, resource, sys, time, io, contextlib
from inspector.cli.main import main
start = time.perf_counter()
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["errors", sys.argv[1], "--format", "json"])
took = time.perf_counter() - start
rows = json.loads(out.getvalue())
hwm = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
cpu = sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF,
          resource.RUSAGE_CHILDREN) for f in ("ru_utime", "ru_stime"))
print(json.dumps({"code": code, "seconds": took, "cpu": cpu, "rss_mib": hwm / 1024,
                  "reader_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                  "fingerprints": len(rows), "cut": sum(1 for r in rows if r.get("cut")),
                  "attempts": sum(r["attempts"] for r in rows)}))
"""


def run_errors(path: Path) -> dict[str, Any]:
    """``inspector errors PATH --format json`` in a fresh process (two reader processes)."""
    argv = [sys.executable, "-c", ERRORS_CHILD, str(path)]
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
        env = dict(os.environ, INSPECTOR_CACHE="0", INSPECTOR_WORKERS="2", XDG_CACHE_HOME=cache)
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    figures["left_out"] = [line for line in proc.stderr.splitlines() if "left out" in line]
    return figures


def _size_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / MB


def errors_main(args: argparse.Namespace, workdir: Path) -> None:
    from inspector.views.fingerprints import PREFIX, fingerprint

    size = int(args.message_mb * MB)
    print(f"fingerprint of one {args.message_mb:g} MB message (reads the first {PREFIX}):")
    for name, unit in HOSTILE_MESSAGES.items():
        message = _hostile_message(unit, size)
        start = time.perf_counter()
        fingerprint("run", "x", message)
        print(f"  {name:<14} {(time.perf_counter() - start) * 1000:8.2f} ms")
    print("inspector errors --format json, fresh process: seconds (CPU seconds of it and its "
          "readers), peak RSS MiB of the command and of its largest reader process")  # fmt: skip
    cases = [("hostile", lambda: make_hostile_errors(workdir, args.message_mb))]
    cases.append(
        ("distinct", lambda: make_distinct_errors(workdir, args.messages, args.runs, args.tasks))
    )
    for name, make in cases:
        path = make()
        figures = run_errors(path)
        if "error" in figures:
            print(f"  {name:<9} {_size_mb(path):8.1f} MB on disk: {figures['error']}")
            continue
        print(f"  {name:<9} {_size_mb(path):8.1f} MB on disk: {figures['seconds']:7.2f} s "
              f"({figures['cpu']:.1f} s CPU), "
              f"{figures['rss_mib']:6.0f} MiB, readers {figures['reader_rss_mib']:6.0f} MiB; "
              f"{figures['fingerprints']} fingerprints ({figures['cut']} cut), "
              f"{figures['attempts']} attempts")  # fmt: skip
        for line in figures["left_out"][:3]:
            print(f"    {line}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--result-mb", type=int, default=200)
    parser.add_argument("--workdir", help="keep the generated runs here (default: a temp dir)")
    parser.add_argument("--tracemalloc", action="store_true", help="also trace Python allocations")
    parser.add_argument("--child", nargs=2, metavar=("RUN", "SOURCE"), help=argparse.SUPPRESS)
    parser.add_argument("--errors", action="store_true", help="time `inspector errors` instead")
    parser.add_argument("--message-mb", type=float, default=10, help="each hostile message")
    parser.add_argument("--messages", type=int, default=1_200_000, help="distinct, in all")
    parser.add_argument("--runs", type=int, default=4, help="runs of the distinct root")
    parser.add_argument("--tasks", type=int, default=1000, help="tasks a run (one attempt)")
    args = parser.parse_args()
    if args.child:
        figures = asyncio.run(child(Path(args.child[0]), args.child[1], args.tracemalloc))
        print(json.dumps(figures))
        return
    workdir = (
        Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    )
    workdir.mkdir(parents=True, exist_ok=True)
    if args.errors:
        try:
            errors_main(args, workdir)
        finally:
            if not args.workdir:
                shutil.rmtree(workdir, ignore_errors=True)
        return
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
