"""The README opens with the two commands a new user runs; ``.ci/run`` runs exactly the second."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"[A-Za-z0-9_.-]+==[0-9][A-Za-z0-9.]*")


def _readme_commands() -> list[str]:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    head = lines[: lines.index("---")]
    return [line.strip() for line in head if line.startswith("    ")]


def test_the_readme_opens_with_the_two_commands() -> None:
    setup_and_open, setup_and_test = _readme_commands()
    assert setup_and_open.startswith("python3 -m venv .venv && ")
    assert ".venv/bin/inspector fixtures/runs/" in setup_and_open
    assert setup_and_test.startswith("python3 -m venv .venv && ")
    assert "-m pytest" in setup_and_test


def test_both_commands_set_up_alike_with_a_pinned_installer() -> None:
    setup_and_open, setup_and_test = _readme_commands()
    setup = setup_and_open.rsplit(" && ", 1)[0]
    assert setup_and_test.rsplit(" && ", 1)[0] == setup
    steps = setup.split(" && ")
    assert steps[1].startswith(".venv/bin/pip install -q uv==")
    assert PIN.fullmatch(steps[1].rsplit(" ", 1)[1])
    assert steps[2].startswith(".venv/bin/uv pip install ") and steps[2].endswith(" -e '.[test]'")


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    last = [line for line in ci if line.strip() and not line.startswith("#")][-1]
    assert last == _readme_commands()[1]
