"""Results-root benchmark (issue 16): `inspector check ROOT` and the runs screen against the
read floor of every task file under the root.

    .venv/bin/python benchmarks/bench_root.py --make /tmp/root300 [--runs 300 --tasks 200]
    .venv/bin/python benchmarks/bench_root.py /tmp/root300 [--rounds 3] [--only check|screen]
    .venv/bin/python benchmarks/bench_root.py /tmp/root300 --only cached --cache DIR

``--make`` writes the root with the project's large-run generator
(fixtures/make_large_run.py): ``--distinct`` runs generated with their own seeds (default 10),
each with its metrics.json written by ``inspector report --json``, then copied until the root
holds ``--runs`` runs as ``ns_NN/20261130_NNNNNN`` (copies are separate files on disk, read
separately). Nothing here runs in the test suite.

Every file under the root is read once before the first round, unmeasured (the page cache
then holds the root, as it does in every later round). Each round measures, interleaved (the
machine is shared and noisy; medians are printed):

  floor         ../shared/bench/read_floor.py RUN --parser orjson --procs 2 over each run,
                the in-process times it prints summed (interpreter start-up left out): the
                two-process floor of reading and parsing every task.json and result.json;
  check cold    `inspector check ROOT` in a fresh process with an empty cache directory
                (wall time, start-up included);
  cold          the app on ROOT, headless (Pilot, 100x30), in a fresh process with an
                empty cache: seconds until every row shows a recomputed value ("shown")
                and until every row is checked ("checked"), from the program's start (the
                moment the process is started, interpreter start-up included) and ("from
                rows") from the moment the rows were listed;
  cached        the same again with the cache the cold screen left: every row shows at
                once what its last check found, marked cached (the runs screen's check
                cache, for a run whose run-level files and task folder listing are
                unchanged), then is checked again: unchanged runs are answered by the
                report cache (one listing and one lstat per file) and the runs list by the
                summary cache;
  stat floor    one lstat of every file the report cache checks (run-level files, task
                folders, task.json, result.json), split over two forked processes: the
                least a cached screen that sees any change to any file can spend.

The time until the headline intervals are all shown is printed too (a run read for its
check brings its interval; one answered by the report cache brings the one kept with it).
Ratios are against the floor measured in the same round. ``--only check`` measures the
floor and ``check ROOT``, ``--only screen`` the screens and the stat floor, ``--only
cached`` the cached screen and the stat floor, with the cache in ``--cache DIR`` (filled
first by one cold screen, not measured, when it is empty). The code
measured is this file's tree (``check`` runs in it, the screen imports from it), so a copy
of another tree measures that tree.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLOOR = (ROOT / ".." / "shared" / "bench" / "read_floor.py").resolve()
GENERATOR = ROOT / "fixtures" / "make_large_run.py"
PYTHON = sys.executable


def make_root(out: Path, runs: int, tasks: int, distinct: int) -> None:
    if out.exists():
        raise SystemExit(f"{out} exists")
    sources = out.parent / (out.name + ".sources")
    shutil.rmtree(sources, ignore_errors=True)
    procs = []
    for seed in range(1, distinct + 1):
        target = sources / f"run{seed:02d}"
        command = [PYTHON, str(GENERATOR), "--out", str(target), "--tasks", str(tasks),
                   "--k", "3", "--trajectory-kb", "2", "--workers", "1", "--seed", str(seed)]  # fmt: skip
        procs.append(subprocess.Popen(command, stdout=subprocess.DEVNULL))
        if len(procs) >= 2:
            procs.pop(0).wait()
    for proc in procs:
        proc.wait()
    for source in sorted(sources.iterdir()):
        report = subprocess.run(
            [PYTHON, "-m", "inspector", "report", str(source), "--json"],
            cwd=ROOT, capture_output=True, check=True, env=dict(os.environ, INSPECTOR_CACHE="0"),
        )  # fmt: skip
        (source / "metrics.json").write_bytes(report.stdout)
    names = sorted(sources.iterdir())
    for number in range(runs):
        target = out / f"ns_{number % 10:02d}" / f"20261130_{number:06d}"
        shutil.copytree(names[number % len(names)], target)
    shutil.rmtree(sources)
    print(f"{out}: {runs} runs of {tasks} tasks ({distinct} generated, copied)")


def run_folders(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.glob("*/*/run_info.json"))


def floor(root: Path, script: Path) -> float:
    total = 0.0
    for run in run_folders(root):
        proc = subprocess.run(
            [PYTHON, str(script), str(run), "--parser", "orjson", "--procs", "2"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        total += float(re.search(r"in ([0-9.]+)s", proc.stdout).group(1))  # type: ignore[union-attr]
    return total


def stat_floor(root: Path) -> float:
    """Seconds to lstat every file the report cache checks, in two forked processes."""
    paths: list[str] = []
    for run in run_folders(root):
        paths += [str(run / name) for name in ("run_info.json", "params.json", "metrics.json",
                                                "summary.md")]  # fmt: skip
        for folder in sorted((run / "details").glob("*/*")):
            paths += [str(folder), str(folder / "task.json")]
            paths += [str(p) for p in folder.glob("attempt-*/result.json")]
    began = time.perf_counter()
    pid = os.fork()
    mine = paths[1::2] if pid == 0 else paths[0::2]
    for path in mine:
        try:  # noqa: SIM105 - contextlib.suppress would slow the floor itself
            os.lstat(path)
        except FileNotFoundError:
            pass
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return time.perf_counter() - began


def warm_page_cache(root: Path) -> None:
    """Read every file under ``root`` once, unmeasured: the first pass after the root was
    written, or after the machine dropped its page cache, reads from the disk (a first
    round's floor then took 35-40 s instead of 3 s, and a median of two rounds meant
    nothing)."""
    for folder, _, names in os.walk(root):
        for name in names:
            with open(os.path.join(folder, name), "rb") as stream:
                while stream.read(1 << 20):
                    pass


def check_cold(root: Path) -> float:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, XDG_CACHE_HOME=cache)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        began = time.perf_counter()
        proc = subprocess.run(
            [PYTHON, "-m", "inspector", "check", str(root)], cwd=ROOT, env=env,
            capture_output=True, text=True,
        )  # fmt: skip
        elapsed = time.perf_counter() - began
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr
    if proc.returncode != 0:
        raise SystemExit(f"check exited {proc.returncode}: {summary}")
    return elapsed


def screen(root: Path, cache: str) -> dict[str, float]:
    """Seconds from the start until every row shows a recomputed value (checked, or cached
    until then) and until every row is checked, the same from the moment the rows were
    listed, and from the start until every interval is shown."""
    # PYTHONPATH: this tree's inspector in the app's reader processes too (they import it
    # by name, wherever the child runs from).
    env = dict(os.environ, XDG_CACHE_HOME=cache, PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["BENCH_STARTED"] = repr(time.perf_counter())  # the same clock in the child
    proc = subprocess.run(
        [PYTHON, __file__, "--screen", str(root)], env=env, capture_output=True, text=True
    )
    match = re.search(
        r"all shown ([0-9.]+) s \(([0-9.]+) s from rows\), all checked ([0-9.]+) s "
        r"\(([0-9.]+) s from rows\).*intervals ([0-9.]+)",
        proc.stdout,
    )
    if match is None:
        raise SystemExit(f"screen: {proc.stdout}{proc.stderr[-2000:]}")
    names = ("shown", "shown from rows", "checked", "checked from rows", "intervals")
    return dict(zip(names, map(float, match.groups()), strict=True))


def screen_child(root: Path) -> None:
    """In a fresh process: the app on ``root`` until every row shows its recomputed value;
    times from the moment the parent started this process (perf_counter is one clock for
    every process of the machine)."""
    began = float(os.environ.get("BENCH_STARTED") or time.perf_counter())
    sys.path.insert(0, str(ROOT))  # this tree's inspector, whatever is installed
    import asyncio

    from inspector.cli.main import build_app

    app = build_app([str(root)])  # as `inspector ROOT` makes it
    from inspector.app.screens.runs import RunsScreen

    async def main() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            listed = shown = None
            cached = 0
            while True:
                # Not pilot.pause: it waits until every widget has handled a callback
                # (~20 widgets, every 20 ms: 0.2 s of this process's CPU over a cold
                # screen, taken from the reader processes), which a person's app never does.
                await asyncio.sleep(0.02)
                screen = app.screen
                if not isinstance(screen, RunsScreen) or not screen.rows:
                    continue
                if listed is None:
                    listed = time.perf_counter()
                    cached = sum(row.is_cached for row in screen.rows)
                if shown is None and screen.all_shown:
                    assert all(row.latest is not None for row in screen.run_table.rows_shown)
                    shown = time.perf_counter()
                if screen.all_checked:
                    assert all(row.check is not None for row in screen.run_table.rows_shown)
                    break
            done = time.perf_counter()
            while not screen.intervals_done:
                await pilot.pause(0.05)
            intervals = time.perf_counter() - began
            states = {row.check_state for row in screen.rows}
            assert shown is not None
            print(
                f"all shown {shown - began:.3f} s ({shown - listed:.3f} s from rows), "
                f"all checked {done - began:.3f} s ({done - listed:.3f} s from rows), "
                f"{len(screen.rows)} runs ({cached} cached when listed), states {states}; "
                f"intervals {intervals:.3f} s"
            )

    asyncio.run(main())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--make", action="store_true", help="write the root first")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--distinct", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--floor-script", type=Path, default=FLOOR, help=f"read_floor.py (default {FLOOR})"
    )
    parser.add_argument(
        "--only",
        choices=["check", "screen", "cached"],
        help="only the floor and check ROOT, the screens, or the cached screen",
    )
    parser.add_argument("--cache", type=Path, help="with --only cached: the cache folder")
    parser.add_argument("--screen", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.screen:
        screen_child(args.root)
        return 0
    if args.make:
        make_root(args.root, args.runs, args.tasks, args.distinct)
        return 0
    runs = run_folders(args.root)
    print(f"{args.root}: {len(runs)} runs; {os.cpu_count()} cores; rounds {args.rounds}")
    measured = ("shown", "shown from rows", "checked", "checked from rows", "intervals")
    names = ["floor", "check cold"] * (args.only is None or args.only == "check")
    if args.only is None or args.only == "screen":
        names += [f"{m} cold" for m in measured]
    if args.only != "check":
        names += ["stat floor", *(f"{m} cached" for m in measured)]
    kinds = ("cached",) if args.only == "cached" else ("cold", "cached")
    if args.only == "cached":
        if args.cache is None:
            raise SystemExit("--only cached needs --cache DIR")
        args.cache.mkdir(parents=True, exist_ok=True)
        if not any(args.cache.iterdir()):
            screen(args.root, str(args.cache))
    warm_page_cache(args.root)
    rows: dict[str, list[float]] = {name: [] for name in names}
    for number in range(args.rounds):
        if "floor" in rows:
            rows["floor"].append(floor(args.root, args.floor_script))
            rows["check cold"].append(check_cold(args.root))
        if args.only != "check":
            with tempfile.TemporaryDirectory() as temporary:
                cache = str(args.cache) if args.only == "cached" else temporary
                for kind in kinds:
                    if kind == "cached":
                        rows["stat floor"].append(stat_floor(args.root))
                    for name, value in screen(args.root, cache).items():
                        rows[f"{name} {kind}"].append(value)
        line = ", ".join(f"{name} {values[-1]:.2f} s" for name, values in rows.items())
        print(f"round {number + 1}: {line}", flush=True)
    for floor_name, kind in (("floor", "cold"), ("stat floor", "cached")):
        if floor_name not in rows:
            continue
        base = statistics.median(rows[floor_name])
        print(f"median {floor_name}: {base:.2f} s")
        for name in ["check cold"] * (kind == "cold") + [f"{m} {kind}" for m in measured]:
            if name not in rows:
                continue
            value = statistics.median(rows[name])
            ratios = [v / f for v, f in zip(rows[name], rows[floor_name], strict=True)]
            print(
                f"  {name}: median {value:.2f} s = {value / base:.2f}x {floor_name} "
                f"(per-round ratios {', '.join(f'{r:.2f}' for r in ratios)})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
