"""What the app holds per task once a run is on screen (issue 53, item 3): no more than what
reading the run holds (``loading.read``, what the command line's report keeps), plus little.
The tasks screen's rows (a ``TaskIndex``: a row object, sort values and filter masks per
task, about 520 bytes a task) are built when that screen is opened, not ahead of it for
every open run (at a million tasks: half a gigabyte and minutes of CPU after the overview
was complete). Measured with tracemalloc, cache off, not timed."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import tracemalloc
from contextlib import ExitStack
from pathlib import Path

import pytest
from textual.pilot import Pilot

from inspector import loading
from inspector.app.app import InspectorApp
from inspector.app.screens.overview import OverviewScreen
from inspector.cli import main as cli
from tests.conftest import ROOT

from .helpers import settle

SIZES = (200, 3000)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """Two generated runs of the same shape (k=3, small trajectories), small and larger:
    what does not grow with the tasks (textual, the screens) is the same in both."""
    from tests.loading.helpers import settle_time_stamps

    made = {}
    for tasks in SIZES:
        run = tmp_path_factory.mktemp("held") / f"run_{tasks}"
        argv = ["--out", str(run), "--tasks", str(tasks), "--k", "3", "--trajectory-kb", "0.5"]
        script = ROOT / "fixtures" / "make_large_run.py"
        subprocess.run([sys.executable, str(script), *argv, "--workers", "1"], check=True)
        made[tasks] = run
    settle_time_stamps()
    return made


def _traced(measure) -> int:  # type: ignore[no-untyped-def]
    """Bytes still allocated after ``measure()`` (above what was before), collected."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = measure()
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    del kept
    return held


def _app_held(run: Path, early: bool = False) -> int:
    """Bytes the app holds with ``run`` on its overview, complete, once it is idle; with
    ``early``, the app as ``inspector RUN`` makes it (the run's read started before it).

    Traced from before the app is made: ``run_test`` yields after the mount, which starts
    the read's worker and draws the first frames, so a window opened there missed a part
    of both that varied with the machine's load (a full suite's failure: 1,501 bytes a
    task against the read's 1,136, the 200-task run's part missed). No frame is drawn while the run loads (a batch update): how
    many are depends on the machine's speed, and what they leave in textual's bounded
    caches does not grow with the tasks; the complete overview is drawn once, then
    measured, when every worker of the app has ended and its messages are handled."""

    async def shown() -> int:
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            app = cli.build_app([str(run)]) if early else InspectorApp([run])
            with ExitStack() as loading_undrawn:
                loading_undrawn.enter_context(app.batch_update())
                async with app.run_test(size=(140, 45)) as pilot:
                    await idle(pilot)
                    loading_undrawn.close()
                    await idle(pilot)
                    screen = app.screen
                    assert isinstance(screen, OverviewScreen)
                    assert screen.recomputation is not None
                    assert screen.intervals  # the overview is complete
                    gc.collect()
                    held = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        return held

    return asyncio.run(shown())


MEASURE = """
import sys
from pathlib import Path
from tests.app.test_held_memory import _app_held
warm, run, early = sys.argv[1:]
_app_held(Path(warm), early == "early")
print(_app_held(Path(run), early == "early"))
"""


def _app_held_alone(warm: Path, run: Path, early: bool = False) -> int:
    """:func:`_app_held` of ``run`` in an interpreter of its own, after one app on ``warm``
    (imports, what textual sets up once). Textual's and rich's process-wide caches (bounded:
    styles, colours, cell widths) fill in the window with what the apps and tests before
    did not leave there: measured in the test process the figure depended on what ran
    before it (at 200 tasks, 500 kB less after other app tests in the same process)."""
    argv = [sys.executable, "-c", MEASURE, str(warm), str(run), "early" if early else "own"]
    done = subprocess.run(argv, cwd=ROOT, check=True, capture_output=True, text=True)
    return int(done.stdout.split()[-1])


async def idle(pilot: Pilot[None]) -> None:
    """Until no worker of the app is pending or running after its messages were handled
    (a worker's message may start another: the loaded run starts the intervals')."""
    for _ in range(20):
        await settle(pilot)
        if all(worker.is_finished for worker in pilot.app.workers):
            return
    raise AssertionError([worker.description for worker in pilot.app.workers])


def test_the_shown_overview_holds_per_task_what_the_read_run_does(
    runs: dict[int, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Per task (the difference between the two runs over their difference in tasks), the
    app on its overview holds within 200 bytes of what ``loading.read`` holds (1,136 bytes
    a task): 45 to 113 bytes more measured at 200 and 3,000 tasks (load 12 on two cores),
    about 350 more when the overview built the tasks screen's rows ahead of it. Each app
    is measured in a fresh interpreter (:func:`_app_held_alone`)."""
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    small, large = SIZES
    for run in runs.values():  # imports and lasting caches are not held
        assert isinstance(loading.read(run), loading.Loaded)
    read = [_traced(lambda run=runs[n]: loading.read(run)) for n in SIZES]
    app = [_app_held_alone(runs[small], runs[n]) for n in SIZES]
    per_task_read = (read[1] - read[0]) / (large - small)
    per_task_app = (app[1] - app[0]) / (large - small)
    assert per_task_read > 500  # the read holds its tasks (a sanity check of the measure)
    assert per_task_app - per_task_read < 200, (per_task_app, per_task_read)


@pytest.mark.parametrize("early", [True, False])
def test_no_shared_readers_start_while_the_runs_own_readers_read_it(
    early: bool, runs: dict[int, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``inspector RUN`` starts the run's reader processes before the app (an early read);
    the app's shared reader processes (for a reload, another run, a cache check) are not
    started beside them at mount (two more processes for the peak: 37 MB RSS at 100,000
    tasks) but when first used. Without an early read they are started at mount."""
    warmed: list[bool] = []
    monkeypatch.setattr(loading, "warm_app", lambda: warmed.append(True))
    run = runs[SIZES[0]]

    async def opened() -> None:
        app = cli.build_app([str(run)]) if early else InspectorApp([run])
        async with app.run_test(size=(140, 45)) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, OverviewScreen) and app.screen.recomputation is not None
            assert (app.settings.early is not None) == early

    asyncio.run(opened())
    assert warmed == ([] if early else [True])


def test_the_early_read_is_not_held_once_the_run_is_shown(
    runs: dict[int, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``inspector RUN`` reads the run before the app starts (an early read); once the
    overview shows it, what that read kept to do its work (the folders to read, their
    places, the names seen: 212 bytes a task measured, 212 MB at a million tasks; after a
    reload, the whole first run) goes: per task, the app holds what it holds when it read
    the run itself, within 150 bytes (each figure varies by about 70 bytes a task between
    fresh interpreters; the early read held measured about 250 more)."""
    monkeypatch.setenv("INSPECTOR_CACHE", "0")  # every open reads the run
    small, large = SIZES
    early = [_app_held_alone(runs[small], runs[n], early=True) for n in SIZES]
    own = [_app_held_alone(runs[small], runs[n]) for n in SIZES]
    per_task_early = (early[1] - early[0]) / (large - small)
    per_task_own = (own[1] - own[0]) / (large - small)
    assert per_task_own > 500  # the app holds its tasks (a sanity check of the measure)
    assert per_task_early - per_task_own < 150, (per_task_early, per_task_own)
