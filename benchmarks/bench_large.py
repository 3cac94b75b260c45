"""Large-run benchmark (issues 6, 11): `inspector report --json` against the read floor.

    .venv/bin/python benchmarks/bench_large.py [--sizes 2000 10000 50000] [--k 3]
        [--trajectory-kb 8] [--repeat 5] [--workdir /tmp/inspector-bench]
        [--floor ../shared/bench/read_floor.py]

For each size it generates a run once (fixtures/make_large_run.py; kept in --workdir and
reused), then times, in fresh processes and in --repeat interleaved rounds (a noisy
neighbour slows every measurement of a round alike):
  floor1     read_floor.py RUN --parser orjson            (parse everything, one process)
  floor2     read_floor.py RUN --parser orjson --procs 2  (the parse split over two processes)
  cold       `inspector report RUN --json`, cache disabled
  reopen     the same with the cache on, the run unchanged since the last report
  changed10  the same after 10 task folders were rewritten (their files' ctime moves)
and prints medians: wall time, CPU time of the whole process tree, peak RSS of the main
process (MB, and MB per 1,000 tasks), and the ratios the issue's targets are stated in,
with the spread (min-max wall) of each so the noise of the machine is visible.
The inspector runs with its bytecode cached, as an installed copy does
(PYTHONDONTWRITEBYTECODE is dropped for the measured processes: with it, each one compiles
the inspector's source again, about 0.15 s of CPU). Nothing is timed inside the test
suite; these figures go in the issue notes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FLOOR = ROOT.parent / "shared" / "bench" / "read_floor.py"

CHILD = r"""
import resource, subprocess, sys, time
t = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
w = time.perf_counter() - t
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(w, u.ru_utime + u.ru_stime, u.ru_maxrss / 1024, p.returncode)
"""
"""A command in a child process: wall, CPU of its whole tree, largest RSS in the tree."""

IN_PROCESS = r"""
import os, resource, sys, time
t = time.perf_counter()
out = os.open(os.devnull, os.O_WRONLY)
saved = os.dup(1)
os.dup2(out, 1)
from inspector.cli.main import main
code = main(sys.argv[1:])
sys.stdout.flush()
os.dup2(saved, 1)
w = time.perf_counter() - t
me = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
print(w, cpu, me.ru_maxrss / 1024, code)
"""
"""The inspector in this process: wall, CPU of the tree, peak RSS of the main process."""


def measure(code: str, argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    proc = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, env=env, text=True, cwd=ROOT
    )
    if proc.returncode != 0:
        sys.exit(proc.stderr)
    wall, cpu, rss, status = proc.stdout.split()[-4:]
    if int(status) != 0:
        sys.exit(f"{argv} exited {status}: {proc.stderr}")
    return float(wall), float(cpu), float(rss)


def rewrite_folders(run: Path, count: int, round_number: int) -> None:
    """Rewrite ``count`` task folders' first result.json in place (same bytes: the change
    time moves, as when AgentCompass rewrites them), a different set each round."""
    folders = sorted((run / "details" / "normal").iterdir())
    start = (round_number * count) % max(1, len(folders) - count)
    for folder in folders[start : start + count]:
        path = folder / "attempt-1" / "result.json"
        path.write_bytes(path.read_bytes())


def generate(run: Path, size: int, k: int, trajectory_kb: int) -> None:
    if (run / "run_info.json").exists():
        return
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "fixtures" / "make_large_run.py"),
            "--out",
            str(run),
            "--tasks",
            str(size),
            "--k",
            str(k),
            "--trajectory-kb",
            str(trajectory_kb),
            "--seed",
            "1",
        ],
        check=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10000, 50000])
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--trajectory-kb", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds (median)")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "inspector-bench"))
    parser.add_argument("--floor", default=str(DEFAULT_FLOOR), help="read_floor.py")
    args = parser.parse_args()
    if not Path(args.floor).is_file():
        sys.exit(f"{args.floor}: no read_floor.py (pass --floor)")
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    print(
        f"{'tasks':>7} {'what':>10} {'wall s':>7} {'cpu s':>7} {'RSS MB':>7} {'MB/1k':>6}"
        f"  wall min-max  ({args.repeat} interleaved rounds, medians)"
    )
    for size in args.sizes:
        run = workdir / f"run_{size}_k{args.k}_{args.trajectory_kb}kb"
        generate(run, size, args.k, args.trajectory_kb)
        env = dict(os.environ, XDG_CACHE_HOME=str(workdir / "cache"), INSPECTOR_CACHE="0")
        # As installed (pip compiles the bytecode): not the inspector's source compiled
        # again by every measured process when the shell sets PYTHONDONTWRITEBYTECODE.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        cached = dict(env, INSPECTOR_CACHE="1")
        report = ["report", str(run), "--json"]
        floor = [sys.executable, args.floor, str(run), "--parser", "orjson"]
        measure(IN_PROCESS, report, cached)  # warm the caches and the page cache
        rounds: dict[str, list[tuple[float, float, float]]] = {
            name: [] for name in ("floor1", "floor2", "cold", "reopen", "changed10")
        }
        for number in range(args.repeat):
            rounds["floor1"].append(measure(CHILD, floor, env))
            rounds["floor2"].append(measure(CHILD, [*floor, "--procs", "2"], env))
            rounds["cold"].append(measure(IN_PROCESS, report, env))
            measure(IN_PROCESS, report, cached)  # the cache holds the run as it is now
            time.sleep(0.2)  # files written just now are racy: let the stamps age
            rounds["reopen"].append(measure(IN_PROCESS, report, cached))
            rewrite_folders(run, 10, number)
            time.sleep(0.2)
            rounds["changed10"].append(measure(IN_PROCESS, report, cached))
        medians = {
            name: tuple(statistics.median(r[i] for r in results) for i in range(3))
            for name, results in rounds.items()
        }
        for name, results in rounds.items():
            wall, cpu, rss = medians[name]
            walls = [r[0] for r in results]
            print(
                f"{size:>7} {name:>10} {wall:>7.2f} {cpu:>7.2f} {rss:>7.0f} "
                f"{rss / size * 1000:>6.1f}  {min(walls):.2f}-{max(walls):.2f}"
            )
        f1, f2 = medians["floor1"], medians["floor2"]
        cold, reopen, changed = medians["cold"], medians["reopen"], medians["changed10"]
        ratios = {
            "cold wall / floor2 wall (target <= 1.2)": cold[0] / f2[0],
            "cold wall / floor1 wall": cold[0] / f1[0],
            "cold cpu / floor1 cpu (target <= 1.8)": cold[1] / f1[1],
            "cold main RSS MB per 1k tasks (target <= 5)": cold[2] / size * 1000,
            "reopen wall / floor1 wall (target <= 0.25)": reopen[0] / f1[0],
            "changed10 - reopen wall, s (target <= 0.15)": changed[0] - reopen[0],
        }
        print(json.dumps({"tasks": size, **{k: round(v, 3) for k, v in ratios.items()}}))


if __name__ == "__main__":
    main()
