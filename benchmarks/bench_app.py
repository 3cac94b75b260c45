"""App benchmark (issue 6): the overview and the tasks table of a large run, with Pilot.

    .venv/bin/python benchmarks/bench_app.py RUN [RUN ...] [--repeat 5] [--size 140x45] [--floor]

Each run is opened in a fresh process: the app is started headless with
``app.run_test(size=...)`` and the script prints wall times from the start of that process:
  imports    textual and the inspector imported;
  overview   the overview screen is up (its progress bar shows);
  progress   the progress bar shows the first task folders read;
  series     the series table has rows: the headline series is on screen;
  early      (before textual is imported, as `inspector RUN` does) the run's cached report
             found, or its reader processes started;
  tree       the category tree follows the headline series (the whole run is loaded);
then, on the tasks screen (key ``t``):
  tasks      the tasks table has its rows;
  sort       ``s`` on the State column (again: reversed) until the table shows that order;
  text       one key typed into (or deleted from) the text filter, until the table shows the
             matches;
  state      the state / count select set to each token, until the table shows the matches;
  scroll     page down, page down, ctrl+end, page up, ctrl+home, until the cursor row is drawn;
each repeated (median and max), then the cyclic garbage collector's full collections and the
peak memory: of the app process (``resource.getrusage``) and of the app with its reader
processes (sampled from /proc every 250 ms); last,
  reopen     a new overview of the same run (as from the runs screen): seconds until its series
             table has rows, and until the whole run is loaded again.

A step is done when the screen has taken the change and its table holds what
:mod:`inspector.views.tasks` says it should (computed beforehand, outside the timing), and one
frame has been composed. Keys go straight to the driver, as a terminal sends them
(``Pilot.press`` also waits for idleness, at least 40 ms, which would swamp the figures).
``--phases`` also prints when collecting the read started and ended inside the app and how
long scoring took after it (PendingRead.finish, which collects and then calls score_run, both
wrapped by this script). ``--floor`` first times the single-process read floor
(``../shared/bench/read_floor.py RUN --parser orjson``, or ``--floor-script``) in a fresh
process; ``--rounds N`` alternates the floor and the app N times and prints the medians and
the headline series against the floor (the machine's speed drifts; a round compares the two
under the same conditions). With the cache on, the app opens the run once before the rounds,
so every round is a cached open. The targets of issue 11, at 50,000 tasks:

    INSPECTOR_CACHE=0 .venv/bin/python benchmarks/bench_app.py RUN --rounds 3 --repeat 1
        # cold: series / floor <= 1
    .venv/bin/python benchmarks/bench_app.py RUN --rounds 3 --repeat 1
        # cached: series <= 1 s

The cache follows the environment (``INSPECTOR_CACHE=0`` disables it, ``INSPECTOR_WORKERS=N``
sets the reader processes); ``BENCH_GC=1`` also lists when each full collection ran. Nothing
here runs in the test suite; the figures go in the issue notes.
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import argparse  # noqa: E402
import asyncio  # noqa: E402
import gc  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

EARLY = None
if __name__ == "__main__" and "--one" in sys.argv:
    # As `inspector RUN` does (inspector.cli.main.cmd_app): before textual is imported, the
    # run's cached report is looked up, else its reader processes are started.
    from inspector.loading import prepare_app

    EARLY = prepare_app([Path(sys.argv[1])])
EARLY_DONE = time.perf_counter()

if __name__ == "__main__":
    # Not when the reader processes import this script as __mp_main__ (forkserver): the
    # inspector's own command costs them only inspector.cli.
    from textual import events
    from textual.pilot import Pilot
    from textual.widgets import Input, Select

    from inspector.app.app import InspectorApp
    from inspector.app.screens.overview import OverviewScreen
    from inspector.app.screens.tasks import TasksScreen
    from inspector.views.tasks import (
        STATE_FILTERS,
        TaskFilter,
        TaskRow,
        filter_rows,
        sort_rows,
        task_rows,
    )
    from widgets.task_table import TaskTable

IMPORTED = time.perf_counter()
POLL = 0.001
TIMEOUT = 600.0
SCROLL_KEYS = ("pagedown", "pagedown", "ctrl+end", "pageup", "ctrl+home")


class Collections:
    """The cyclic garbage collector's passes over its oldest generation (UI pauses)."""

    def __init__(self) -> None:
        self.pauses: list[tuple[float, float]] = []
        self._start = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.pauses.append((self._start - STARTED, time.perf_counter() - self._start))

    def report(self) -> str:
        longest = max((pause for _, pause in self.pauses), default=0.0) * 1000
        line = f"  {'gc':<8} {len(self.pauses)} full collections, longest {longest:.0f} ms"
        if os.environ.get("BENCH_GC"):
            line += "".join(f"\n    at {at:6.2f} s: {p * 1000:4.0f} ms" for at, p in self.pauses)
        return line


class TreeMemory(threading.Thread):
    """Peak resident memory of this process and its descendants (the reader processes)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = 0
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(0.25):
            self.peak = max(self.peak, tree_rss(os.getpid()))

    def stop(self) -> float:
        self._done.set()
        self.join()
        return self.peak / 1024


def tree_rss(root: int) -> int:
    """KB resident in ``root`` and every process below it (read from /proc)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stream:
                fields = stream.read().rsplit(b")", 1)[1].split()
            with open(f"/proc/{entry}/statm", "rb") as stream:
                pages = int(stream.read().split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents[int(entry)] = int(fields[1])
        rss[int(entry)] = pages * os.sysconf("SC_PAGE_SIZE") // 1024
    total = 0
    for pid in rss:
        node = pid
        while node not in (0, 1, root) and node in parents:
            node = parents[node]
        if node == root:
            total += rss[pid]
    return total


def since_start() -> float:
    return time.perf_counter() - STARTED


async def until(predicate: Callable[[], bool], what: str) -> None:
    """Poll, on the app's own event loop, until ``predicate`` holds."""
    deadline = time.perf_counter() + TIMEOUT
    while not predicate():
        if time.perf_counter() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(POLL)


def compose_frame(pilot: Pilot[None]) -> None:
    """Compose and write one frame now (what the screen's update timer does next)."""
    pilot.app.screen._on_timer_update()


def key(pilot: Pilot[None], name: str, char: str | None = None) -> None:
    """Send one key event the way the terminal driver does."""
    driver = pilot.app._driver
    assert driver is not None
    event = events.Key(name, char)
    event.set_sender(pilot.app)
    driver.send_message(event)


async def timed(pilot: Pilot[None], act: Callable[[], None], done: Callable[[], bool]) -> float:
    """Seconds from ``act()`` until ``done()`` holds and a frame is composed."""
    await asyncio.sleep(0.05)  # the previous step's timers and refreshes run first
    start = time.perf_counter()
    act()
    await until(done, "step")
    compose_frame(pilot)
    return time.perf_counter() - start


def shows(
    screen: TasksScreen,
    rows: Sequence[TaskRow],
    task_filter: TaskFilter,
    column: str | None = None,
    reverse: bool = False,
) -> Callable[[], bool]:
    """True once the screen has taken ``task_filter`` and the sort, and its table holds what
    :mod:`inspector.views.tasks` says (worked out now, before the step is timed)."""
    expected = filter_rows(rows, task_filter)
    if column is not None:
        expected = sort_rows(expected, column, reverse)
    head = [row.task_id for row in expected[:50]]

    def check() -> bool:
        table = screen.task_table
        return (
            screen.task_filter == task_filter
            and (screen.sort_column, screen.sort_reverse) == (column, reverse)
            and table.row_count == len(expected)
            and [table.task_id_at(i) for i in range(min(50, table.row_count))] == head
        )

    return check


def row_drawn(table: TaskTable, row: int) -> bool:
    top = table.scroll_offset.y
    return top <= row < top + table.scrollable_content_region.height - table.header_height


def summary(name: str, times: list[float]) -> str:
    ms = [t * 1000 for t in times]
    median, worst = statistics.median(ms), max(ms)
    return f"  {name:<8} n={len(ms):<3} median {median:6.1f} ms   max {worst:6.1f} ms"


def time_phases() -> dict[str, float]:
    """Record when the one door's reading and scoring start and end (``--phases``)."""
    import inspector.loading.reading as session

    marks: dict[str, float] = {}

    def timed_call(name: str, function: Callable[..., object]) -> Callable[..., object]:
        def call(*args: object, **kwargs: object) -> object:
            marks[f"{name} start"] = since_start()
            try:
                return function(*args, **kwargs)
            finally:
                marks[f"{name} end"] = since_start()

        return call

    from inspector.loading.reading import PendingRead

    # Every read, started before the app (inspector.loading.prepare_app) or not, is finished here.
    PendingRead.finish = timed_call("read", PendingRead.finish)  # type: ignore[method-assign]
    session.score_run = timed_call("score", session.score_run)  # type: ignore[assignment]
    return marks


async def bench(run: Path, repeat: int, size: tuple[int, int], phases: bool = False) -> None:
    phase_marks = time_phases() if phases else {}
    memory = TreeMemory()
    memory.start()
    collections = Collections()
    from inspector.app.settings import Settings

    app = InspectorApp([run], settings=Settings(early=EARLY))
    app.animation_level = "none"
    marks: dict[str, float] = {}
    async with app.run_test(size=size) as pilot:

        def overview() -> OverviewScreen | None:
            screen = app.screen
            return screen if isinstance(screen, OverviewScreen) and screen.is_mounted else None

        await until(lambda: overview() is not None, "overview")
        marks["overview"] = since_start()
        screen = overview()
        assert screen is not None
        bar = screen.progress_bar
        # Recorded as each happens: a cached report puts the series on screen before any
        # progress is shown.
        conditions = {
            "progress": lambda: bar.total is not None or screen.session is not None,
            "series": lambda: screen.series_table.row_count > 0,
        }
        deadline = time.perf_counter() + TIMEOUT
        while len(marks) < 3:
            for name, condition in conditions.items():
                if name not in marks and condition():
                    compose_frame(pilot)
                    marks[name] = since_start()
            if time.perf_counter() > deadline:
                raise TimeoutError("progress / series")
            await asyncio.sleep(POLL)
        marks = dict(sorted(marks.items(), key=lambda item: item[1]))
        await until(lambda: len(screen.category_tree.root.children) > 0, "tree")
        compose_frame(pilot)
        marks["tree"] = since_start()
        for name, value in marks.items():
            print(f"  {name:<8} {value:7.2f} s from the start of the process")
        if phase_marks:
            score = phase_marks["score end"] - phase_marks["score start"]
            print(
                f"    (reading collected from {phase_marks['read start']:.2f} s to"
                f" {phase_marks['score start']:.2f} s, scoring {score:.2f} s after)"
            )
        rec = screen.recomputation
        assert rec is not None

        start = time.perf_counter()
        key(pilot, "t", "t")
        await until(
            lambda: (
                isinstance(app.screen, TasksScreen)
                and bool(app.screen.query(TaskTable))
                and app.screen.task_table.row_count > 0
            ),
            "tasks",
        )
        compose_frame(pilot)
        seconds = time.perf_counter() - start
        print(f"  {'tasks':<8} {seconds:7.2f} s after t, for {len(rec.tasks)} tasks")
        tasks = app.screen
        assert isinstance(tasks, TasksScreen)
        rows = task_rows(rec, tasks.task_filter.series_id)
        gc.freeze()  # the script's reference rows: keep them out of the app's collections
        table = tasks.task_table

        table.move_cursor(column=table.get_column_index("state"))
        await pilot.pause()
        sorts = []
        for index in range(2 * repeat):
            done = shows(tasks, rows, tasks.task_filter, "state", reverse=index % 2 == 1)
            sorts.append(await timed(pilot, lambda: key(pilot, "s", "s"), done))
        print(summary("sort", sorts))

        sort = (tasks.sort_column, tasks.sort_reverse)
        tasks.filter_bar.query_one("#text", Input).focus()
        await pilot.pause()
        needle = "q0001"
        typed = []
        for _ in range(repeat):
            for count in [*range(1, len(needle) + 1), *range(len(needle) - 1, -1, -1)]:
                grows = count > len(tasks.task_filter.text)
                done = shows(
                    tasks, rows, tasks.task_filter.with_changes(text=needle[:count]), *sort
                )
                char = needle[count - 1]
                press = (
                    (lambda c=char: key(pilot, c, c)) if grows else lambda: key(pilot, "backspace")
                )
                typed.append(await timed(pilot, press, done))
        print(summary("text", typed))

        select = tasks.filter_bar.query_one("#state", Select)
        states = []
        for _ in range(repeat):
            for token in [*(token for token, _ in STATE_FILTERS), None]:
                done = shows(tasks, rows, tasks.task_filter.with_changes(state=token), *sort)

                def choose(token: str | None = token) -> None:
                    select.value = Select.NULL if token is None else token

                states.append(await timed(pilot, choose, done))
        print(summary("state", states))

        table.focus()
        await pilot.pause()
        scrolls = []
        for _ in range(repeat):
            for name in SCROLL_KEYS:

                def moved(before: int = table.cursor_row) -> bool:
                    return table.cursor_row != before and row_drawn(table, table.cursor_row)

                scrolls.append(await timed(pilot, lambda n=name: key(pilot, n), moved))
        print(summary("scroll", scrolls))
        print(collections.report())
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"  {'memory':<8} peak {own:.0f} MB (app process), {memory.stop():.0f} MB (with readers)"
        )
        app.pop_screen()  # back to the overview
        await pilot.pause()
        # Reopen the run, as from the runs screen: a new overview of the same run, after a
        # second of quiet (as a person would), repeated.
        to_series, to_run = [], []
        for _ in range(repeat):
            await asyncio.sleep(1.0)
            reopened = OverviewScreen(run)
            start = time.perf_counter()
            await app.push_screen(reopened)
            await until(lambda s=reopened: s.series_table.row_count > 0, "reopen")
            compose_frame(pilot)
            to_series.append(time.perf_counter() - start)
            await until(lambda s=reopened: s.session is not None, "reopen loaded")
            to_run.append(time.perf_counter() - start)
            app.pop_screen()
            await pilot.pause()
        print(
            f"  {'reopen':<8} n={repeat:<3} series median {statistics.median(to_series):.2f} s"
            f" max {max(to_series):.2f} s; whole run median {statistics.median(to_run):.2f} s"
        )


DEFAULT_FLOOR = ROOT.parent / "shared" / "bench" / "read_floor.py"


def floor(run: Path, script: Path) -> float:
    """Wall time of the single-process read floor (``read_floor.py RUN --parser orjson``:
    walk and orjson-parse every task file) in a fresh process."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, str(script), str(run), "--parser", "orjson"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--size", default="140x45")
    parser.add_argument("--floor", action="store_true", help="time the bare floor first")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="interleaved floor/app rounds (medians); implies --floor",
    )
    parser.add_argument(
        "--phases", action="store_true", help="also time reading and scoring inside the app"
    )
    parser.add_argument("--floor-script", type=Path, default=DEFAULT_FLOOR, help="read_floor.py")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    width, height = (int(part) for part in args.size.split("x"))
    if (args.floor or args.rounds > 1) and not args.floor_script.is_file():
        sys.exit(f"{args.floor_script}: no read_floor.py (pass --floor-script)")
    if args.one:
        if EARLY is not None:
            what = "cached report" if EARLY.preview is not None else "reader processes started"
            print(f"  {'early':<8} {EARLY_DONE - STARTED:7.2f} s ({what})")
        print(f"  {'imports':<8} {IMPORTED - STARTED:7.2f} s")
        asyncio.run(bench(args.runs[0], args.repeat, (width, height), args.phases))
        return
    # As installed (pip compiles the bytecode): the app's processes do not compile the
    # inspector's source again when the shell sets PYTHONDONTWRITEBYTECODE.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    cache = "off" if os.environ.get("INSPECTOR_CACHE", "1") == "0" else "on"
    workers = os.environ.get("INSPECTOR_WORKERS", "one per core")
    print(f"cache {cache}, reader processes: {workers}, terminal {width}x{height}")
    for run in args.runs:
        print(run)
        command = [sys.executable, __file__, str(run), "--one", "--repeat", str(args.repeat)]
        command += ["--size", args.size, *(["--phases"] if args.phases else [])]
        if args.rounds <= 1:
            if args.floor:
                floor_s = floor(run, args.floor_script)
                print(f"  {'floor':<8} {floor_s:7.2f} s (read_floor.py --parser orjson)")
            subprocess.run(command, check=True)
            continue
        # Interleaved rounds (floor, then the app, in fresh processes): the medians, and the
        # headline series against the floor of the same round.
        floors, series = [], []
        if cache == "on":
            # The cache holds the run before the rounds: every round is a cached open.
            subprocess.run(command, check=True, capture_output=True)
        for number in range(1, args.rounds + 1):
            floors.append(floor(run, args.floor_script))
            output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            if number == args.rounds:
                print(output, end="")
            series.append(float(output.split("  series")[1].split()[0]))
            print(
                f"  round {number}: floor {floors[-1]:.2f} s, series {series[-1]:.2f} s "
                f"(floor {series[-1] - floors[-1]:+.2f} s)"
            )
        median_floor, median_series = statistics.median(floors), statistics.median(series)
        print(
            f"  median of {args.rounds} rounds: floor {median_floor:.2f} s, series "
            f"{median_series:.2f} s (floor {median_series - median_floor:+.2f} s; "
            f"series / floor {median_series / median_floor:.2f}, cache {cache})"
        )


if __name__ == "__main__":
    main()
