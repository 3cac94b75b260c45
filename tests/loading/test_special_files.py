"""Only regular files are read (issue 11).

A FIFO, a socket or a device node where a run has a file is refused by its type before
anything is read (opened without blocking, checked with ``fstat``): ``report`` and
``check`` exit 2 within moments, naming the file, and the app shows the problem and can
be quit. A reader that opened a FIFO would wait for a writer for ever; one that read
``/dev/zero`` would read until memory ran out.
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from inspector.results.file_io import open_regular
from inspector.results.run_files import RunFiles
from tests.app.helpers import pilot_test, settle
from tests.conftest import ROOT
from tests.loading.helpers import copy_run, first_result

FILES = ["result.json", "run_info.json", "metrics.json"]
KINDS = ["FIFO", "character device"]


def make_special(path: Path, kind: str) -> None:
    path.unlink()
    if kind == "FIFO":
        os.mkfifo(path)
    else:  # /dev/zero's numbers: read without a limit it never ends
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 5))


def special_target(run: Path, name: str) -> tuple[Path, str]:
    path = first_result(run) if name == "result.json" else run / name
    return path, path.relative_to(run).as_posix()


def can_make_devices(tmp_path: Path) -> bool:
    try:
        os.mknod(tmp_path / "probe", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except (PermissionError, OSError):
        return False
    (tmp_path / "probe").unlink()
    return True


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("command", ["report", "check"])
def test_a_special_file_is_refused_by_its_type(
    command: str, name: str, kind: str, tmp_path: Path
) -> None:
    if kind != "FIFO" and not can_make_devices(tmp_path):
        pytest.skip("creating device nodes needs root")  # the FIFO cases still run
    run = copy_run(tmp_path)
    path, rel = special_target(run, name)
    make_special(path, kind)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "inspector", command, str(run)],
        capture_output=True,
        text=True,
        timeout=20,  # a hang fails here; a refusal takes one process start
        cwd=ROOT,
        env={**os.environ, "INSPECTOR_CACHE": "0"},
    )
    elapsed = time.monotonic() - started
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"{run / rel}: {path.name} is a {kind}, not a file" in done.stderr
    assert elapsed < 10


def test_the_refusal_names_every_kind(tmp_path: Path) -> None:
    run = copy_run(tmp_path)
    sock = socket.socket(socket.AF_UNIX)
    try:
        os.unlink(run / "summary.md")
        sock.bind(str(run / "summary.md"))
        text, problem = RunFiles(run).read_text("summary.md")
    finally:
        sock.close()
    assert text is None and problem is not None
    assert problem.message == "summary.md is a socket, not a file" and problem.blocking
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(OSError, match="pipe is a FIFO, not a file"):
        open_regular(tmp_path / "pipe")


@pytest.mark.parametrize("name", FILES)
@pilot_test
async def test_the_app_shows_the_problem_and_quits(name: str, tmp_path: Path) -> None:
    run = copy_run(tmp_path)
    path, _ = special_target(run, name)
    make_special(path, "FIFO")
    app = InspectorApp([run])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        session = app.session
        assert session is not None and session.recomputation is None
        assert session.refusal == f"{path.name} is a FIFO, not a file"
        assert f"{path.name} is a FIFO, not a file" in str(app.screen.banner("refusal").content)
        await pilot.press("q")
    assert app.return_code == 0


@pilot_test
async def test_special_files_in_a_results_root_leave_the_other_runs(tmp_path: Path) -> None:
    from inspector.app.screens.runs import RunsScreen

    root = tmp_path / "results"
    good = copy_run(root / "ns" / "good")
    bad = copy_run(root / "ns" / "bad")
    make_special(bad / "run_info.json", "FIFO")
    os.mkfifo(root / "ns" / "a-fifo")
    if can_make_devices(tmp_path):
        os.mknod(root / "device", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    app = InspectorApp([root])
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        found = {summary.path for summary in screen.runs}
        assert good in found and bad in found
        problems = next(s for s in screen.runs if s.path == bad).problems
        assert [p.message for p in problems] == ["run_info.json is a FIFO, not a file"]
        await pilot.press("q")
