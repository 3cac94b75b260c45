"""What the headless commands print to a terminal never carries the run's control characters;
what they write to a pipe or a file keeps the exact bytes.

The terminal is a real pseudo-terminal (``tests.terminal``); the run is fixtures/runs/hostile,
whose task ids, categories, messages and summary.md hold CSI and OSC sequences (an OSC 52
clipboard write, a screen clear), BEL, backspace, CR, C1 controls, U+202E and U+200D.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata

import pytest

from tests.conftest import FIXTURE_RUNS, ROOT
from tests.terminal import run_on_terminal

HOSTILE = FIXTURE_RUNS / "hostile"
ENV = {"PYTHONPATH": str(ROOT), "LC_ALL": "C.UTF-8", "INSPECTOR_CACHE": "0"}
COMMANDS = {
    "tasks-table": ["tasks", str(HOSTILE)],
    "tasks-csv": ["tasks", str(HOSTILE), "--format", "csv"],
    "tasks-jsonl": ["tasks", str(HOSTILE), "--format", "jsonl", "--series", "all"],
    "diff-table": ["diff", str(HOSTILE), str(FIXTURE_RUNS / "k1_micro")],
    "diff-json": ["diff", str(HOSTILE), str(FIXTURE_RUNS / "k1_micro"), "--format", "json"],
    "diff-markdown": ["diff", str(HOSTILE), str(FIXTURE_RUNS / "k1_micro"), "--format", "markdown"],
    "report-json": ["report", str(HOSTILE), "--json"],
    "report-markdown": ["report", str(HOSTILE), "--markdown"],
    "sql-table": ["sql", str(HOSTILE), "select task_id, reasons from tasks"],
    "sql-csv": ["sql", str(HOSTILE), "select task_id, reasons from tasks", "--format", "csv"],
    "sql-json": ["sql", str(HOSTILE), "select task_id, reasons from tasks", "--format", "json"],
    "items-table": ["items", str(HOSTILE)],
    "errors-table": ["errors", str(HOSTILE)],
}

# Formats that keep the exact characters (tables and Markdown show stand-ins everywhere).
EXACT = ("tasks-csv", "tasks-jsonl", "diff-json", "report-json", "report-markdown", "sql-csv",
         "sql-json")  # fmt: skip


def unsafe(text: str) -> list[str]:
    """Characters a terminal would act on or hide (a pty turns "\\n" into "\\r\\n")."""
    return sorted({
        ch for ch in text.replace("\r\n", "\n")
        if ch != "\n" and (unicodedata.category(ch) in ("Cc", "Cf") or ch in "\u2028\u2029")
    })  # fmt: skip


def on_a_pipe(argv: list[str]) -> bytes:
    return subprocess.run(
        [sys.executable, "-m", "inspector", *argv], capture_output=True, cwd=ROOT,
        env={**os.environ, **ENV}, timeout=120,
    ).stdout  # fmt: skip


@pytest.mark.parametrize("name", COMMANDS)
def test_a_terminal_sees_visible_stand_ins(name: str) -> None:
    argv = COMMANDS[name]
    piped = on_a_pipe(argv).decode("utf-8")
    if name in EXACT:  # data formats: a pipe gets the run's characters as they are
        assert unsafe(piped), "the hostile run should put control characters in this output"
    code, shown = run_on_terminal([sys.executable, "-m", "inspector", *argv], cwd=ROOT, env=ENV)
    # items / errors say "reading runs N/M" on a terminal's stderr, then erase it: their own.
    text = re.sub(r"\rreading runs \d+/\d+(\r\x1b\[K)?", "", shown.decode("utf-8"))
    assert code in (0, 1), text[-2000:]
    assert unsafe(text) == [], name
    assert "␛" in text or "<U+" in text or "\\u001b" in text
    assert len(text.replace("\r\n", "\n")) >= len(piped) * 0.9  # the same output, made visible


@pytest.mark.parametrize("name", [name for name in COMMANDS if name not in EXACT])
def test_a_pipe_gets_the_same_stand_ins(name: str) -> None:
    """A table is read by a person wherever it goes (``| less -R``, ``| tee``, a CI log):
    piped, it holds none of the run's control characters either, one row per line."""
    piped = on_a_pipe(COMMANDS[name]).decode("utf-8")
    assert unsafe(piped) == [], name
    assert "␛" in piped or "<U+" in piped
    assert "multi\nline" not in piped  # the hostile run's task id "multi\nline task"


def test_a_pipe_keeps_agentcompass_bytes() -> None:
    assert on_a_pipe(COMMANDS["report-json"]) == (HOSTILE / "metrics.json").read_bytes()
    assert on_a_pipe(COMMANDS["report-markdown"]) == (HOSTILE / "summary.md").read_bytes()
    assert "\x1b" in on_a_pipe(COMMANDS["tasks-csv"]).decode("utf-8")
