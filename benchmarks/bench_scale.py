"""Real sizes (issue 53): `inspector report --json` on large runs against floors measured
in the same interleaved rounds.

    .venv/bin/python benchmarks/bench_scale.py [--tasks 1000 10000 100000] [--k 3]
        [--kb 8] [--run TASKS K KB]... [--big 89 5 5120] [--root 27 89 5 1024] [--repeat 3]
        [--workdir /tmp/inspector-scale] [--cap-gb 8] [--src DIR] [--compare DIR]
        [--floors bytes1 bytes2 lstat1 lstat2 orjson1 orjson2] [--what off first warm]
        [--no-big] [--keep-cache] [--cache DIR]

Runs are generated once into --workdir (fixtures/make_large_run.py, in parts by its worker
processes; the time each took is printed) and reused: ``--tasks`` runs of ``--k`` attempts
of about ``--kb`` KB each, each ``--run`` of its own size, the ``--big`` run (tasks, k, KB per attempt: 89 x 5 x 5 MB is
2.2 GB) and, with ``--root``, a results root of runs x tasks x k x KB (Terminal-Bench 2's
shape is 27 x 89 x 5 x 1 MB, 12 GB) read by ``leaderboard``, ``check ROOT``, ``items`` and
``gate``. Nothing is generated inside the repository.

Each round measures, in fresh processes, one after the other (a noisy neighbour slows a
whole round alike, so the ratios hold better than the times):
  bytes1 / bytes2   every task.json and result.json read (not parsed) by 1 / 2 processes
  lstat1 / lstat2   the task folders listed, every file the run's index covers lstat-ed by
                    1 / 2 processes (the floor of a warm reopen: ratio ``warm/lstat2``)
  orjson1 / orjson2 read_floor.py --parser orjson [--procs 2]: every document parsed
  off               the command with INSPECTOR_CACHE=0 (nothing read from or written to a cache)
  first             the command with a fresh, empty cache directory (the cache written)
  warm              the command again, nothing changed (the cache read)
and prints medians: wall s, CPU s of the whole process tree, peak RSS MB of the largest
process (wait4) and of the whole tree (its /proc sampled every 20 ms: the tree is found from
the process started here through /proc/PID/task/*/children), and the tree's peak PSS (pages
a forked reader shares with its parent counted once, where the RSS sum counts them in each). A measured tree whose RSS
passes --cap-gb is killed (its own process group, started here) and reported 'exceeded'.
The table is Markdown, ready for a note; under each run's rows come the ratios of the
medians (``wall off/orjson2``: the cache-off wall time over the two-process orjson floor;
``treeRSS first/off``: the first open's peak tree RSS over the cache-off one; ...) and
whether the ``off`` / ``first`` / ``warm`` commands printed the same bytes in every round
(sha256 of their standard output). A ``warm`` row is left out of a round whose ``first``
was killed (no store was written). The store is removed after the run's rounds (it is as
large as the run's reduced data) unless ``--keep-cache``.
``--src DIR`` runs the inspector package found in DIR instead of this checkout (for a
before/after: ``git archive main inspector | tar -x -C DIR``); ``--compare DIR`` adds a row
``off-cmp``, the cache-off command with that package, to every round.

Measured 2026-12-07 on a 2-CPU VM shared with other engineers (load average 10-25 all
along: every time below is stretched by the neighbours and the page cache was churned, so
the files were read from the disk; the ratios of one round hold better than the times):

  .venv/bin/python benchmarks/bench_scale.py --tasks --workdir /tmp/scale-bench \
      --floors bytes1 bytes2 orjson2 --repeat 3          (12:20 UTC, load 17 -> 20)
  | 89x5x5120KB | bytes2  |  4.98 |  0.84 |  18 |  23 |  10 | 2.85-7.27 |
  | 89x5x5120KB | orjson2 | 39.75 | 10.19 |  64 | 120 | 106 | 39.72-44.40 |
  | 89x5x5120KB | off     |  5.58 |  1.64 |  38 | 102 |  61 | 3.92-6.29 |
  | 89x5x5120KB | first   |  6.54 |  1.59 |  38 | 103 |  62 | 4.18-7.89 |
  | 89x5x5120KB | warm    |  0.59 |  0.11 |  22 |  22 |  13 | 0.24-0.70 |
  wall off/bytes2 1.12 (target 2.5); first/off 1.17 wall, 1.01 tree RSS; the three
  outputs identical (sha256 ba8f48ef913ec2c5).

The million-task run (fixtures/make_large_run.py --tasks 1000000 --k 3 --trajectory-kb 1
--workers 2 --no-resolved-plans --link-checkpoints, in two parts joined by --resume: 33 min
at load 10-23, about 41 GB and 8.8 M inodes with its 2.7 GB progress.jsonl): one pass over
its files took about 25 min at that load (the bytes2 floor had read a third of them after
10 min when it was stopped), so its rows are one round, measured without floors:
  .venv/bin/python benchmarks/bench_scale.py --tasks --run 1000000 3 1 --no-big \
      --workdir /tmp/scale-bench --floors --what off first warm --repeat 1 --cap-gb 8 \
      [--src DIR]     (12:53 UTC, load 10 -> 25; main 90acdd8 and, with --src, the
                       wt-mem branch at ddf605c, the two run side by side)
  | 1000000x3x1KB main | off   | 1467.23 | 279.58 | 2187 | 3211 | 2623 |
  | 1000000x3x1KB main | first | exceeded 8 GB (its parent at 6.6 GB, tree 7.1 GB, when stopped) |
  | 1000000x3x1KB mem  | off   | 1465.87 | 276.39 | 1524 | 2556 | 1966 |
  | 1000000x3x1KB mem  | first |  912.93 | 331.02 | 2657 | 3125 | 2651 |
  | 1000000x3x1KB mem  | warm  |  324.53 | 174.78 | 1819 | 3633 | 2628 |
  The reports of off (both) / first / warm are identical (sha256 c2a74d9fa6cdaff5). The
  cache-off tree RSS sums the parent and two readers forked after the parent had listed the
  million folders (about 480 MB each at their start, shared with it: PSS 1966 of 2556 MB).
Main at 25d00a9 (the memory work in), 13:42 UTC, load 0.6 -> 3.6, floors in the same run:
  ... --floors bytes2 orjson2 --what off --repeat 1 --cap-gb 8
  | 1000000x3x1KB | bytes2  | 364.65 | 267.75 |  301 |  414 |  394 |
  | 1000000x3x1KB | orjson2 | 332.64 | 243.57 |  209 |  415 |  392 |
  | 1000000x3x1KB | off     | 391.74 | 321.48 | 1528 | 2564 | 1981 |
  off / orjson2 1.18 (wall), off / bytes2 1.07. Then 9810bf8 (readers of 100,000 folders
  or more start from the fork server), 14:23 UTC, load 2.8 -> 3.7, --floors --what off:
  | 1000000x3x1KB | off     | 384.04 |  (*)   | 1513 | 1551 | 1529 |
  (*) 30.21 printed: wait4 missed the readers, reaped by the fork server; counted since.
Warm reopen against the lstat floor (wt-warm1m), the 1M store written once by a first
open (13:31 min) and kept with --cache; the lstat2 row measured after the warm one:
  ... --tasks --run 1000000 3 1 --no-big --cache DIR --floors lstat2 --what warm --repeat 1
  | 1000000x3x1KB | warm   | 476.64 | 128.07 | 1062 | 1718 | 1049 |  (15:50 UTC, load 15,
  | 1000000x3x1KB | lstat2 | 246.59 | 115.10 |  275 |  369 |  336 |   another 1M read on)
  | 1000000x3x1KB | warm   | 197.13 | 110.80 | 1058 | 1717 | 1011 |  (16:04 UTC, load 5.5)
  | 1000000x3x1KB | lstat2 | 213.94 | 104.68 |  275 |  367 |  336 |
  warm/lstat2: 1.93 and 0.92 wall, 1.11 and 1.06 CPU; the report identical (c2a74d9fa6cdaff5).
  The inode cache cannot hold the run's ~8M inodes here: both rows read inode tables from
  the disk (docs/decisions/store.md). 10k / 100k, 16:02 UTC, load 6 -> 5.5, the check
  before (HEAD b9f3d14, --src) and after, alternating, two rounds each (warm s / CPU s /
  largest process MB; lstat2 s):
  ... --tasks 10000 100000 --no-big --floors lstat2 --what first warm --repeat 1 [--src]
  | 10000  after  | 0.17, 0.20 | 0.24, 0.23 |  34 | lstat2 0.21, 0.18 |
  | 10000  before | 0.40, 0.19 | 0.25, 0.24 |  40 | lstat2 0.19, 0.09 |
  | 100000 after  | 3.47, 1.59 | 2.90, 1.77 | 128 | lstat2 1.46, 1.36 |
  | 100000 before | 2.35, 3.09 | 1.92, 1.99 | 203 | lstat2 1.36, 1.42 |
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FLOOR = (
    next(
        (p for p in (ROOT.parent / "shared", ROOT.parents[1] / "shared") if p.is_dir()),
        ROOT.parent / "shared",
    )
    / "bench"
    / "read_floor.py"
)  # beside the checkout, or beside its worktrees' folder

INSPECTOR = r"""
import os, sys
src = os.environ.get("BENCH_SCALE_SRC")
if src:  # the editable install's finder would find this checkout first
    sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")]
    sys.path.insert(0, src)
from inspector.cli.main import main
code = main(sys.argv[1:])
sys.stdout.flush()
sys.exit(code)
"""
"""The inspector's command line, from this checkout or from BENCH_SCALE_SRC."""

SPLIT = r"""
mine, kids = names, []
for i in range(1, procs):
    pid = os.fork()
    if pid == 0:
        mine, kids = names[i::procs], None
        break
    kids.append(pid)
if kids is not None:
    mine = names[0::procs]
"""
"""``names`` shared out between ``procs`` forked processes: this one's share is ``mine``
(``kids`` is None in a child)."""

READ_BYTES = (
    r"""
import os, sys
run, procs = sys.argv[1], int(sys.argv[2])
names = []
for state in ("normal", "error", "fatal"):
    base = os.path.join(run, "details", state)
    if os.path.isdir(base):
        names += [os.path.join(base, n) for n in os.listdir(base)]
names.sort()
"""
    + SPLIT
    + r"""total = 0
for folder in mine:
    for rel in ["task.json"] + [e + "/result.json" for e in os.listdir(folder) if e.startswith("attempt-")]:
        with open(os.path.join(folder, rel), "rb", buffering=0) as f:
            while chunk := f.read(1 << 20):
                total += len(chunk)
if kids is None:
    os._exit(0)
for pid in kids:
    os.waitpid(pid, 0)
"""
)
"""The bytes of every task.json and result.json of a run (or of every run of a root),
read by N forked processes and dropped: the least any reader spends."""


LSTAT = (
    r"""
import os, sys
run, procs, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.chdir(run)
names = []
for state in ("normal", "error", "fatal"):
    if os.path.isdir(f"details/{state}"):
        names += [f"details/{state}/{name}" for name in sorted(os.listdir(f"details/{state}"))]
ends = ["", "/task.json"] + [f"/attempt-{n}/result.json" for n in range(1, k + 1)]
"""
    + SPLIT
    + r"""if kids is not None:
    for name in ("run_info.json", "params.json", "metrics.json", "summary.md"):
        try:
            os.lstat(name)
        except FileNotFoundError:
            pass
lstat = os.lstat
for folder in mine:
    for end in ends:
        try:
            lstat(folder + end)
        except FileNotFoundError:
            pass
if kids is None:
    os._exit(0)
for pid in kids:
    os.waitpid(pid, 0)
"""
)
"""What a warm reopen cannot do without: the task folders listed, then one ``lstat`` of
every file a run's index covers (the run-level files, each task folder, its task.json and
its attempts' result.json) by N forked processes, nothing compared."""


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants now (through /proc/PID/task/*/children)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as stream:
                    todo += [int(child) for child in stream.read().split()]
        except OSError:
            continue
    return found


def memory(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of ``pid`` in bytes: PSS splits the pages a forked reader shares with its
    parent between them, which RSS counts in each (0, 0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as stream:
            fields = dict(line.split(":", 1) for line in stream.read().splitlines()[1:])
        return int(fields["Rss"].split()[0]) * 1024, int(fields["Pss"].split()[0]) * 1024
    except (OSError, ValueError, KeyError):
        return 0, 0


def subreaper() -> None:
    """Become the reaper of the commands' orphans (Linux ``PR_SET_CHILD_SUBREAPER``): a fork
    server outlives the command that started it by a moment, and its CPU (with its
    readers') would otherwise go to init, not to the measured tree."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def orphans_reaped(seen: set[int], timeout: float = 30.0) -> None:
    """Reap the measured tree's orphans (pids in ``seen``) that came to this process (see
    subreaper), waiting for them at most ``timeout`` seconds; other children are left."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        mine = [pid for pid in tree(os.getpid())[1:] if pid in seen]
        if not mine:
            return
        for pid in mine:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
        time.sleep(0.02)


def measure(
    argv: list[str], env: dict[str, str], cap: int, out: Path | None = None
) -> tuple[float, float, float, float, float] | None:
    """(wall s, CPU s of the tree, peak RSS MB of the largest process, peak RSS and PSS MB
    of the tree), or None when the tree passed ``cap`` bytes (RSS) and was killed. The
    command's standard output goes to ``out`` (else nowhere)."""
    subreaper()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    sink = open(out, "wb") if out else subprocess.DEVNULL  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        argv,
        env=env,
        cwd=ROOT,
        stdout=sink,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    if out:
        sink.close()  # type: ignore[union-attr]
    peak = [0, False, 0]
    seen: set[int] = set()

    def sample() -> None:
        while proc.returncode is None:
            pids = tree(proc.pid)
            seen.update(pids)
            sizes = [memory(pid) for pid in pids]
            total = sum(size[0] for size in sizes)
            peak[0] = max(peak[0], total)
            peak[2] = max(peak[2], sum(size[1] for size in sizes))
            if total > cap and not peak[1]:
                peak[1] = True
                os.killpg(proc.pid, signal.SIGKILL)  # the group started here, nothing else
            time.sleep(0.02)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - began
    proc.returncode = os.waitstatus_to_exitcode(status)
    watcher.join()
    orphans_reaped(seen)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if peak[1]:
        return None
    if proc.returncode not in (0, 1):  # check / gate: 1 is an answer; say any other
        shown = " ".join(part for part in argv[1:] if "\n" not in part)
        print(f"# {shown} exited {proc.returncode}: {err.strip()[-300:]}", flush=True)
    # The tree's CPU: the command, what it reaped, and what was left to this process (a fork
    # server's readers are reaped by it, and it by us once the command has gone).
    cpu = sum(getattr(after, f) - getattr(before, f) for f in ("ru_utime", "ru_stime"))
    return wall, cpu, usage.ru_maxrss / 1024, peak[0] / 2**20, peak[2] / 2**20


def generate(run: Path, tasks: int, k: int, kb: float, model: str = "") -> None:
    if (run / "run_info.json").exists():
        return
    began = time.perf_counter()
    argv = [
        sys.executable,
        str(ROOT / "fixtures" / "make_large_run.py"),
        "--out",
        str(run),
        "--tasks",
        str(tasks),
        "--k",
        str(k),
        "--trajectory-kb",
        str(kb),
        "--seed",
        "1",
        "--workers",
        "2",
        "--resume",  # an interrupted generation is completed, not started again
    ]
    if tasks >= 200_000:
        argv.append("--no-resolved-plans")  # run_info.json would hold a plan per attempt
        argv.append("--link-checkpoints")  # 3 inodes and 12 KB less a task (report reads none)
    if model:
        argv += ["--model", model]
    subprocess.run(argv, check=True, stderr=subprocess.DEVNULL)
    print(f"# generated {run} in {time.perf_counter() - began:.1f} s", flush=True)


def store_metrics(run: Path, env: dict[str, str]) -> None:
    """Write the run's metrics.json as AgentCompass would (the inspector's report, equal to
    it on every conformance run), so that ``check`` and ``gate`` have one to compare."""
    if (run / "metrics.json").exists():
        return
    argv = [sys.executable, "-c", INSPECTOR, "report", str(run), "--json"]
    done = subprocess.run(argv, env=dict(env, INSPECTOR_CACHE="0"), capture_output=True, check=True)
    (run / "metrics.json").write_bytes(done.stdout)


def runs_of(target: Path) -> list[Path]:
    return (
        [target]
        if (target / "details").is_dir()
        else sorted(p for p in target.iterdir() if p.is_dir())
    )


def bench(
    label: str,
    target: Path,
    command: list[str],
    args: argparse.Namespace,
    base: dict[str, str],
    k: int = 3,
) -> None:
    cap = int(args.cap_gb * 2**30)
    py = sys.executable
    runs = runs_of(target)
    floors: dict[str, list[list[str]]] = {
        "bytes1": [[py, "-c", READ_BYTES, str(run), "1"] for run in runs],
        "bytes2": [[py, "-c", READ_BYTES, str(run), "2"] for run in runs],
        "lstat1": [[py, "-c", LSTAT, str(run), "1", str(k)] for run in runs],
        "lstat2": [[py, "-c", LSTAT, str(run), "2", str(k)] for run in runs],
        "orjson1": [[py, args.floor, str(run), "--parser", "orjson"] for run in runs],
        "orjson2": [
            [py, args.floor, str(run), "--parser", "orjson", "--procs", "2"] for run in runs
        ],
    }
    inspector = [py, "-c", INSPECTOR, *command]
    cache_dir = Path(args.workdir) / f"cache-{os.getpid()}"  # two benches may share a workdir
    if args.cache:  # a store written before: warm rounds without a first open each
        cache_dir = Path(args.cache)
    rows: dict[str, list[tuple[float, float, float, float, float] | None]] = {}
    digests: dict[str, set[str]] = {}  # sha256 of each inspector row's standard output

    def inspect(name: str, env: dict[str, str]) -> tuple[float, ...] | None:
        out = Path(args.workdir) / f"{name}-{os.getpid()}.out"
        result = measure(inspector, env, cap, out)
        rows.setdefault(name, []).append(result)
        shown = "exceeded" if result is None else " ".join(f"{value:.2f}" for value in result)
        print(f"# {label} {name}: {shown}", file=sys.stderr, flush=True)  # as it comes
        if result is not None:
            digests.setdefault(name, set()).add(hashlib.sha256(out.read_bytes()).hexdigest())
        out.unlink(missing_ok=True)
        return result

    floors = {name: argvs for name, argvs in floors.items() if name in args.floors}
    # The lstat floors after the inspector rows: in the same state of the kernel's inode
    # cache as the warm open they are the floor of (the first of a round warms it).
    late = {name: argvs for name, argvs in floors.items() if name.startswith("lstat")}

    def measure_floors(which: dict[str, list[list[str]]]) -> None:
        for name, argvs in which.items():
            parts = [measure(argv, base, cap) for argv in argvs]
            rows.setdefault(name, []).append(
                None
                if None in parts
                else tuple(  # type: ignore[arg-type]
                    f(values)
                    for f, values in zip(
                        (sum, sum, max, max, max), zip(*parts, strict=True), strict=True
                    )
                )
            )

    for _ in range(args.repeat):
        measure_floors({name: argvs for name, argvs in floors.items() if name not in late})
        if "off" in args.what:
            inspect("off", dict(base, INSPECTOR_CACHE="0"))
        if args.compare:
            inspect(
                "off-cmp",
                dict(base, INSPECTOR_CACHE="0", BENCH_SCALE_SRC=str(Path(args.compare).resolve())),
            )
        cached = dict(base, INSPECTOR_CACHE="1", XDG_CACHE_HOME=str(cache_dir))
        if "first" in args.what:
            shutil.rmtree(cache_dir, ignore_errors=True)
            if inspect("first", cached) is not None:
                time.sleep(0.2)  # files written just now are racy: let the stamps age
                if "warm" in args.what:
                    inspect("warm", cached)
            # else no store was written: a "warm" open would be another first one
        elif args.cache and "warm" in args.what:
            inspect("warm", cached)
        measure_floors(late)
    if not args.keep_cache and not args.cache:
        shutil.rmtree(cache_dir, ignore_errors=True)
    medians: dict[str, tuple[float, ...]] = {}
    for name, results in rows.items():
        done = [r for r in results if r is not None]
        if len(done) < len(results):
            print(f"| {label} | {name} | exceeded {args.cap_gb:g} GB |{' |' * 5}", flush=True)
            continue
        medians[name] = tuple(statistics.median(r[i] for r in done) for i in range(5))
        wall, cpu, big, whole, shared = medians[name]
        walls = [r[0] for r in done]
        print(
            f"| {label} | {name} | {wall:.2f} | {cpu:.2f} | {big:.0f} | {whole:.0f} | {shared:.0f}"
            f" | {min(walls):.2f}-{max(walls):.2f} |",
            flush=True,
        )
    if "warm" in args.what and "warm" not in rows and "first" in rows:
        print(f"| {label} | warm | not measured (first exceeded) |{' |' * 5}", flush=True)
    ratios = [
        f"{what} {top}/{bottom} {medians[top][i] / medians[bottom][i]:.2f}"
        for what, i, top, bottom in RATIOS
        if top in medians and bottom in medians and medians[bottom][i] > 0
    ]
    print(f"| {label} | ratios | {'; '.join(ratios)} |{' |' * 5}", flush=True)
    same = {name: sorted(found) for name, found in digests.items()}
    first = next(iter(same.values()), ["?"])[0]
    verdict = (
        "identical"
        if all(found == [first] for found in same.values())
        else "DIFFER " + ", ".join(f"{n} {' '.join(d[:12] for d in f)}" for n, f in same.items())
    )
    print(
        f"| {label} | output | {' = '.join(same)}: {verdict} (sha256 {first[:16]}) |{' |' * 5}",
        flush=True,
    )


RATIOS = (
    ("wall", 0, "off", "bytes2"),
    ("wall", 0, "off", "orjson2"),
    ("wall", 0, "off", "off-cmp"),
    ("wall", 0, "first", "off"),
    ("treeRSS", 3, "off", "orjson2"),
    ("treeRSS", 3, "first", "off"),
    ("treeRSS", 3, "warm", "off"),
    ("wall", 0, "warm", "lstat2"),
    ("CPU", 1, "warm", "lstat2"),
)
"""The ratios printed under each run's rows: (column, its index, row, floor row)."""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, nargs="*", default=[1000, 10000, 100000])
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--kb", type=float, default=8, help="KB per attempt of the --tasks runs")
    parser.add_argument(
        "--big", type=float, nargs=3, default=[89, 5, 5120], metavar=("TASKS", "K", "KB")
    )
    parser.add_argument("--no-big", action="store_true")
    parser.add_argument(
        "--run",
        type=float,
        nargs=3,
        action="append",
        metavar=("TASKS", "K", "KB"),
        help="a further run of its own size (repeatable), e.g. --run 1000000 3 1",
    )
    parser.add_argument(
        "--keep-cache", action="store_true", help="leave the last round's store in --workdir"
    )
    parser.add_argument(
        "--cache",
        help="XDG_CACHE_HOME holding stores written before (kept): with --what warm, "
        "warm rounds without a first open each (a million-task first open takes minutes)",
    )
    parser.add_argument("--root", type=float, nargs=4, metavar=("RUNS", "TASKS", "K", "KB"))
    parser.add_argument(
        "--floors",
        nargs="*",
        default=["bytes1", "bytes2", "orjson1", "orjson2"],
        help="the floors to measure (orjson ones take long on large trajectories)",
    )
    parser.add_argument(
        "--what",
        nargs="*",
        choices=("off", "first", "warm"),
        default=["off", "first", "warm"],
        help="the inspector rows to measure (warm needs first)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds (medians)")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "inspector-scale"))
    parser.add_argument("--floor", default=str(DEFAULT_FLOOR), help="read_floor.py")
    parser.add_argument(
        "--cap-gb", type=float, default=8.0, help="kill a measured tree above this RSS"
    )
    parser.add_argument(
        "--src", help="a directory holding the inspector package to measure instead"
    )
    parser.add_argument(
        "--compare", help="also measure 'off' with the inspector package in this directory"
    )
    args = parser.parse_args()
    if args.cache and "first" in args.what:
        parser.error("--cache is for warm rounds only (a first open starts from an empty cache)")
    if not Path(args.floor).is_file():
        sys.exit(f"{args.floor}: no read_floor.py (pass --floor)")
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    base = dict(os.environ, XDG_CACHE_HOME=str(workdir / "cache-unused"))
    base.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: bytecode compiled once
    if args.src:
        base["BENCH_SCALE_SRC"] = str(Path(args.src).resolve())
    print(
        f"# {os.uname().nodename} {os.cpu_count()} CPUs; load {os.getloadavg()}; src {args.src or ROOT}"
    )
    sized = [(tasks, args.k, args.kb) for tasks in args.tasks]
    sized += [(int(t), int(k), kb) for t, k, kb in args.run or []]
    if not args.no_big:
        sized.append((int(args.big[0]), int(args.big[1]), args.big[2]))
    runs = [(workdir / f"run_{tasks}_k{k}_{kb:g}kb", tasks, k, kb) for tasks, k, kb in sized]
    for run, tasks, k, kb in runs:  # all generated first: the table below is one piece
        generate(run, tasks, k, kb)
    if args.root:
        count, tasks, k, kb = int(args.root[0]), int(args.root[1]), int(args.root[2]), args.root[3]
        root = workdir / f"root_{count}x{tasks}_k{k}_{kb:g}kb"
        for number in range(count):
            generate(root / f"run_{number:02d}", tasks, k, kb, model=f"model-{number:02d}")
            store_metrics(root / f"run_{number:02d}", base)
    print(f"# {args.repeat} interleaved rounds, medians; RSS / PSS in MB", flush=True)
    print(
        "| run | what | wall s | CPU s | max RSS | tree RSS | tree PSS | wall min-max |\n"
        "|---|---|---|---|---|---|---|---|",
        flush=True,
    )
    for run, tasks, k, kb in runs:
        bench(f"{tasks}x{k}x{kb:g}KB", run, ["report", str(run), "--json"], args, base, k)
    if args.root:
        for command in (
            ["leaderboard", str(root)],
            ["check", str(root)],
            ["items", str(root)],
            ["gate", str(root)],
        ):
            bench(f"root {command[0]}", root, command, args, base, k)
    print(f"# load after {os.getloadavg()}")


if __name__ == "__main__":
    main()
