"""A warm results root (issue 53 item 5): `leaderboard ROOT` and `check ROOT --cached` of an
unchanged root are answered from the store, opening no attempt file, and say what a cold
read says; a file changed in place (same size, the mtime put back) is read again; the gate
still finds a file it cannot read.

Attempt files are counted as they are opened (``os.open``, which every reader uses), in
this process (the suite's ``INSPECTOR_WORKERS=1``: no reader process).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from inspector.cli.main import main
from tests.conftest import FIXTURE_RUNS, conformance_run
from tests.loading.helpers import (
    first_result,
    flipped_same_size,
    replace_keeping_mtime,
    run_cli,
    settle_time_stamps,
)
from tests.robustness.test_unreadable_roots import shared_tmp, unprivileged  # noqa: F401

RUNS = ("k3_pass", "k3_avg_hierarchy", "compare_a", "compare_b")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    results = tmp_path / "results"
    for name in RUNS:
        shutil.copytree(FIXTURE_RUNS / name, results / "team" / name)
    settle_time_stamps()
    return results


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The attempt files (``result.json``) opened from now on."""
    found: list[str] = []
    real_open = os.open

    def counted(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path).endswith("result.json"):
            found.append(str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", counted)
    return found


@pytest.mark.parametrize("command", [["leaderboard"], ["check", "--cached"]])
def test_a_warm_root_opens_no_attempt_file_and_says_what_a_cold_read_says(
    root: Path, opened: list[str], command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    cold = run_cli([command[0], str(root), *command[1:]], capsys)
    assert opened, "the cold read opens the attempt files"
    opened.clear()
    warm = run_cli([command[0], str(root), *command[1:]], capsys)
    assert opened == []
    assert warm == cold


def test_a_warm_leaderboard_sees_a_same_size_rewrite_with_the_old_mtime(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "results"
    shutil.copytree(conformance_run("e2e_k1_micro"), root / "ns" / "e2e_k1_micro")
    settle_time_stamps()
    run_cli(["leaderboard", str(root), "--format", "json"], capsys)
    before = run_cli(["leaderboard", str(root), "--format", "json"], capsys)
    result = first_result(root / "ns" / "e2e_k1_micro")
    replace_keeping_mtime(result, flipped_same_size(result))
    settle_time_stamps()
    warm = run_cli(["leaderboard", str(root), "--format", "json"], capsys)
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    cold = run_cli(["leaderboard", str(root), "--format", "json"], capsys)
    assert warm == cold
    assert json.loads(before[1])[0]["check"] != json.loads(warm[1])[0]["check"]


def test_a_warm_gate_still_reports_a_file_it_cannot_read(
    shared_tmp: Path,  # noqa: F811 (the fixture of tests/robustness/test_unreadable_roots.py)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The gate, run again over the store it filled, by a user who cannot read one attempt
    file (made root's alone when run as root, else mode 000): that run is unusable, named
    with the file, and the gate exits 2."""
    root = shared_tmp / "root"
    shutil.copytree(FIXTURE_RUNS / "compare_a", root / "ok")  # passes the default gate
    home = shared_tmp / "home"
    home.mkdir(mode=0o777)
    home.chmod(0o777)
    out = shared_tmp / "out"
    out.mkdir()
    settle_time_stamps()
    monkeypatch.setenv("INSPECTOR_WORKERS", "1")
    with contextlib.redirect_stdout(sys.stderr):  # every module the child needs, imported
        main(["gate", str(root)])
    cold = unprivileged(["gate", str(root)], home, out, {})
    warm = unprivileged(["gate", str(root)], home, out, {})
    assert cold[0] == warm[0] == 0, cold
    result = first_result(root / "ok")
    result.chmod(0o600 if os.geteuid() == 0 else 0)
    try:
        code, stdout, stderr = unprivileged(["gate", str(root)], home, out, {})
    finally:
        result.chmod(0o644)
    assert code == 2, stdout + stderr
    assert "unusable" in stdout and "result.json" in stdout
