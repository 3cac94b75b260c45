"""A read stops once the process's reader pools are ended on a signal.

The app ends its reader processes on SIGHUP / SIGTERM / SIGINT, then exits; Python's exit
waits for the worker thread that reads the run. A reader pool ended under a read used to
make that read go on in-process, folder by folder, so an app closed a few seconds into
opening a million tasks stayed alive for minutes (SIGHUP seen ignored for 10 s and more).
Run in a child process: ending the pools is for the rest of the process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import FIXTURE_RUNS

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys, threading, time
from inspector import loading
from inspector.loading import processes, readers

real = readers._read_one
def slow(*args, **kwargs):  # each folder takes 0.1 s: the read outlives end_pools
    time.sleep(0.1)
    return real(*args, **kwargs)
readers._read_one = slow

outcome = []
def read():
    try:
        outcome.append(type(loading.read(sys.argv[1])).__name__)
    except RuntimeError as error:
        outcome.append(str(error))
thread = threading.Thread(target=read)
thread.start()
time.sleep(0.5)
started = time.monotonic()
processes.end_pools()  # as the app does on SIGHUP
thread.join()
print(f"{time.monotonic() - started:.2f}", outcome)
"""


def test_a_read_stops_when_the_pools_are_ended(tmp_path: Path) -> None:
    run = FIXTURE_RUNS / "k3_avg_hierarchy"  # 20 task folders: 2 s of reading here
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "INSPECTOR_CACHE": "0"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(run)],
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seconds, outcome = done.stdout.split(" ", 1)
    assert "process is ending" in outcome, done.stdout
    assert float(seconds) < 0.5, done.stdout
