"""Search and hand-off of a ~127 MB attempt's trajectory in the app (issue 53 item 3).

    .venv/bin/python benchmarks/bench_big_search.py [--mb 127] [--repeat 3]
        [--workdir DIR] [--src DIR] [--document | --pipe] [--cases start,end,absent,next]

Generates (``fixtures/make_big_attempt.py``, once per size in --workdir) the hostile run with
one attempt's result.json of --mb MB (~9 KB steps; the last step's number is printed), opens
the app headless with Pilot (140x45) on it, in a fresh process per measurement, goes to the
diagnostics screen's trajectory section (its first page shown), resets the peak RSS
(``/proc/self/clear_refs``) and times, from the search's ``enter`` until the pager shows the
match (or says "not found"), in wall and CPU seconds (the process's; the machine's load
moves the first):

  start   a needle in step 2 (``module_1_7.py``: the first page);
  end     a needle in the second-to-last step (``module_<last-1>_7.py``);
  absent  a needle no step holds (every step looked at);
  next    after ``end``, ``n`` for the last step's needle (``test_case[<last>]``);

with the peak RSS since the reset and the line the pager shows. ``--document`` times the
trajectory document's ``find`` alone, without the app, from the top, and then the same
search again. ``--pipe`` times instead the ``o`` hand-off's copy of the trajectory
(``handoff_file``; the pager itself is not run: a headless app cannot suspend): seconds,
peak RSS and the copy's size. ``--src DIR`` runs the children on another checkout's
``inspector`` (``git archive main | tar -x -C DIR``) for a before/after comparison. Nothing
here runs in the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TASK = "数学/题目-7"
MB = 1024**2
CASES = ("start", "end", "absent", "next")
DOCUMENT = False


def _rss(field: str) -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")


def needles(last: int) -> dict[str, str]:
    return {
        "start": "module_1_7.py",
        "end": f"module_{last - 1}_7.py",
        "absent": "no step holds this needle",
        "next": f"test_case[{last}]",
    }


async def child(run: Path, case: str, last: int) -> dict[str, Any]:
    from inspector.app.app import InspectorApp
    from inspector.app.screens.diagnostics import DiagnosticsScreen
    from inspector.app.screens.overview import OverviewScreen

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_big_attempt import settle as settled

    async def settle(pilot: Any, shown: Any = lambda: True) -> None:
        await settled(pilot, shown, rounds=100_000)  # a search may take seconds

    figures: dict[str, Any] = {}
    app = InspectorApp([run])
    app.animation_level = "none"
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, OverviewScreen))
        session = app.screen.session
        diagnostics = DiagnosticsScreen(session, TASK, 1)
        app.push_screen(diagnostics)
        await settle(pilot, lambda: diagnostics.current_key is not None)
        keys = [s.key for s in diagnostics.sources]
        diagnostics.source_list.highlighted = keys.index("trajectory")
        await settle(
            pilot,
            lambda: (
                diagnostics.current_key == "trajectory"
                and diagnostics.pager.document is not None
                and not diagnostics.pager.loading
            ),
        )
        document = diagnostics.pager.document
        found: list[Any] = []
        original = diagnostics.pager.set_match

        def set_match(needle: str, line: int | None) -> None:
            found.append(line)
            original(needle, line)

        diagnostics.pager.set_match = set_match  # type: ignore[method-assign]
        if case == "pipe":
            from inspector.app.handoff import handoff_file, remove_handoff_file

            _reset_peak()
            start, cpu = time.perf_counter(), time.process_time()
            path, _ = handoff_file(document, copy=False)
            figures["seconds"] = time.perf_counter() - start
            figures["cpu"] = time.process_time() - cpu
            figures["bytes"] = os.path.getsize(path)
            remove_handoff_file(path)
            figures["rss"] = _rss("VmHWM")
            return figures
        needle = needles(last)["end" if case == "next" else case]
        await pilot.press("slash")
        for character in needle:
            await pilot.press(character)
        await pilot.pause()
        _reset_peak()
        start, cpu = time.perf_counter(), time.process_time()
        await pilot.press("enter")
        await settle(pilot, lambda: bool(found))
        figures["seconds"] = time.perf_counter() - start
        figures["cpu"] = time.process_time() - cpu
        if case == "next":
            found.clear()
            diagnostics.needle = needles(last)["next"]
            start, cpu = time.perf_counter(), time.process_time()
            await pilot.press("n")
            await settle(pilot, lambda: bool(found))
            figures["seconds"] = time.perf_counter() - start
            figures["cpu"] = time.process_time() - cpu
        figures["rss"] = _rss("VmHWM")
        line = found[-1]
        figures["line"] = line
        figures["text"] = document.lines(line, 1)[0][:80] if line is not None else None
    return figures


def document_child(run: Path, case: str, last: int) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "fixtures"))
    import make_big_attempt

    from inspector.results.stream import open_streamed
    from inspector.views.paged import trajectory_document

    result = make_big_attempt.task_folder(run) / "attempt-1" / "result.json"
    attempt = open_streamed(result.parent, result.name)
    trajectory = attempt.payload["trajectory"]
    document = trajectory_document(trajectory, trajectory["steps"])
    document.lines(0, 1)  # the first page, as the screen shows it
    needle = needles(last)["end" if case == "next" else case]
    _reset_peak()
    figures: dict[str, Any] = {}
    for key in ("", "again "):
        wall, cpu = time.perf_counter(), time.process_time()
        line = document.find(needle, -1)
        figures[f"{key}seconds"] = time.perf_counter() - wall
        figures[f"{key}cpu"] = time.process_time() - cpu
    figures["rss"] = _rss("VmHWM")
    figures["line"] = line
    figures["text"] = document.lines(line, 1)[0][:80] if line is not None else None
    return figures


def run_child(run: Path, case: str, last: int, src: Path | None) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_big_attempt import run_script

    kind = "--document-child" if DOCUMENT else "--child"
    return run_script([__file__, kind, str(run), case, str(last)], src)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=127.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, help="where the run is made (kept and reused)")
    parser.add_argument("--src", type=Path, help="a checkout whose inspector the children run")
    parser.add_argument("--pipe", action="store_true", help="time the o hand-off's copy")
    parser.add_argument("--cases", default=",".join(CASES), help="which searches")
    parser.add_argument("--document", action="store_true", help="time find without the app")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--document-child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.document_child:
        run, case, last = args.document_child
        print(json.dumps(document_child(Path(run), case, int(last)), ensure_ascii=False))
        return 0
    global DOCUMENT
    DOCUMENT = args.document
    if args.child:
        run, case, last = args.child
        print(json.dumps(asyncio.run(child(Path(run), case, int(last))), ensure_ascii=False))
        return 0
    sys.path.insert(0, str(ROOT / "fixtures"))
    import make_big_attempt

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-search-"))
    big = workdir / f"big_{args.mb:g}mb"
    if not (big / ".made").exists():
        make_big_attempt.make(big, args.mb, 4.0)
        (big / ".made").write_text("")
    result = make_big_attempt.task_folder(big) / "attempt-1" / "result.json"
    last = result.read_bytes().count(b'\n        "step_id": ') - 1
    print(f"{result.stat().st_size / MB:.1f} MiB, steps 0-{last}; load {os.getloadavg()}")
    print(f"src: {args.src or ROOT}")
    cases = ["pipe"] if args.pipe else args.cases.split(",")
    if args.document:
        cases = [c for c in cases if c != "next"]
    rows: dict[str, list[dict[str, Any]]] = {case: [] for case in cases}
    for _ in range(args.repeat):  # interleaved: the machine's load drifts
        for case in cases:
            rows[case].append(run_child(big, case, last, args.src))
    for case, figures in rows.items():
        errors = [f["error"] for f in figures if "error" in f]
        if errors:
            print(f"{case}: {errors[0]}")
            continue
        seconds = [f["seconds"] for f in figures]
        rss = [f["rss"] for f in figures]
        what = needles(last).get(case, "")
        tail = f"line {figures[-1].get('line')}: {figures[-1].get('text')!r}"
        if case == "pipe":
            tail = f"{figures[-1]['bytes'] / MB:.1f} MiB written"
        cpu = statistics.median(f["cpu"] for f in figures)
        tail = f"cpu {cpu:.2f} s; {tail}"
        if args.document:
            again = statistics.median(f["again cpu"] for f in figures)
            tail = f"again {again:.2f} s cpu; {tail}"
        print(
            f"  {case:<7} {statistics.median(seconds):6.2f} s [{max(seconds):.2f}]"
            f"  peak {statistics.median(rss):6.1f} MiB [{max(rss):.1f}]  {what!r}  {tail}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
