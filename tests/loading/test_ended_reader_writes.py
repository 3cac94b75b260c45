"""A reader process ended while it writes to the store leaves no temporary file: its pool
ends it with SIGTERM (Ctrl-C in the command line, the app closing), or it ends itself when
the process that made its pool has gone. Either way its half-written ``.tmp`` goes with it
(a store folder otherwise collects one per interrupted command)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inspector.loading import store
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="reader processes are POSIX")

WRITER = """
import os, signal, sys, time
from pathlib import Path
from inspector.loading import processes, store

folder, parent = Path(sys.argv[1]), int(sys.argv[2]) or None
processes.reader_started(parent)

def pieces():
    yield b"x" * 10
    (folder / "writing").touch()  # the temporary file is open now
    if parent is None:
        os.kill(os.getpid(), signal.SIGTERM)  # as end_pool ends a reader
    time.sleep(20)
    yield b"y"

store.write_streamed(folder / "store" / "entry", pieces)
"""


def ended_while_writing(folder: Path, parent: subprocess.Popen[bytes] | None) -> int:
    """The exit status of a reader process writing to the store in ``folder`` when it is
    sent SIGTERM (no ``parent``) or when ``parent`` is killed."""
    args = [sys.executable, "-c", WRITER, str(folder), str(parent.pid if parent else 0)]
    process = subprocess.Popen(args, cwd=ROOT)
    try:
        deadline = time.monotonic() + 10
        while not (folder / "writing").exists():
            assert process.poll() is None and time.monotonic() < deadline, "never wrote"
            time.sleep(0.02)
        if parent is not None:
            parent.kill()
        return process.wait(10)
    finally:
        process.kill()
        if parent is not None:
            parent.kill()
            parent.wait()


def test_a_reader_sent_sigterm_while_writing_removes_its_temporary_file(tmp_path: Path) -> None:
    assert ended_while_writing(tmp_path, None) == -signal.SIGTERM  # by the signal, as before
    assert list((tmp_path / "store").iterdir()) == []


def test_a_reader_whose_parent_ended_while_writing_removes_its_temporary_file(
    tmp_path: Path,
) -> None:
    assert ended_while_writing(tmp_path, subprocess.Popen(["sleep", "30"])) == 1
    assert list((tmp_path / "store").iterdir()) == []


def test_sigterm_is_taken_only_while_writing(tmp_path: Path) -> None:
    """An idle reader process (the usual one when its pool ends) is ended by SIGTERM's
    default at once, as before: no Python handler has to run in it first."""
    before = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    during = []

    def pieces():  # type: ignore[no-untyped-def]
        during.append(signal.getsignal(signal.SIGTERM))
        yield b"x"

    try:
        assert store.write_streamed(tmp_path / "store" / "entry", pieces)
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGTERM, before)
    assert during and during[0] is not signal.SIG_DFL
