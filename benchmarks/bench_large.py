"""Large-run benchmark (issue 6): the floor vs `inspector report --json`, cold and cached.

    .venv/bin/python benchmarks/bench_large.py [--sizes 2000 10000 50000] [--k 3]
        [--trajectory-kb 8] [--workdir /tmp/inspector-bench]

For each size it generates a run once (fixtures/make_large_run.py; kept in --workdir and
reused), then times in fresh processes, in --repeat interleaved rounds:
  floor   walk the tree and parse every task.json and result.json with orjson;
  cold    `inspector report RUN --json` with the cache disabled;
  cached  the same with the cache enabled (an unchanged run reopened), after one warming run.
and prints the median wall time and CPU time (of the process and its reader processes), the
largest peak RSS of any one process, the ratio of the median to the floor's median, and the
spread of the wall times. Nothing is timed
inside the test suite; these figures go in the issue notes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FLOOR = r"""
import os, sys, orjson
root = sys.argv[1]
n = 0
for dirpath, dirnames, filenames in os.walk(os.path.join(root, "details")):
    for name in filenames:
        if name in ("task.json", "result.json"):
            with open(os.path.join(dirpath, name), "rb") as fh:
                orjson.loads(fh.read())
            n += 1
print(n)
"""


def peak_rss(argv: list[str], env: dict[str, str]) -> tuple[float, float, float, int]:
    """Run argv in a wrapper process that reports its own child's peak RSS."""
    wrapper = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
        "w = time.perf_counter() - t\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(w, u.ru_utime + u.ru_stime, u.ru_maxrss / 1024, p.returncode)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", wrapper, *argv], capture_output=True, env=env, text=True, check=True
    )
    wall, cpu, rss, code = proc.stdout.split()
    return float(wall), float(cpu), float(rss), int(code)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10000, 50000])
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--trajectory-kb", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds (median)")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "inspector-bench"))
    args = parser.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    inspector = [sys.executable, "-m", "inspector"]
    print(
        f"{'tasks':>7} {'what':>8} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} {'x floor':>8}"
        f"   wall min-max ({args.repeat} rounds; medians)"
    )
    for size in args.sizes:
        run = workdir / f"run_{size}_k{args.k}_{args.trajectory_kb}kb"
        if not (run / "run_info.json").exists():
            subprocess.run(
                [
                    sys.executable,
                    str(ROOT / "fixtures" / "make_large_run.py"),
                    "--out",
                    str(run),
                    "--tasks",
                    str(size),
                    "--k",
                    str(args.k),
                    "--trajectory-kb",
                    str(args.trajectory_kb),
                    "--seed",
                    "1",
                ],
                check=True,
            )
        cache_dir = workdir / "cache"
        env = dict(os.environ, XDG_CACHE_HOME=str(cache_dir), INSPECTOR_CACHE="0")
        cached_env = dict(env, INSPECTOR_CACHE="1")
        report = [*inspector, "report", str(run), "--json"]
        peak_rss(report, cached_env)  # warm the cache (and the page cache)
        rounds: dict[str, list[tuple[float, float, float, int]]] = {
            "floor": [],
            "cold": [],
            "cached": [],
        }
        # Interleaved rounds: a noisy neighbour slows all three alike, not one of them.
        for _ in range(args.repeat):
            rounds["floor"].append(peak_rss([sys.executable, "-c", FLOOR, str(run)], env))
            rounds["cold"].append(peak_rss(report, env))
            rounds["cached"].append(peak_rss(report, cached_env))
        floor_wall = statistics.median(r[0] for r in rounds["floor"])
        for what, results in rounds.items():
            codes = {r[3] for r in results}
            if codes != {0}:
                sys.exit(f"{what} exited {codes}")
            wall = statistics.median(r[0] for r in results)
            cpu = statistics.median(r[1] for r in results)
            rss = max(r[2] for r in results)
            spread = f"{min(r[0] for r in results):.2f}-{max(r[0] for r in results):.2f}"
            print(
                f"{size:>7} {what:>8} {wall:>8.2f} {cpu:>8.2f} {rss:>8.0f} "
                f"{wall / floor_wall:>8.2f}   {spread}"
            )


if __name__ == "__main__":
    main()
