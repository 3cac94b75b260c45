"""A Ctrl-C while the command line waits on its reader processes is taken at a safe point.

Python runs a signal's handler between any two bytecodes. The command line's raises
KeyboardInterrupt; raised just after a pool's lock was taken and before the ``with`` that
releases it, the lock stays taken, the pool's thread waits for it for ever and so does the
exit: ``inspector items ROOT`` interrupted printed ``interrupted`` and then hung (6 of 150
tries on a loaded machine, CI once). While the main thread is in the pool's code, the
handler now runs only at :func:`processes.safe_point`. Run in child processes: the tests
set SIGINT's handler."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

IN_A_POOL = """
import os, signal, threading, time, traceback
from inspector.loading.many import map_in_processes

def interrupted(signum, frame):  # as inspector.cli.interrupts does
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt

signal.signal(signal.SIGINT, interrupted)
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
sent = time.monotonic() + 0.5
try:
    map_in_processes(time.sleep, [(0.2,)] * 40, 2)
    print("not interrupted")
except KeyboardInterrupt as error:
    files = {frame.filename for frame in traceback.extract_tb(error.__traceback__)}
    pools = ("threading.py", "queue.py", "/concurrent/", "/multiprocessing/")
    inside = sorted(f.rsplit("/", 1)[-1] for f in files if any(p in f for p in pools))
    print("inside:", ",".join(inside) or "-", "after", round(time.monotonic() - sent, 2))
"""

HELD = """
import os, signal
from inspector.loading import processes

came = []
signal.signal(signal.SIGINT, lambda signum, frame: came.append(int(signum)))
handler = signal.getsignal(signal.SIGINT)
with processes.interrupts_at_safe_points():
    os.kill(os.getpid(), signal.SIGINT)
    sum(range(100_000))  # many bytecodes: the handler would have run by now
    print("during:", came)
    processes.safe_point()
    print("at the safe point:", came)
    os.kill(os.getpid(), signal.SIGINT)
    sum(range(100_000))
    print("after it:", came)
print("at the end:", came, signal.getsignal(signal.SIGINT) is handler)
"""


def _run(script: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_ctrl_c_while_waiting_on_readers_is_raised_outside_the_pools_code() -> None:
    said = _run(IN_A_POOL).split()
    assert said[:3] == ["inside:", "-", "after"], said  # raised in none of the pools' code
    assert float(said[3]) < 1.0, said


def test_a_sigint_is_held_until_the_safe_point_or_the_end() -> None:
    lines = _run(HELD).splitlines()
    assert lines == [
        "during: []",
        "at the safe point: [2]",
        "after it: [2, 2]",
        "at the end: [2, 2] True",
    ], lines
