"""Warm results roots (issue 53 item 5): `leaderboard`, `check ROOT --cached`, `items` and
`gate` on a root of Terminal-Bench 2's shape, cold (empty cache folder) then warm (the same
cache folder, nothing changed), with the attempt files the warm run opened.

    .venv/bin/python benchmarks/bench_warm_root.py --make /tmp/warm-bench/root [--runs 27
        --tasks 89 --k 5 --attempt-kb 1024 --distinct 9 --broken 0]
    .venv/bin/python benchmarks/bench_warm_root.py /tmp/warm-bench/root [--rounds 1]
    .venv/bin/python benchmarks/bench_warm_root.py /tmp/warm-bench/root --after leaderboard

``--make`` writes ``--distinct`` runs with the project's large-run generator
(fixtures/make_large_run.py, each its own seed and model), each with its metrics.json written
by ``inspector report --json``, and copies them until the root holds ``--runs`` runs
(``team_NN/run_NNN``; copies are separate files on disk); ``--broken N`` makes the first N
runs unusable (their first result.json not JSON, its size kept: AgentCompass refuses them). The page-cache floor is ``cat`` of
every file under the root (after one unmeasured read). Each command runs in a fresh process
with its own empty cache folder (``XDG_CACHE_HOME``), cold, then warm with the folder the
cold run left (wall and CPU seconds, the CPU of the process and its reader processes:
on a shared machine the wall time of a sub-second answer is mostly waiting for a core);
the warm run is also run under ``strace -f -e trace=openat`` (when strace is
installed; its time is not the one printed) to count the ``result.json`` files it opened.
With ``--after NAME``, "cold" is NAME run first in the empty cache folder and "warm" each
command after it alone: what one cold pass leaves for the others.
Nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT / "fixtures" / "make_large_run.py"
PYTHON = sys.executable
COMMANDS = {
    "leaderboard": ["leaderboard"],
    "check --cached": ["check", "--cached"],
    "check": ["check"],
    "items": ["items"],
    "gate": ["gate"],
}


def make_root(
    out: Path, runs: int, tasks: int, k: int, attempt_kb: float, distinct: int, broken: int = 0
) -> None:
    if out.exists():
        raise SystemExit(f"{out} exists")
    sources = out.parent / (out.name + ".sources")
    shutil.rmtree(sources, ignore_errors=True)
    started = time.perf_counter()
    for seed in range(distinct):
        target = sources / f"run{seed:02d}"
        subprocess.run(
            [PYTHON, str(GENERATOR), "--out", str(target), "--tasks", str(tasks), "--k", str(k),
             "--trajectory-kb", str(attempt_kb), "--workers", "1", "--seed", str(seed + 1),
             "--model", f"model-{seed:02d}"],
            check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        write_metrics(target)
    copy_runs(sorted(sources.iterdir()), out, runs)
    shutil.rmtree(sources)
    for run in sorted(out.glob("team_*/run_*"), key=lambda run: run.name)[:broken]:
        result = sorted(run.glob("details/*/*/attempt-*/result.json"))[0]
        with open(result, "r+b") as handle:
            handle.write(b"x")  # not JSON from its first byte
    print(f"{out}: {runs} runs of {tasks} tasks x k={k}, {attempt_kb} KB per attempt "
          f"({distinct} generated, copied) in {time.perf_counter() - started:.0f} s")  # fmt: skip


def write_metrics(run: Path) -> None:
    """The run's metrics.json as ``inspector report --json`` (no cache) writes it."""
    done = subprocess.run(
        [PYTHON, "-m", "inspector", "report", str(run), "--json"],
        cwd=ROOT, capture_output=True, check=True, env=dict(os.environ, INSPECTOR_CACHE="0"),
    )  # fmt: skip
    (run / "metrics.json").write_bytes(done.stdout)


def copy_runs(sources: list[Path], out: Path, runs: int) -> None:
    """``runs`` copies of ``sources`` in turn, as ``team_NN/run_NNN`` (separate files)."""
    for number in range(runs):
        team = out / f"team_{number % 3:02d}"
        shutil.copytree(sources[number % len(sources)], team / f"run_{number:03d}")


def cat_floor(root: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        f"find {root} -type f -print0 | xargs -0 cat > /dev/null", shell=True, check=True
    )
    return time.perf_counter() - started


def timed(command: list[str], root: Path, cache: str) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system, with its children) and the exit code."""
    env = dict(os.environ, XDG_CACHE_HOME=cache, HOME=cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [PYTHON, "-m", "inspector", command[0], str(root), *command[1:]],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done.returncode


def opened_attempts(command: list[str], root: Path, cache: str) -> int | None:
    if shutil.which("strace") is None:
        return None
    env = dict(os.environ, XDG_CACHE_HOME=cache, HOME=cache)
    with tempfile.NamedTemporaryFile(suffix=".strace") as trace:
        subprocess.run(
            ["strace", "-f", "-e", "trace=openat", "-o", trace.name, PYTHON, "-m", "inspector",
             command[0], str(root), *command[1:]],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        lines = Path(trace.name).read_text(errors="replace").splitlines()
    return sum("result.json" in line and "ENOENT" not in line for line in lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="the results root (written first with --make)")
    parser.add_argument("--make", action="store_true", help="write the root first")
    sizes = parser.add_argument_group("the root --make writes")
    sizes.add_argument("--runs", type=int, default=27, help="runs under the root (27)")
    sizes.add_argument("--tasks", type=int, default=89, help="tasks per run (89)")
    sizes.add_argument("--k", type=int, default=5, help="attempts per task (5)")
    sizes.add_argument("--attempt-kb", type=float, default=1024, help="KB per attempt (1024)")
    sizes.add_argument("--distinct", type=int, default=9, help="runs generated, one per model")
    sizes.add_argument("--broken", type=int, default=0, help="runs made unusable (0)")
    parser.add_argument("--only", action="append", choices=sorted(COMMANDS), help="these only")
    parser.add_argument("--after", choices=sorted(COMMANDS), help="warm after this one alone")
    args = parser.parse_args()
    if args.make:
        make_root(
            args.root, args.runs, args.tasks, args.k, args.attempt_kb, args.distinct, args.broken
        )
    cat_floor(args.root)  # unmeasured: the page cache holds the root from here
    print(f"cat of every file: {cat_floor(args.root):.2f} s")
    print(f"{'command':16} {'cold s':>8} {'cpu s':>8} {'warm s':>8} {'cpu s':>8} {'exit':>5} "
          f"{'opened warm':>12}")  # fmt: skip
    for name in args.only or COMMANDS:
        with tempfile.TemporaryDirectory(prefix="warm-bench-cache-") as cache:
            cold, cold_cpu, code = timed(COMMANDS[args.after or name], args.root, cache)
            # After another command: the files opened are counted on a copy of the cache
            # folder it left (the timed run may fill in what that one did not keep).
            counted = f"{cache}.after"
            shutil.copytree(cache, counted, symlinks=True)
            warm, warm_cpu, _ = timed(COMMANDS[name], args.root, cache)
            opened = opened_attempts(COMMANDS[name], args.root, counted)
            shutil.rmtree(counted)
        shown = opened if opened is not None else "-"
        print(f"{name:16} {cold:8.2f} {cold_cpu:8.2f} {warm:8.2f} {warm_cpu:8.2f} {code:5d} "
              f"{shown:>12}")  # fmt: skip
    print(os.popen("uptime").read().strip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
