"""A closed terminal leaves nothing (issue 48, item 9): SIGHUP to the app's process group, as
a closed terminal (an SSH disconnect, a killed tmux pane) sends it, and SIGTERM and SIGINT
the same, end the app and every process it started, and take the reader pool's named
semaphores out of /dev/shm with them (five were left each time)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from tests import process_tree
from tests.conftest import FIXTURE_RUNS
from tests.terminal import OnTerminal

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc (Linux)")

INSPECTOR = str(Path(sys.executable).with_name("inspector"))
SIGNALS = [signal.SIGHUP, signal.SIGTERM, signal.SIGINT]


def _started(term: OnTerminal) -> tuple[list[int], set[str]]:
    """The app's processes (its session's) once its reader pool is up and the runs
    screen shows the run read, and the semaphores they have mapped. (A root: the app
    opened on one run starts no shared pool while that run's early read goes on.)"""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        term._read(0.05)
        tree = process_tree.in_session(term.process.pid)
        names = process_tree.semaphores(tree)
        if names and b"0.6364" in term.output:  # k1_micro's headline on the runs screen
            return tree, names
        assert term.process.poll() is None, term.output[-2000:]
    raise AssertionError("the app's reader pool did not start")


@pytest.mark.parametrize("signum", SIGNALS, ids=[s.name for s in SIGNALS])
def test_a_signal_to_the_app_leaves_no_process_and_no_semaphore(
    signum: signal.Signals, tmp_path: Path
) -> None:
    run = tmp_path / "hangup_run"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    term = OnTerminal([INSPECTOR, str(tmp_path)])
    group = term.process.pid  # its own session and process group
    semaphores: set[str] = set()
    try:
        tree, semaphores = _started(term)
        os.killpg(group, signum)
        if signum == signal.SIGHUP:  # the terminal is gone, too
            os.close(term.master)
            code = term.process.wait(timeout=10)
        else:
            code = term.finish(timeout=10)
        assert not process_tree.left_in_shm(semaphores)
        assert not process_tree.still_running(tree, wait=5.0)
        assert code == 128 + signum  # it ended itself (terminal restored), as a shell expects
    finally:  # a failure leaves nothing behind either
        for pid in process_tree.in_session(group):
            os.kill(pid, signal.SIGKILL)
        process_tree.remove(semaphores)
        with contextlib.suppress(OSError):  # finish() has closed it, or not
            os.close(term.master)
