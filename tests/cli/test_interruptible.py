"""The command line's Ctrl-C, in-process (issue 48, item 8): the first SIGINT ends the
command with the one line ``interrupted`` and 130, a second one meanwhile is ignored, and a
caller in-process (a test) gets its own SIGINT handler back."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.cli.interrupts import EXIT_INTERRUPTED, interruptible
from inspector.loading import processes
from tests.conftest import CONFORMANCE


@pytest.fixture(autouse=True)
def _pools_usable_after(monkeypatch: pytest.MonkeyPatch) -> None:
    """An interrupted command ends this process's reader pools for good (the process is
    ending); the test's process goes on to other tests, whose shared pools must still start."""
    monkeypatch.setattr(processes, "_ended", processes._ended)


@pytest.fixture(autouse=True)
def _as_from_a_terminal() -> Iterator[None]:
    """SIGINT handled as Python does by default, whatever the suite inherited: a shell
    without job control starts a background job with SIGINT ignored, and a command then
    keeps it ignored (the last test), so a suite started with ``&`` failed the others."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def _interrupted_twice() -> int:
    os.kill(os.getpid(), signal.SIGINT)
    try:
        time.sleep(5)
    finally:  # the ending: a second Ctrl-C here is ignored
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
    return 0


def test_the_first_sigint_ends_the_command_with_one_line_and_130(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGINT)
    started = time.monotonic()
    assert interruptible(_interrupted_twice) == EXIT_INTERRUPTED == 130
    assert time.monotonic() - started < 2
    assert capsys.readouterr() == ("", "interrupted\n")
    assert signal.getsignal(signal.SIGINT) is before


def test_an_uninterrupted_command_returns_its_status_and_the_handler() -> None:
    before = signal.getsignal(signal.SIGINT)
    assert interruptible(lambda: 7) == 7
    assert signal.getsignal(signal.SIGINT) is before


def test_an_ignored_sigint_stays_ignored() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a background job's
    came = []

    def command() -> int:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        came.append(signal.getsignal(signal.SIGINT))
        return 0

    assert interruptible(command) == 0
    assert came == [signal.SIG_IGN]
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


_LATE = """
import os, signal, sys, time
from inspector.cli.entry import main
sys.argv = ["inspector", "report", sys.argv[1], "--json"]
status = main()
os.kill(os.getpid(), signal.SIGINT)  # a Ctrl-C once the answer is out: the process is ending
time.sleep(0.05)
sys.exit(status)
"""


def test_a_ctrl_c_after_the_command_returned_leaves_its_answer_and_status(
    tmp_path: Path,
) -> None:
    """The console script: SIGINT between the command's return and the process's end is
    ignored, not a traceback or a death by the signal (exit -2) after a whole answer."""
    run = CONFORMANCE / "e2e_k3_avg_category_mean"
    env = dict(os.environ, INSPECTOR_CACHE="0", XDG_CACHE_HOME=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", _LATE, str(run)],
        capture_output=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as from a terminal
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == (run / "metrics.json").read_bytes()
