"""Memory per task: peak RSS of ``report --json`` and the bytes a read run holds per task.

    python benchmarks/bench_memory.py --tasks 10000 --k 3 --workdir /tmp/mem-bench [--top 15]

Generates the run once (fixtures/make_large_run.py, kept in --workdir), then, each in a
fresh process and with a fresh cache directory (HOME and XDG_CACHE_HOME in a temporary
directory) where the case says so:

- ``report --json`` with the cache off (INSPECTOR_CACHE=0), on first open (the cache is
  written) and on a warm reopen: wall, CPU of the tree and the largest RSS in the tree;
- the run read as the app reads it (:func:`inspector.loading.read`) under tracemalloc: the
  bytes still allocated once the session is built, divided by the tasks (cache off, first
  open, warm reopen); ``--top`` lists the largest holders by traceback.

Not part of the test suite: figures depend on the machine (and its load: say ``uptime``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_large import CHILD  # noqa: E402  (a command in a child: wall, CPU, largest RSS)

HELD = r"""
import gc, sys, tracemalloc
top = int(sys.argv[2])
from inspector import loading
from inspector.loading import Loaded
import inspector.session, inspector.engine.model, inspector.results.tasks  # imports are not held
gc.collect()
tracemalloc.start(12)
before = tracemalloc.take_snapshot()
result = loading.read(sys.argv[1])
assert isinstance(result, Loaded), result
gc.collect()
after = tracemalloc.take_snapshot()
tasks = len(result.session.run.entries)
held = sum(s.size_diff for s in after.compare_to(before, "filename"))
print(held / tasks, tasks)
for stat in after.compare_to(before, "traceback")[:top]:
    print(f"{stat.size_diff / tasks:9.1f} B/task {stat.count_diff:9d}", file=sys.stderr)
    for line in stat.traceback.format()[-6:]:
        print("     ", line, file=sys.stderr)
"""
"""The run read in this process: bytes held per task after the session is built."""


def generate(run: Path, tasks: int, k: int, trajectory_kb: int) -> None:
    if (run / "run_info.json").exists():
        return
    script = ROOT / "fixtures" / "make_large_run.py"
    argv = ["--out", str(run), "--tasks", str(tasks), "--k", str(k)]
    argv += ["--trajectory-kb", str(trajectory_kb), "--seed", "1"]
    subprocess.run([sys.executable, str(script), *argv], check=True)


def environment(home: Path, cache: bool) -> dict[str, str]:
    env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(home / "cache"))
    env["INSPECTOR_CACHE"] = "1" if cache else "0"
    return env


def report(run: Path, env: dict[str, str]) -> str:
    command = [sys.executable, "-m", "inspector", "report", str(run), "--json"]
    if (ROOT / ".venv" / "bin" / "inspector").exists():
        command = [str(ROOT / ".venv" / "bin" / "inspector"), "report", str(run), "--json"]
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, *command], capture_output=True, text=True, env=env
    )
    wall, cpu, rss, code = proc.stdout.split()
    return f"{float(wall):7.2f} s {float(cpu):7.2f} CPU-s {float(rss):8.1f} MB (exit {code})"


def held(run: Path, env: dict[str, str], top: int) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", HELD, str(run), str(top)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    if proc.returncode:
        sys.exit(proc.stderr)
    if top:
        print(proc.stderr, file=sys.stderr)
    per_task, tasks = proc.stdout.split()
    return f"{float(per_task):8.0f} B/task held ({tasks} tasks)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10000)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--trajectory-kb", type=int, default=8)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "mem-bench")
    parser.add_argument("--top", type=int, default=0, help="largest holders by traceback")
    args = parser.parse_args()
    run = args.workdir / f"run-{args.tasks}x{args.k}-{args.trajectory_kb}kb"
    generate(run, args.tasks, args.k, args.trajectory_kb)
    print(f"run: {run} ({args.tasks} tasks x k={args.k}, {args.trajectory_kb} KB trajectories)")
    for kind, measure in (("report --json", report), ("read (held)", held)):
        with tempfile.TemporaryDirectory(dir=args.workdir) as home:
            off = environment(Path(home), cache=False)
            on = environment(Path(home), cache=True)
            extra = (args.top,) if measure is held else ()
            print(f"{kind:14} cache off   {measure(run, off, *extra)}", flush=True)
            print(f"{kind:14} first open  {measure(run, on, *extra)}", flush=True)
            print(f"{kind:14} warm reopen {measure(run, on, *extra)}", flush=True)


if __name__ == "__main__":
    main()
