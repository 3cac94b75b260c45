"""What a path costs (issue 12): modules crossed, CPU and peak memory, tree against tree.

    .venv/bin/python benchmarks/bench_paths.py [NAME=TREE ...] [--run RUN] [--rounds 7]
        [--rights 4] [--instructions]

Each TREE is a checkout with its own ``.venv`` (default: this one, as ``here``); compare the
tree before a change with the tree after it, e.g.
``git worktree add /tmp/before dca9108`` (+ a venv) and
``bench_paths.py before=/tmp/before after=.``. Every figure is measured in fresh processes
run from the tree with its own interpreter, trees interleaved round by round (the machine's
speed drifts; a round compares the trees under the same conditions), medians printed with
their min and max:

  report cached    CPU (user + sys of the process and its children) of
                   ``inspector report RUN --json``, the report cache warm;
  report uncached  the same with ``INSPECTOR_CACHE=0``;
  app import       CPU of ``python -c "import inspector.app.app"``;
  app open         peak RSS (MB, ``ru_maxrss``) of a process that opens RUN in the app
                   headless at 140x45, waits for it, then presses ``right`` RIGHTS times and
                   ``enter`` on the series table: a count's task list (the tasks screen).

With ``--instructions``, once per tree, the instructions executed by the processes of each
of the three CPU figures, counted by valgrind's callgrind (forked children too;
``PYTHONHASHSEED=0``): unlike CPU time on a shared machine, the count is the same from run
to run (within ~0.1 %), so small differences between trees show. It needs ``valgrind``
(``apt-get install -y valgrind``) and takes a few minutes.

Then, once per tree, the modules of ``inspector`` and ``widgets`` each path imports
(``python -X importtime``, every process of the path, names counted once) and, for the
app, the ones in ``sys.modules`` on that task list; with two trees, which modules one
path crosses in one tree and not the other. The inspector runs with its bytecode cached
(``PYTHONDONTWRITEBYTECODE`` is dropped for the measured processes). The figures go in the
issue notes; nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

CPU_OF_CHILD = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "use = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(use.ru_utime + use.ru_stime, done.returncode)\n"
)
"""Run the command given and print the CPU seconds it (and its children) took."""

APP_IMPORT = (
    "import resource\n"
    "import inspector.app.app\n"
    "use = resource.getrusage(resource.RUSAGE_SELF)\n"
    "print(use.ru_utime + use.ru_stime, 0)\n"
)

APP_OPEN = """
import asyncio, resource, sys
from pathlib import Path
from inspector.app.app import InspectorApp

async def main(run, rights):
    app = InspectorApp([Path(run)])
    async with app.run_test(size=(140, 45)) as pilot:
        async def settle():
            for _ in range(3):
                await pilot.pause()
                await app.workers.wait_for_complete()
            await pilot.pause()
        await settle()
        await pilot.press(*["right"] * rights, "enter")
        await settle()
        assert type(app.screen).__name__ == "TasksScreen", app.screen
        assert app.screen.shown, "the count's task list is empty"

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
ours = sorted(m for m in sys.modules if m.split(".")[0] in ("inspector", "widgets"))
print("MODULES", " ".join(ours))
print("RSS", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""
"""Open a run down to a count's task list; print our modules loaded and the peak RSS (MB)."""

IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|( *)(\S+)$")
COLLECTED = re.compile(r"^==\d+== Collected : (\d+)$", re.MULTILINE)


class Tree:
    """One checkout measured: its interpreter, its own cache folder."""

    def __init__(self, name: str, root: Path) -> None:
        self.name = name
        self.root = root
        self.python = str(root / ".venv" / "bin" / "python")
        self.cache = tempfile.mkdtemp(prefix=f"bench-paths-{name}-")

    def env(self, cached: bool = True) -> dict[str, str]:
        drop = ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "INSPECTOR_CACHE")
        env = {key: value for key, value in os.environ.items() if key not in drop}
        env["XDG_CACHE_HOME"] = self.cache
        if not cached:
            env["INSPECTOR_CACHE"] = "0"
        return env

    def run(self, *args: str, cached: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.python, *args], cwd=self.root, env=self.env(cached),
            capture_output=True, text=True, check=True, timeout=600,
        )  # fmt: skip

    def cpu_ms(self, *args: str, cached: bool = True) -> float:
        seconds, code = self.run("-c", CPU_OF_CHILD, self.python, *args, cached=cached).stdout.split()
        assert code == "0", (self.name, args, code)
        return float(seconds) * 1000


    def instructions(self, *args: str, cached: bool = True) -> float:
        """Millions of instructions ``python ARGS`` executes, its forked children's too."""
        env = dict(self.env(cached), PYTHONHASHSEED="0")
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
             "--trace-children=yes", self.python, *args],
            cwd=self.root, env=env, capture_output=True, text=True, check=True, timeout=3600,
        )  # fmt: skip
        counts = [int(found) for found in COLLECTED.findall(done.stderr)]
        assert counts, (self.name, args, done.stderr[-500:])
        return sum(counts) / 1e6


def report_args(run: str) -> tuple[str, ...]:
    return ("-m", "inspector", "report", run, "--json")


def measure(tree: Tree, run: str, rights: int) -> dict[str, float]:
    """One round of every figure for one tree."""
    seconds, _ = tree.run("-c", APP_IMPORT).stdout.split()
    opened = tree.run("-c", APP_OPEN, run, str(rights)).stdout.splitlines()
    return {
        "report cached (ms CPU)": tree.cpu_ms(*report_args(run)),
        "report uncached (ms CPU)": tree.cpu_ms(*report_args(run), cached=False),
        "app import (ms CPU)": float(seconds) * 1000,
        "app open (MB peak RSS)": float(opened[-1].split()[1]),
    }


def instruction_counts(tree: Tree, run: str) -> dict[str, float]:
    return {
        "report cached": tree.instructions(*report_args(run)),
        "report uncached": tree.instructions(*report_args(run), cached=False),
        "app import": tree.instructions("-c", "import inspector.app.app"),
    }


def imported(tree: Tree, args: tuple[str, ...], cached: bool) -> set[str]:
    """Our modules imported by ``python -X importtime ARGS`` (all its processes)."""
    done = tree.run("-X", "importtime", *args, cached=cached)
    names = {match.group(2) for line in done.stderr.splitlines() if (match := IMPORTED.match(line))}
    return {name for name in names if name.split(".")[0] in ("inspector", "widgets")}


def module_sets(tree: Tree, run: str, rights: int) -> dict[str, set[str]]:
    opened = tree.run("-c", APP_OPEN, run, str(rights)).stdout.splitlines()
    app = next(line for line in opened if line.startswith("MODULES")).split()[1:]
    return {
        "report --json cached": imported(tree, report_args(run), cached=True),
        "report --json uncached": imported(tree, report_args(run), cached=False),
        "import inspector.app.app": imported(tree, ("-c", "import inspector.app.app"), True),
        "app to a count's task list": set(app),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trees", nargs="*", help="NAME=TREE (default: here=this checkout)")
    parser.add_argument("--run", default=str(HERE / "fixtures" / "runs" / "k3_avg_hierarchy"))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--rights", type=int, default=4, help="right presses to the count")
    parser.add_argument("--instructions", action="store_true",
                        help="also count instructions with valgrind (callgrind)")  # fmt: skip
    args = parser.parse_args()
    pairs = [pair.split("=", 1) for pair in args.trees] or [["here", str(HERE)]]
    trees = [Tree(name, Path(root).resolve()) for name, root in pairs]
    for tree in trees:
        tree.run(*report_args(args.run))  # bytecode written, the report cache warm
        tree.run("-c", APP_OPEN, args.run, str(args.rights))
    figures: dict[str, dict[str, list[float]]] = {}
    for round_ in range(args.rounds):
        for tree in trees:
            for what, value in measure(tree, args.run, args.rights).items():
                figures.setdefault(what, {}).setdefault(tree.name, []).append(value)
        print(f"round {round_ + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    print(f"{args.run}: medians of {args.rounds} interleaved rounds (min-max)")
    for what, by_tree in figures.items():
        cells = "   ".join(
            f"{name} {statistics.median(v):6.0f} ({min(v):.0f}-{max(v):.0f})"
            for name, v in by_tree.items()
        )
        print(f"  {what:26} {cells}")
    if args.instructions:
        counts = {tree.name: instruction_counts(tree, args.run) for tree in trees}
        print("instructions (millions, callgrind, every process of the path)")
        for what in counts[trees[0].name]:
            cells = "   ".join(f"{name} {by_path[what]:8.1f}" for name, by_path in counts.items())
            print(f"  {what:26} {cells}")
    sets = {tree.name: module_sets(tree, args.run, args.rights) for tree in trees}
    print("modules of inspector/ and widgets/ crossed")
    first = trees[0].name
    for path in sets[first]:
        counts = "   ".join(f"{name} {len(by_path[path]):3}" for name, by_path in sets.items())
        print(f"  {path:28} {counts}")
        for tree in trees[1:]:
            only_first = sorted(sets[first][path] - sets[tree.name][path])
            only_other = sorted(sets[tree.name][path] - sets[first][path])
            print(f"      only {first}: {' '.join(only_first) or '-'}")
            print(f"      only {tree.name}: {' '.join(only_other) or '-'}")


if __name__ == "__main__":
    main()
