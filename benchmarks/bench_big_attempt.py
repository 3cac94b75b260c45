"""A task whose attempt result.json is ~127 MB: its task screen and the first page of its
diagnostics and trajectory, headless (issue 53 item 3).

    .venv/bin/python benchmarks/bench_big_attempt.py [--mb 127] [--diagnostics-mb 4]
        [--repeat 3] [--workdir DIR] [--src DIR]

Generates (``fixtures/make_big_attempt.py``, once per size in --workdir) the hostile sample
run with one attempt's result.json of --mb MB: ~9 KB agent steps and a --diagnostics-mb MB
``artifacts.execution_diagnostics``, as AgentCompass writes them; and uses the untouched
sample run as the small baseline. Each measurement runs in a fresh process: the app is
opened headless with Pilot (140x45) on the run; once the overview is loaded, the peak RSS is
reset (``/proc/self/clear_refs``) and the script times, from pushing each screen until its
workers are done and a frame is drawn:

  task         the task screen, its attempt card filled from result.json;
  diagnostics  the diagnostics screen, on its first section (execution_diagnostics);
  trajectory   the trajectory section, its first page shown;
  first        the sum of the three: the target is under 1 s;
then ``end`` pressed three times in the trajectory (each reads the next page) and prints the
peak RSS up to the overview (the reader's parse of the run included: ``rss_overview``), the
peak since the overview after the first pages (``rss_first``) and after paging
(``rss_paged``), the RSS now, and what the status line says.

The reader is the one the app uses (the task cache off, one reader process); ``--src DIR``
runs the children on another checkout's ``inspector`` (``git archive main | tar -x -C DIR``)
for a before/after comparison.

``--parsers`` times instead, each in a fresh process on the big file (seconds after the
imports; peak RSS, and the RSS once the library was imported):
  read           the bytes, 1 MiB at a time (the floor);
  ijson-members  ijson (its yajl2_c backend, when installed: ``pip install ijson==3.6.0``)
                 over the whole file, building every member but the steps, as the screens
                 need them (ijson.parse, the steps' events skipped);
  ijson-diag     ijson.items(file, "artifacts"): only the first member after the steps;
  ijson-page     the first 32 steps (ijson.items(file, "trajectory.steps.item"));
  ijson-page-6400 steps 6,400-6,431: ijson has no byte offsets, so it parses from the start;
  stream-open    inspector.results.stream.open_streamed (the steps located, all else parsed);
  stream-page    that, then its first page;
  stream-page-6400 that, then the page holding step 6,400 (read from its offset).
Nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TASK = "数学/题目-7"
MB = 1024**2


async def settle(pilot: Any, shown: Any = lambda: True, rounds: int = 2000) -> None:
    """Until the screen's workers are done and ``shown()`` holds (at most ``rounds`` times
    2 ms), then one frame."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    for _ in range(rounds):
        if shown():
            break
        await asyncio.sleep(0.002)
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def child(run: Path) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_hostile import _plain as plain
    from bench_hostile import rss_mb as status_kb

    from inspector.app.app import InspectorApp
    from inspector.app.screens.diagnostics import DiagnosticsScreen
    from inspector.app.screens.overview import OverviewScreen
    from inspector.app.screens.task import TaskScreen

    figures: dict[str, Any] = {}

    app = InspectorApp([run])
    app.animation_level = "none"
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, OverviewScreen))
        figures["rss_overview"] = status_kb("VmHWM")  # the reader's parse of the run included
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")  # the peak RSS starts again from here
        session = app.screen.session
        series = session.recomputation.report.series[0].series_id
        start = time.perf_counter()
        task = TaskScreen(session, TASK, series)
        app.push_screen(task)
        await settle(pilot, lambda: bool(task.payloads or task.payload_errors))
        figures["task"] = time.perf_counter() - start
        figures["card"] = plain(task.query_one("#attempt-1").content)[:160]
        start = time.perf_counter()
        diagnostics = DiagnosticsScreen(session, TASK, 1)
        app.push_screen(diagnostics)

        def shown(key: str | None = None) -> bool:
            document = diagnostics.pager.document
            return (
                diagnostics.current_key is not None
                and (key is None or diagnostics.current_key == key)
                and document is not None
                and not diagnostics.pager.loading
            )

        await settle(pilot, shown)
        figures["diagnostics"] = time.perf_counter() - start
        figures["first_source"] = diagnostics.current_key
        keys = [s.key for s in diagnostics.sources]
        start = time.perf_counter()
        if "trajectory" in keys:
            diagnostics.source_list.highlighted = keys.index("trajectory")
            await settle(pilot, lambda: shown("trajectory"))
        figures["trajectory"] = time.perf_counter() - start
        figures["first"] = figures["task"] + figures["diagnostics"] + figures["trajectory"]
        figures["source"] = diagnostics.current_key
        figures["rss_first"] = status_kb("VmHWM")
        diagnostics.pager.focus()
        start = time.perf_counter()
        for _ in range(3):
            await pilot.press("end")
            await settle(pilot)
        figures["paging"] = time.perf_counter() - start
        figures["status"] = plain(diagnostics.status.content)[:120]
        figures["rss_paged"] = status_kb("VmHWM")
        figures["rss_now"] = status_kb("VmRSS")
    return figures


PARSERS = (
    "read", "ijson-members", "ijson-diag", "ijson-page", "ijson-page-6400",
    "stream-open", "stream-page", "stream-page-6400",
)  # fmt: skip


def parser_child(path: Path, name: str) -> dict[str, Any]:
    import resource

    if name.startswith("ijson"):
        import ijson
    elif name.startswith("stream"):
        from inspector.results.stream import open_streamed
    rss_imported = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()  # the libraries imported
    if name == "read":
        with path.open("rb") as stream:
            while stream.read(MB):
                pass
    elif name.startswith("ijson"):
        with path.open("rb") as stream:
            if name == "ijson-members":
                members: dict[str, Any] = {}
                builder = None
                for prefix, event, value in ijson.parse(stream, buf_size=MB):
                    if prefix.startswith("trajectory.steps"):
                        continue
                    if prefix == "" and event == "map_key":
                        builder = ijson.ObjectBuilder()
                        members[value] = builder
                        continue
                    if builder is not None and prefix:
                        builder.event(event, value)
                members = {k: b.value for k, b in members.items() if hasattr(b, "value")}
            elif name == "ijson-diag":
                next(ijson.items(stream, "artifacts", buf_size=MB))
            else:
                steps = ijson.items(stream, "trajectory.steps.item", buf_size=64 * 1024)
                skip = 6400 if name == "ijson-page-6400" else 0
                for _ in range(skip):
                    next(steps)
                [next(steps) for _ in range(32)]
        backend = ijson.backend
    else:
        attempt = open_streamed(path.parent, path.name)
        if name != "stream-open":
            step = 6400 if name == "stream-page-6400" else 0
            page = attempt.page_steps(bisect.bisect_right(attempt.pages, step) - 1)
            attempt.read_steps(page.start, len(page))
        backend = "inspector"
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    backend = "" if name == "read" else backend
    return {"seconds": seconds, "rss": peak, "imported": rss_imported, "backend": backend}


def run_parsers(path: Path, repeat: int) -> None:
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in PARSERS}
    for _ in range(repeat):
        for name in PARSERS:
            argv = [sys.executable, __file__, "--parser-child", name, str(path)]
            proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
            if proc.returncode != 0:
                rows[name].append({"error": (proc.stderr.strip().splitlines() or ["?"])[-1]})
            else:
                rows[name].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    print(f"{path}: {path.stat().st_size / MB:.1f} MiB; median of {repeat} [max]")
    for name, figures in rows.items():
        good = [f for f in figures if "error" in f] or figures
        if "error" in good[0]:
            print(f"  {name:<17} {good[0]['error']}")
            continue
        seconds = [f["seconds"] for f in figures]
        rss = [f["rss"] for f in figures]
        imported = [f["imported"] for f in figures]
        print(
            f"  {name:<17} {statistics.median(seconds):6.3f} s [{max(seconds):.3f}]"
            f"  peak {statistics.median(rss):6.1f} MiB (imports {statistics.median(imported):.1f})"
            f"  {figures[0]['backend']}"
        )


def run_child(run: Path, src: Path | None) -> dict[str, Any]:
    return run_script([__file__, "--child", str(run)], src)


def run_script(argv: list[str], src: Path | None) -> dict[str, Any]:
    """``python argv`` in a fresh process (the task cache off, one reader process; ``src``:
    the checkout whose ``inspector`` it runs): the JSON its last line prints."""
    env = dict(os.environ, INSPECTOR_CACHE="0", INSPECTOR_WORKERS="1")
    env["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="bench-big-cache-")
    if src is not None:
        env["PYTHONPATH"] = str(src)
    argv = [sys.executable, *argv]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=src or ROOT)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=127.0)
    parser.add_argument("--diagnostics-mb", type=float, default=4.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, help="where the runs are made (kept and reused)")
    parser.add_argument("--src", type=Path, help="a checkout whose inspector the children run")
    parser.add_argument("--parsers", action="store_true", help="time the parsers instead")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--parser-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(child(args.child)), ensure_ascii=False))
        return 0
    if args.parser_child:
        name, path = args.parser_child
        print(json.dumps(parser_child(Path(path), name)))
        return 0
    sys.path.insert(0, str(ROOT / "fixtures"))
    import make_big_attempt

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-big-"))
    big = workdir / f"big_{args.mb:g}mb"
    marker = big / ".made"
    if not marker.exists():
        started = time.perf_counter()
        result = make_big_attempt.make(big, args.mb, args.diagnostics_mb)
        marker.write_text("")
        size = result.stat().st_size / MB
        print(f"generated {size:.1f} MiB in {time.perf_counter() - started:.1f} s: {result}")
    if args.parsers:
        print(f"load average: {os.getloadavg()}")
        run_parsers(make_big_attempt.task_folder(big) / "attempt-1" / "result.json", args.repeat)
        return 0
    print(f"load average: {os.getloadavg()}  src: {args.src or ROOT}")
    cases = {"small": make_big_attempt.HOSTILE, f"{args.mb:g} MB": big}
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in cases}
    for _ in range(args.repeat):  # interleaved: the machine's load drifts
        for name, run in cases.items():
            rows[name].append(run_child(run, args.src))
    for name, figures in rows.items():
        errors = [f["error"] for f in figures if "error" in f]
        if errors:
            print(f"{name}: {errors[0]}")
            continue
        print(f"\n{name} (median of {len(figures)}; max in brackets)")
        for key in ("task", "diagnostics", "trajectory", "first", "paging"):
            values = [f[key] for f in figures]
            print(f"  {key:<12} {statistics.median(values):6.3f} s  [{max(values):.3f}]")
        for key in ("rss_overview", "rss_first", "rss_paged", "rss_now"):
            values = [f[key] for f in figures]
            print(f"  {key:<15} {statistics.median(values):7.1f} MiB  [{max(values):.1f}]")
        last = figures[-1]
        print(f"  first section: {last['first_source']}; then: {last['source']}")
        print(f"  card: {last['card']}")
        print(f"  status after 3 × end: {last['status']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
