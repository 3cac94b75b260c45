"""Quitting the app leaves nothing running (issue 39): k = 2000 declared with 3 attempts a
task, ``f`` (flaky tasks, computed in a worker thread) then ``q``. On the old code the worker
built exact pass@j tables for every j and count up to 2000 and the process kept burning CPU
for minutes after ``q``; here the process must end within seconds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import FIXTURE_RUNS

SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from inspector.app.app import InspectorApp
    from inspector.app.screens.flaky import FlakyScreen

    async def main() -> None:
        app = InspectorApp([sys.argv[1]])
        async with app.run_test(size=(100, 30)) as pilot:
            for _ in range(1200):
                await pilot.pause(0.05)
                screen = app.screen
                if getattr(screen, "recomputation", None) is not None:
                    break  # the overview, with the run read (f waits for it)
            await pilot.press("f")
            for _ in range(1200):
                await pilot.pause(0.05)
                if isinstance(app.screen, FlakyScreen):
                    break
            assert isinstance(app.screen, FlakyScreen), app.screen
            await pilot.pause(0.2)
            await pilot.press("q")
        print("quit")

    asyncio.run(main())
    """
)


def _declared_k(run: Path, k: int) -> None:
    """The run as if it had declared k attempts (its tasks keep the attempts they have)."""
    info = json.loads((run / "run_info.json").read_text(encoding="utf-8"))
    info["request"]["execution"]["attempts"]["k"] = k
    (run / "run_info.json").write_text(json.dumps(info), encoding="utf-8")
    for path in run.glob("details/*/*/task.json"):
        task = json.loads(path.read_text(encoding="utf-8"))
        if "attempt_plan" in task:
            task["attempt_plan"]["k"] = k
        path.write_text(json.dumps(task), encoding="utf-8")


def test_flaky_then_quit_with_k_2000_declared_ends_in_seconds(tmp_path: Path) -> None:
    run = tmp_path / "k2000"
    shutil.copytree(FIXTURE_RUNS / "k3_avg_hierarchy", run)
    _declared_k(run, 2000)
    env_cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(run)],
        capture_output=True,
        text=True,
        timeout=90,
        env={**os.environ, **env_cache},
    )
    assert done.returncode == 0, (done.stdout[-1000:], done.stderr[-2000:])
    assert done.stdout.strip().endswith("quit")
