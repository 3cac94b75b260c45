"""The test suite's wall time (issue 40: the README's test command in five minutes on two
cores), with one test process per core against ``-n auto``'s two, in the same session.

    .venv/bin/python benchmarks/bench_suite.py [--rounds 1] [--counts 1x,2x] [-- PYTEST ARGS]

Each round runs ``python -m pytest -q -n N -p no:cacheprovider`` once per count (``1x`` is
one process per available core, ``2x`` two: what ``-n auto`` starts, see
``tests/conftest.py``), alternating, and prints for each: the wall time, the seconds the
machine's cores were busy over it (from ``/proc/stat``: the pytest processes, their reader
processes and every subprocess a test starts), that busy time over the wall time times the
cores (how much of the machine the run kept busy), pytest's last line, and the wall time
against the first count's in the same round. The figures in issue 40's note come from::

    .venv/bin/python benchmarks/bench_suite.py --rounds 1

Nothing else should run meanwhile (the busy time counts the whole machine).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def busy_seconds() -> float:
    """Seconds the machine's cores have spent busy since boot (user, nice, system, irq)."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = stat.readline().split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq = (int(f) for f in fields[:7])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def run_suite(workers: int, extra: list[str]) -> tuple[float, float, str]:
    """One run of the suite: wall seconds, busy core-seconds, pytest's last line."""
    command = [sys.executable, "-m", "pytest", "-q", "-n", str(workers), "-p", "no:cacheprovider"]
    busy, start = busy_seconds(), time.perf_counter()
    done = subprocess.run(command + extra, cwd=ROOT, capture_output=True, text=True)
    wall, used = time.perf_counter() - start, busy_seconds() - busy
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return wall, used, lines[-1] if lines else f"exit {done.returncode}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--counts", default="1x,2x", help="processes per core, e.g. 1x,2x,3x")
    parser.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    counts = [int(c.rstrip("x")) for c in args.counts.split(",")]
    print(f"{cores} cores; test processes per core: {', '.join(map(str, counts))}")
    for round_ in range(1, args.rounds + 1):
        first = None
        for per_core in counts:
            workers = per_core * cores
            wall, used, last = run_suite(workers, args.pytest_args)
            first = first or wall
            print(
                f"round {round_}  -n {workers:<2}  wall {wall:6.1f} s  busy {used:6.1f} core-s  "
                f"cores busy {used / (wall * cores):4.0%}  vs first {wall / first:4.2f}x  "
                f"| {last}",
                flush=True,
            )


if __name__ == "__main__":
    main()
