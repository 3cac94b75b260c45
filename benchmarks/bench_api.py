"""``inspector.api`` on a large run (issue 52): ``open_root(RUN).tasks.to_frame()`` against
``inspector report RUN --json``, time and peak memory, in the same invocation.

    .venv/bin/python benchmarks/bench_api.py [--run DIR | --tasks 10000 --k 3]
        [--trajectory-kb 2] [--repeat 3] [--workdir /tmp/inspector-bench-api]

Without ``--run`` a run is generated once (fixtures/make_large_run.py, kept in --workdir and
reused). Each measurement is a fresh process, in --repeat interleaved rounds, with
its own cache folder (XDG_CACHE_HOME):
  report_cold  `inspector report RUN --json`, an empty cache
  report_warm  the same again, the cache kept (the answer comes from the cache)
  frame_cold   `open_root(RUN).tasks.to_frame()` (pandas), an empty cache
  frame_warm   the same, the cache kept from frame_cold (the task cache: no task file
               parsed again; the report cache cannot answer it, tables need every task)
and prints medians of wall time, CPU of the process tree and peak RSS of the largest
process in it (the command and its reader processes). Then it checks every value of the
frame against the ledger, ``inspector tasks RUN --series all --format jsonl``, row for row,
and says how many values it compared. Nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_large import CHILD  # noqa: E402  (a command's wall, CPU and peak RSS of its tree)

FRAME = r"""
import sys
from inspector.api import open_root
frame = open_root(sys.argv[1]).tasks.to_frame()
assert len(frame) > 0
"""
"""What an analyst types: every run under the path, the tasks table as a pandas frame."""


def measure(command: list[str], cache: Path) -> tuple[float, float, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(XDG_CACHE_HOME=str(cache), PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *command], env=env, capture_output=True, text=True,
        check=True, cwd=ROOT,
    )  # fmt: skip
    wall, cpu, rss, code = done.stdout.split()
    if code != "0":
        raise SystemExit(f"{command}: exit {code}")
    return float(wall), float(cpu), float(rss)


def check_against_ledger(run: Path) -> int:
    """Every value of the frame equals the ledger's; returns the number of values compared."""
    sys.path.insert(0, str(ROOT))
    from inspector.api import open_root

    frame = open_root(run).tasks.to_frame()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    ledger = subprocess.run(
        [sys.executable, "-m", "inspector", "tasks", str(run), "--series", "all",
         "--format", "jsonl"], env=env, capture_output=True, text=True, check=True, cwd=ROOT,
    ).stdout.splitlines()  # fmt: skip
    if len(ledger) != len(frame):
        raise SystemExit(f"rows: frame {len(frame)}, ledger {len(ledger)}")
    compared = 0
    for row, line in zip(frame.itertuples(index=False), ledger, strict=True):
        task = json.loads(line)
        coverage = task["coverage"]
        value = None if isinstance(row.value, float) and math.isnan(row.value) else row.value
        pairs = [
            (row.series_id, task["series_id"]), (row.task_id, task["task_id"]),
            (row.category, task["category"]), (row.state, task["state"]),
            (row.has_error, task["has_error"]), (value, task["value"]),
            (row.requested, coverage["requested"]), (row.observed, coverage["observed"]),
            (row.valid, coverage["valid"]), (row.error_attempts, coverage["error"]),
            (row.missing_attempts, task["missing_attempts"]),
            (row.invalidated, task["invalidated"]), (row.early_stopped, task["early_stopped"]),
            (list(row.reason_codes), [r["code"] for r in task["reasons"]]),
            (row.reasons, "; ".join(r["text"] for r in task["reasons"])),
        ]  # fmt: skip
        for got, expected in pairs:
            if got != expected:
                raise SystemExit(f"{task['series_id']} {task['task_id']}: {got!r} != {expected!r}")
        compared += len(pairs)
    return compared


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=Path, help="an existing run (default: generate one)")
    parser.add_argument("--tasks", type=int, default=10000)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--trajectory-kb", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/inspector-bench-api"))
    args = parser.parse_args()
    run = args.run
    if run is None:
        run = args.workdir / f"run_{args.tasks}_k{args.k}"
        if not run.is_dir():
            subprocess.run(
                [sys.executable, str(ROOT / "fixtures" / "make_large_run.py"), "--out", str(run),
                 "--tasks", str(args.tasks), "--k", str(args.k),
                 "--trajectory-kb", str(args.trajectory_kb)], check=True,
            )  # fmt: skip
    report = ["-m", "inspector", "report", str(run), "--json"]
    frame = ["-c", FRAME, str(run)]
    results: dict[str, list[tuple[float, float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-api-") as tmp:
        for round_ in range(args.repeat):
            for name, command in (("report", report), ("frame", frame)):
                cache = Path(tmp) / f"{name}-{round_}"
                cache.mkdir()
                command = [sys.executable, *command]
                results.setdefault(f"{name}_cold", []).append(measure(command, cache))
                results.setdefault(f"{name}_warm", []).append(measure(command, cache))
    print(f"run: {run} ({args.repeat} rounds; medians)")
    print(f"{'':12} {'wall s':>8} {'cpu s':>8} {'peak MB':>8}")
    for name in ("report_cold", "frame_cold", "report_warm", "frame_warm"):
        walls, cpus, rsss = zip(*results[name], strict=True)
        print(f"{name:12} {statistics.median(walls):8.2f} {statistics.median(cpus):8.2f} "
              f"{statistics.median(rsss):8.0f}")  # fmt: skip
    compared = check_against_ledger(run)
    print(f"frame == ledger (tasks --series all --format jsonl): {compared} values compared")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
