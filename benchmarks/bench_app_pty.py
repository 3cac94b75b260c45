"""The app as a user starts it (issue 53, item 3): ``inspector RUN`` in a real terminal.

    nice .venv/bin/python benchmarks/bench_app_pty.py RUN [RUN ...] [--size 140x45]
        [--idle 10] [--repeat 1] [--cli off first] [--no-warm] [--timeout 900] [--cap-gb 6]

The console script ``inspector`` of this checkout's venv runs in a pseudo-terminal of a fixed
size: a tmux server of its own (``tmux -L`` with a socket name made here, no user config),
whose screen is read with ``capture-pane -p`` every 50 ms. tmux is a terminal emulator that
is on most machines and needs nothing added to the project; Python's ``pty`` would need one
(``pyte``) to turn the escape codes into a screen. Times are from the app process's start
(its start time in /proc, against the boot clock; 10 ms ticks):
  frame     anything drawn;
  headline  the series table's headline row (its series id, role ``headline`` and a value);
  settled   the whole run loaded: the loading row gone, the headline's 95 % interval shown,
            the category tree with its nodes and the distribution's values drawn;
  quiet     the first whole second after settled in which the tree used under 2 % of a CPU
            (the background work after the screen is complete: the cache written, the tasks
            screen's rows built);
then peak RSS MB of the app process and of its tree (the app with its reader processes),
RSS and PSS, from /proc every 100 ms; and the CPU seconds the tree used in the ``--idle``
seconds after settled, and in the same span after quiet (nothing should poll: 0.00).
``cold`` starts with a fresh, empty HOME and XDG_CACHE_HOME; ``warm`` starts again with the
same ones (the cache written by the cold open). In the same round the command line's
``report RUN --json`` is measured with the cache off (``INSPECTOR_CACHE=0``) and on a fresh
cache (``first``, the cache written), in fresh processes (wall, tree CPU, peak RSS of the
largest process and of the tree; benchmarks/bench_scale.py's ``measure``); the ratios
printed last are the app's against them: headline / cold CLI (target 1.5) and the app's
tree peak / the CLI's tree peak (target 1.2). The app is then ended with ``q`` and the tmux
server with ``kill-server`` on its own socket; a process of the measured tree still alive
after that is killed by its pid (only the ones started here), as is a tree (the app's or
the CLI's) whose RSS passes ``--cap-gb``. Run it under ``nice`` on a
shared machine; nothing here runs in the test suite.

Figures (issue 53, item 3), 2 cores with a load average of 9-14 from other work, 140x45, one
round each (``nice .venv/bin/python benchmarks/bench_app_pty.py RUN``); seconds, MB:

  run, code             frame headline settled  RSS app/tree  idle 10 s  CLI off / first, tree MB
  10k cold, main         5.45   7.72    9.06     185 / 269     0.02      3.60 / 4.73 s;  99 / 147
  10k warm, main         2.87   2.87    9.67     175 / 277     0.01
  10k cold, this         6.13   7.93    9.16     172 / 255     0.01      6.19 / 5.47 s; 100 / 146
  10k warm, this         2.81   2.81    7.28     174 / 275     0.01
  100k cold, main        4.22  46.50   58.78    1106 / 1188    0.01     56.46 / 37.01 s; 396 / 938
  100k warm, main        4.36   4.36   71.39    1226 / 1432    0.95 (work after settled; quiet 77.5)
  100k cold, this        4.59  51.13   62.14    1044 / 1127    0.01    105.37 / 80.04 s; 396 / 940
  100k warm, this        2.05   2.05   67.31    1214 / 1423    0.01
  100k cold, c8503e0     7.56  48.00   65.52    1035 / 1114    0.45    131.16 / 110.73 s; 395 / 939
                         (the 0.45: work in the 3 s after settled; 0.01 in 10 s after it)
  100k warm, c8503e0     4.30   4.30   88.66    1202 / 1411    0.23 (0.03 after quiet)

("this" is 095a429, the task index's ranks; c8503e0 adds the rows' shared texts, at a load
average of 17-19.) A run of 1,000,000 tasks x k=3 x 1 KB was not measured: at that load the
CLI's cold report had not ended after 18 minutes (1.75 GB, its two readers at 1:44 CPU
minutes each), and the app would have followed it.

Ratios from the same run (the machine's speed drifted 2x between runs): 100k headline /
CLI cold 0.82 (off) and 1.26 (first) on main, 0.49 / 0.64 and 0.37 / 0.43 here; the app's
tree peak / the CLI's 1.27 (first) on main, 1.20 and 1.19 here, 3.0 / 2.85 / 2.82 against
the cache-off CLI, whose largest process holds 242 MB where the app keeps the whole session
(961 MB after settling).
The idle CPU left (0.01-0.02 s in 10 s) is textual's input thread waking every 0.1 s.

1M x k=3 x 1 KB, ``--cli off``, one round each, load 1.5-6 (tree peak MB, its ratio to the
CLI's cache-off tree peak of the same round): on 070cf92 cold 1,915 (1.24), warm 2,237
(1.45), CLI 1,547; with the report store read and written a piece at a time cold 1,913
(1.22), warm 1,780 (1.14), CLI 1,565 (``docs/decisions/store.md``). 100k, load 2-4: cold
313 (1.21) and 316 (1.22), warm 455 (1.76) and 353 (1.36), CLI 259 in both rounds.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scale import measure, memory, tree

ROOT = Path(__file__).resolve().parents[1]
INSPECTOR = Path(sys.executable).with_name("inspector")
TICK = os.sysconf("SC_CLK_TCK")
LOADING = ("Reading and recomputing", "Reading the tasks", "Checking…")
HEADLINE = re.compile(r"^\s*\S+\s+.*\bheadline\b.*\s\d+(\.\d+)?\s")


@dataclass
class Figures:
    frame: float | None = None
    headline: float | None = None
    settled: float | None = None
    quiet: float | None = None
    rss_app: float = 0.0
    rss_tree: float = 0.0
    pss_tree: float = 0.0
    idle: float | None = None
    idle_quiet: float | None = None
    exceeded: bool = False
    shown: str = ""
    per_second: list[float] = field(default_factory=list)


def settled(screen: str) -> bool:
    """The whole run is on screen: nothing loading, the headline's interval, tree, values."""
    if any(text in screen for text in LOADING):
        return False
    lines = screen.splitlines()
    row = next((line for line in lines if HEADLINE.match(line)), "")
    return (
        "[" in row
        and "▼ node" in screen
        and ("├─" in screen or "└─" in screen)
        and ("values" in screen)
    )


def cpu_seconds(pids: list[int]) -> float:
    """CPU used by ``pids`` so far, with their children already reaped."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stream:
                fields = stream.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return total / TICK


def started_at(pid: int) -> float:
    """The process's start on the boot clock (seconds)."""
    with open(f"/proc/{pid}/stat", "rb") as stream:
        return int(stream.read().rsplit(b")", 1)[1].split()[19]) / TICK


def since(start: float) -> float:
    return time.clock_gettime(time.CLOCK_BOOTTIME) - start


class Terminal:
    """A tmux server of its own running one command at a fixed size."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.socket = f"bench-app-pty-{os.getpid()}-{time.monotonic_ns()}"
        self.size = size
        self.path = ""

    def tmux(self, *args: str) -> str:
        argv = ["tmux", "-L", self.socket, "-f", "/dev/null", *args]
        return subprocess.run(argv, capture_output=True, text=True, check=False).stdout

    def start(self, command: str) -> int:
        width, height = self.size
        self.tmux("new-session", "-d", "-s", "bench", "-x", str(width), "-y", str(height), command)
        self.path = self.tmux("display-message", "-p", "-t", "bench", "#{socket_path}").strip()
        return int(self.tmux("list-panes", "-t", "bench", "-F", "#{pane_pid}").split()[0])

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "bench")

    def close(self) -> None:
        """End the server, and remove its socket (tmux leaves it)."""
        self.tmux("kill-server")
        if self.path.startswith("/") and self.socket in self.path:
            with contextlib.suppress(OSError):
                os.unlink(self.path)


def run_app(run: Path, home: Path, args: argparse.Namespace) -> Figures:
    figures = Figures()
    env = {
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "LC_ALL": "C.UTF-8",
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    assigns = " ".join(f"{name}='{value}'" for name, value in env.items())
    command = f"exec env -i {assigns} '{INSPECTOR}' '{run}'"
    terminal = Terminal(args.size)
    seen: set[int] = set()
    pid = terminal.start(command)
    start = started_at(pid)
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.1):
            pids = tree(pid)
            seen.update(pids)
            sizes = [memory(p) for p in pids]
            figures.rss_app = max(figures.rss_app, memory(pid)[0] / 2**20)
            figures.rss_tree = max(figures.rss_tree, sum(s[0] for s in sizes) / 2**20)
            figures.pss_tree = max(figures.pss_tree, sum(s[1] for s in sizes) / 2**20)
            if figures.rss_tree > args.cap_gb * 1024 and not figures.exceeded:
                figures.exceeded = True  # the tree started here, killed by its pids
                for left in pids:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(left, signal.SIGKILL)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        deadline = time.monotonic() + args.timeout
        while figures.settled is None and time.monotonic() < deadline and not figures.exceeded:
            screen = terminal.screen()
            now = since(start)
            if figures.frame is None and screen.strip():
                figures.frame = now
            if figures.headline is None:
                row = next((ln for ln in screen.splitlines() if HEADLINE.match(ln)), None)
                if row is not None:
                    figures.headline, figures.shown = now, " ".join(row.split())
            if settled(screen):
                figures.settled = now
            time.sleep(0.05)
        if figures.exceeded:
            print(f"# {run.name}: the app's tree passed {args.cap_gb} GB, killed", flush=True)
        elif figures.settled is not None:
            idle_cpu(pid, figures, args.idle)
    finally:
        stop.set()
        sampler.join()
        terminal.tmux("send-keys", "-t", "bench", "q")
        end = time.monotonic() + 10
        while time.monotonic() < end and os.path.exists(f"/proc/{pid}"):
            time.sleep(0.1)
        terminal.close()
        for left in seen:  # only the processes of the tree started here
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(left, signal.SIGKILL)
    return figures


def idle_cpu(pid: int, figures: Figures, span: float) -> None:
    """CPU of the tree over ``span`` s after settled, per second until quiet, and ``span``
    s after quiet."""
    first = cpu_seconds(tree(pid))
    last, began = first, time.monotonic()
    while time.monotonic() - began < 120:
        time.sleep(1.0)
        now = cpu_seconds(tree(pid))
        figures.per_second.append(now - last)
        last = now
        elapsed = time.monotonic() - began
        if figures.idle is None and elapsed >= span - 0.01:
            figures.idle = now - first
        if figures.quiet is None and figures.per_second[-1] < 0.02:
            figures.quiet = figures.settled + elapsed  # type: ignore[operator]
            quiet_from = now
        if figures.quiet is not None and figures.idle is not None:
            break
    if figures.quiet is None:
        return
    time.sleep(span)
    figures.idle_quiet = cpu_seconds(tree(pid)) - quiet_from


def run_cli(
    run: Path, home: Path, off: bool, cap_gb: float
) -> tuple[float, float, float, float, float] | None:
    env = dict(
        os.environ,
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        INSPECTOR_CACHE="0" if off else "1",
    )
    return measure([str(INSPECTOR), "report", str(run), "--json"], env, int(cap_gb * 2**30))


def fmt(value: float | None, spec: str = "7.2f") -> str:
    return format(value, spec) if value is not None else f"{'-':>{spec.split('.')[0]}}"


def bench(run: Path, args: argparse.Namespace) -> None:
    apps: dict[str, list[Figures]] = {}
    clis: dict[str, list[tuple[float, float, float, float, float]]] = {}
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="bench-app-pty-") as tmp:
            for which in args.cli:
                name = f"cli {which}"
                result = run_cli(
                    run, Path(tmp) / name.replace(" ", "-"), which == "off", args.cap_gb
                )
                if result is None:
                    print(f"# {run.name} {name}: the tree passed {args.cap_gb} GB, killed")
                else:
                    clis.setdefault(name, []).append(result)
            home = Path(tmp) / "app"
            apps.setdefault("app cold", []).append(run_app(run, home, args))
            if not args.no_warm:
                time.sleep(0.2)
                apps.setdefault("app warm", []).append(run_app(run, home, args))
    label = run.name[-24:]
    print(
        f"{'run':>24} {'what':>9} {'frame':>7} {'headln':>7} {'settled':>7} {'quiet':>7}"
        f" {'rssApp':>7} {'rssTree':>7} {'pssTree':>7} {'idle':>6} {'idleQ':>6}"
    )
    med = {}
    for name, results in apps.items():
        row = {}
        for key in ("frame", "headline", "settled", "quiet", "rss_app", "rss_tree", "pss_tree",
                    "idle", "idle_quiet"):  # fmt: skip
            values = [getattr(f, key) for f in results if getattr(f, key) is not None]
            row[key] = statistics.median(values) if values else None
        med[name] = row
        print(
            f"{label:>24} {name:>9} {fmt(row['frame'])} {fmt(row['headline'])}"
            f" {fmt(row['settled'])} {fmt(row['quiet'])} {fmt(row['rss_app'], '7.0f')}"
            f" {fmt(row['rss_tree'], '7.0f')} {fmt(row['pss_tree'], '7.0f')}"
            f" {fmt(row['idle'], '6.2f')} {fmt(row['idle_quiet'], '6.2f')}"
        )
        for figures in results:
            seconds = " ".join(f"{s:.2f}" for s in figures.per_second)
            print(f"{'':>24} {'':>9} headline row: {figures.shown!r}; CPU s per s: {seconds}")
    print(f"{'':>24} {'what':>9} {'wall s':>7} {'cpu s':>7} {'maxRSS':>7} {'treeRSS':>7}")
    cli = {}
    for name, results in clis.items():
        cli[name] = [statistics.median(r[i] for r in results) for i in range(5)]
        wall, cpu, big, whole, _ = cli[name]
        print(f"{label:>24} {name:>9} {wall:7.2f} {cpu:7.2f} {big:7.0f} {whole:7.0f}")
    ratios = []
    for app_name, cli_name in (("app cold", "cli off"), ("app cold", "cli first")):
        app_row, cli_row = med.get(app_name), cli.get(cli_name)
        if app_row and cli_row and app_row["headline"] is not None:
            ratios.append(f"{app_name} headline/{cli_name} {app_row['headline'] / cli_row[0]:.2f}")
            ratios.append(f"tree RSS/{cli_name} {app_row['rss_tree'] / cli_row[3]:.2f}")
    if "app warm" in med and "cli first" in cli:
        ratios.append(
            f"app warm tree RSS/cli first {med['app warm']['rss_tree'] / cli['cli first'][3]:.2f}"
        )
    if ratios:
        print(f"{label:>24}    ratios {'; '.join(ratios)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--size", default="140x45", help="terminal columns x rows")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle CPU measured")
    parser.add_argument("--repeat", type=int, default=1, help="rounds (medians)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds to settle")
    parser.add_argument(
        "--cli", nargs="*", default=["off", "first"], choices=["off", "first"],
        help="the CLI's cold reports measured (none: the app only)",
    )  # fmt: skip
    parser.add_argument(
        "--cap-gb", type=float, default=6.0, help="kill a measured tree above this RSS"
    )
    parser.add_argument("--no-warm", action="store_true", help="the cold open only")
    args = parser.parse_args()
    args.size = tuple(int(part) for part in args.size.split("x"))
    if shutil.which("tmux") is None:
        sys.exit("tmux is not installed: the app is measured in a tmux pseudo-terminal")
    if not INSPECTOR.is_file():
        sys.exit(f"{INSPECTOR}: no console script beside this Python (install the checkout)")
    print(f"# {os.uname().nodename} {os.cpu_count()} CPUs; load {os.getloadavg()}; {ROOT}")
    for run in args.runs:
        bench(run.resolve(), args)


if __name__ == "__main__":
    main()
