"""`inspector report` reproduces AgentCompass's metrics.json and summary.md on every sample run.

Every folder under fixtures/runs/ is a run whose metrics.json and summary.md AgentCompass
itself wrote (fixtures/README.md); none is skipped. The hostile run keeps the bytes as
AgentCompass writes them — markup, `|`, backticks and `&<>` escaped in table cells, raw
escape sequences left as they are (spec §8.3, Addendum items 49 and 53): the headless
output reproduces the file, only the app neutralises it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.cli.main import main
from tests.conftest import FIXTURE_RUNS

RUNS = sorted(path for path in FIXTURE_RUNS.iterdir() if path.is_dir())


def test_every_sample_run_is_here() -> None:
    names = {run.name for run in RUNS}
    assert {"hostile", "load_problems", "k1_micro", "k3_avg_hierarchy", "k3_pass"} <= names
    for run in RUNS:
        assert (run / "metrics.json").is_file() and (run / "summary.md").is_file(), run


@pytest.mark.parametrize("form", ["--json", "--markdown"])
@pytest.mark.parametrize("run", RUNS, ids=[run.name for run in RUNS])
def test_report_is_byte_identical(
    run: Path, form: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code = main(["report", str(run), form])
    out, err = capsysbinary.readouterr()
    assert code == 0, err.decode("utf-8", "replace")
    stored = run / ("metrics.json" if form == "--json" else "summary.md")
    assert out == stored.read_bytes()


def test_hostile_summary_keeps_escape_bytes(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """The bytes AgentCompass writes, not a neutralised copy."""
    run = FIXTURE_RUNS / "hostile"
    assert main(["report", str(run), "--markdown"]) == 0
    out = capsysbinary.readouterr().out
    assert b"\x1b[31m" in out and "\u202e".encode() in out
    assert b"\\|" in out and b"\\`" in out and b"&amp;&lt;&gt;" in out


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_output_bytes_do_not_depend_on_the_locale(encoding: str) -> None:
    """A real process whose stdout encoding cannot hold CJK, U+202E or emoji still writes
    AgentCompass's UTF-8 bytes."""
    run = FIXTURE_RUNS / "hostile"
    env = dict(os.environ, PYTHONIOENCODING=encoding)
    proc = subprocess.run(
        [sys.executable, "-m", "inspector", "report", str(run), "--markdown"],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (run / "summary.md").read_bytes()
