"""Reader processes end with their parent (issue 39): killing ``inspector report`` (SIGKILL,
SIGTERM or SIGHUP to the parent alone, as ``subprocess.run(timeout=…)`` and CI runners do)
while it reads a large run leaves no reader behind; neither does killing a process whose
readers are the shared pool forked by the fork server (the app's)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

SIGNALS = [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP]
INSPECTOR = str(Path(sys.executable).with_name("inspector"))


@pytest.fixture(scope="module")
def large_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2,000 task folders: more than readers.PARALLEL_MIN, so the command forks readers."""
    out = tmp_path_factory.mktemp("death") / "run"
    options = [
        "--tasks",
        "2000",
        "--k",
        "1",
        "--trajectory-kb",
        "0.5",
        "--seed",
        "1",
        "--workers",
        "2",
    ]
    subprocess.run(
        [sys.executable, str(ROOT / "fixtures" / "make_large_run.py"), "--out", str(out), *options],
        check=True,
        capture_output=True,
    )
    return out


def _descendants(pid: int) -> set[int]:
    """Every live (not zombie) process under ``pid``."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if fields[0] != "Z":
            parents[int(name)] = int(fields[1])
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for child, its_parent in parents.items():
            if its_parent == parent and child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z":
                alive.add(pid)
        except OSError:
            pass
    return alive


def _kill_while_reading(command: list[str], sig: signal.Signals, readers: int) -> int:
    """Start ``command``, wait until it has ``readers`` processes under it, send ``sig`` to
    it alone, and count those processes still alive a second later (then end them)."""
    env = dict(os.environ, INSPECTOR_CACHE="0", INSPECTOR_WORKERS="2")
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # ``sig`` ends the command, as it does a command started from a shell, even where the
        # suite itself runs ignoring it (under ``nohup``, SIGHUP is ignored and inherited)
        preexec_fn=None if sig == signal.SIGKILL else lambda: signal.signal(sig, signal.SIG_DFL),
    )
    seen: set[int] = set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        seen = _descendants(proc.pid)
        if len(seen) >= readers:
            break
        time.sleep(0.005)
    assert len(seen) >= readers, f"never saw {readers} readers: {seen}"
    proc.send_signal(sig)
    proc.wait(timeout=10)
    time.sleep(1.0)
    left = _alive(seen)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return len(left)


@pytest.mark.parametrize("sig", SIGNALS, ids=[s.name for s in SIGNALS])
def test_report_readers_end_with_the_command(large_run: Path, sig: signal.Signals) -> None:
    assert _kill_while_reading([INSPECTOR, "report", str(large_run)], sig, 2) == 0


SHARED = """
import time
from inspector.loading.processes import shared_pool, start_forkserver
start_forkserver()
pool = shared_pool()
futures = [pool.submit(time.sleep, 60) for _ in range(2)]
time.sleep(60)
"""


@pytest.mark.parametrize("sig", SIGNALS, ids=[s.name for s in SIGNALS])
def test_shared_pool_readers_end_with_the_app(sig: signal.Signals) -> None:
    # The resource tracker, the fork server and its two readers.
    assert _kill_while_reading([sys.executable, "-c", SHARED], sig, 4) == 0
