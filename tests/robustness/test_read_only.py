"""The inspector never writes into a result directory (docs/cache-and-trust.md).

Every file of every fixture and conformance run is hashed (with its mode and mtime) before
and after reading, recomputing, checking, listing and exporting it, and four sample runs
also before and after browsing the app's screens; nothing may change, and no file may
appear or disappear.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from inspector.app.screens.diagnostics import DiagnosticsScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.task import TaskScreen
from inspector.cli.main import main
from inspector.results.discover import find_runs
from inspector.results.reader import read_run
from inspector.session import score_run
from inspector.views.tasks import TaskFilter
from tests.app.helpers import settle
from tests.conftest import FIXTURE_RUNS, conformance_runs


def all_runs() -> list[Path]:
    fixtures = (
        sorted(p for p in FIXTURE_RUNS.iterdir() if p.is_dir()) if FIXTURE_RUNS.is_dir() else []
    )
    return fixtures + conformance_runs()


def snapshot(root: Path) -> dict[str, tuple[str, int, int]]:
    """relative path -> (sha256, mode, mtime_ns) of every file and folder under root."""
    state: dict[str, tuple[str, int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            info = path.lstat()
            digest = ""
            if path.is_file() and not path.is_symlink():
                try:
                    digest = hashlib.sha256(path.read_bytes()).hexdigest()
                except OSError:
                    digest = "unreadable"
            state[str(path.relative_to(root))] = (digest, info.st_mode, info.st_mtime_ns)
    return state


RUNS = all_runs()


@pytest.mark.parametrize("run", RUNS, ids=[f"{r.parent.name}/{r.name}" for r in RUNS])
def test_reading_and_scoring_change_nothing(run: Path) -> None:
    before = snapshot(run)
    session = score_run(read_run(run))
    if session.recomputation is not None:
        session.metrics_json()
        session.summary_markdown()
    for argv in (
        ["report", str(run), "--json"],
        ["report", str(run), "--markdown"],
        ["check", str(run)],
        ["tasks", str(run), "--format", "jsonl"],
    ):
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            main(argv)
    find_runs(run.parent)
    assert snapshot(run) == before


# Browsing costs seconds a run: the sample runs that hold every kind of file the screens
# open (retry records and archived executions, artifacts, checkpoints, a running task, a
# truncated record, hostile text, early stops).
BROWSE = [
    FIXTURE_RUNS / name for name in ("k3_avg_hierarchy", "load_problems", "hostile", "k3_pass")
]


@pytest.mark.parametrize("run", BROWSE, ids=[f"{r.parent.name}/{r.name}" for r in BROWSE])
def test_browsing_the_app_changes_nothing(run: Path, tmp_path: Path) -> None:
    """Overview, tasks, a task of every state, every diagnostics source of one attempt
    (raw files, retry records, artifacts, trajectory), issues, explain, what-if, ledger,
    reload, copy: nothing under the run changes (the task cache lives outside it)."""
    before = snapshot(run)
    asyncio.run(_browse(run))
    assert snapshot(run) == before


async def _browse(run: Path) -> None:
    app = InspectorApp([run])
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        rec = overview.session.recomputation
        if rec is None or overview.selected_series is None:
            return
        series = overview.selected_series
        for key in ("e", "escape", "w", "escape", "i", "escape", "l", "escape", "r"):
            await pilot.press(key)
            await settle(pilot, rounds=1)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        overview.open_tasks(TaskFilter(series))
        await settle(pilot, rounds=1)
        app.pop_screen()
        session = overview.session
        reductions = rec.reductions[series]
        by_state = {r.state: i for i, r in reversed(list(enumerate(reductions)))}
        for index in sorted(by_state.values()):
            task_id = rec.tasks[index].task_id
            app.push_screen(TaskScreen(session, task_id, series))
            await settle(pilot, rounds=1)
            app.pop_screen()
        task = rec.tasks[min(by_state.values())]
        for attempt in sorted(task.attempts)[:1]:
            diagnostics = DiagnosticsScreen(session, task.task_id, attempt)
            app.push_screen(diagnostics)
            await settle(pilot, rounds=1)
            for number in range(len(diagnostics.sources)):
                diagnostics.source_list.highlighted = number
                await settle(pilot, rounds=1)
            await pilot.press("y")
            app.pop_screen()
