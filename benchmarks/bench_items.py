"""``inspector items ROOT`` and ``inspector errors ROOT`` against the two-process read floor of
the same files (issue 41). Nothing here runs in the test suite.

    .venv/bin/python benchmarks/bench_root.py --make /tmp/root300     # 300 runs x 200 tasks
    nice .venv/bin/python benchmarks/bench_items.py /tmp/root300 [--rounds 3]

Every file under the root is read once first, unmeasured (benchmarks/bench_root.py's
warm_page_cache). Each round measures, interleaved (the machine is shared: medians are
printed, and a busy machine shows as rounds that disagree):

  floor    ../shared/bench/read_floor.py RUN --parser orjson --procs 2 over each run, the
           in-process times it prints summed (interpreter start-up left out), as
           bench_root.py measures it;
  items    `inspector items ROOT --format json` in a fresh process with an empty cache
           directory (wall time, start-up included; every file is read, no cache is read or
           written);
  errors   `inspector errors ROOT --format json`, the same way (it also lists each
           attempt's retries/ folder).

Measured (issue 41) with ``nice .venv/bin/python benchmarks/bench_items.py /tmp/root300 --rounds 5
--floor-script /work/shared/bench/read_floor.py`` on a machine shared by eight developers
(load average 12-16 on 2 cores: the floor took 17-30 s, against about 3 s quiet): per round,
items / floor 1.72, 0.99, 1.48, 0.87, 1.22 (median 1.22; medians' ratio 29.5 s / 21.0 s =
1.41), errors / floor 1.86, 1.06, 1.94, 1.52, 1.95 (median 1.86; medians' ratio 1.56). CPU of
one run of the root in-process (5 repeats, process_time): items 23 ms, check 29 ms, errors
31 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_root import FLOOR, PYTHON, ROOT, floor, warm_page_cache


def command(root: Path, name: str) -> float:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, XDG_CACHE_HOME=cache)
        began = time.perf_counter()
        proc = subprocess.run(
            [PYTHON, "-m", "inspector", name, str(root), "--format", "json"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        elapsed = time.perf_counter() - began
    if proc.returncode != 0:
        raise SystemExit(f"{name} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--floor-script", type=Path, default=FLOOR)
    parser.add_argument("--only", choices=["items", "errors"], help="one command")
    args = parser.parse_args()
    names = [args.only] if args.only else ["items", "errors"]
    warm_page_cache(args.root)
    times: dict[str, list[float]] = {"floor": [], **{n: [] for n in names}}
    for number in range(1, args.rounds + 1):
        times["floor"].append(floor(args.root, args.floor_script))
        for name in names:
            times[name].append(command(args.root, name))
        ratios = "  ".join(f"{n} {times[n][-1]:.2f} s ({times[n][-1] / times['floor'][-1]:.2f}x)"
                           for n in names)  # fmt: skip
        print(f"round {number}: floor {times['floor'][-1]:.2f} s  {ratios}", flush=True)
    base = statistics.median(times["floor"])
    line = "  ".join(
        f"{n} {statistics.median(times[n]):.2f} s ({statistics.median(times[n]) / base:.2f}x)"
        for n in names
    )
    print(
        f"median of {args.rounds}: floor {base:.2f} s  {line}  (load average {os.getloadavg()[0]:.1f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
