"""The README opens with the two commands a new user runs; ``.ci/run`` runs exactly the second."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    last = [line for line in ci if line.strip() and not line.startswith("#")][-1]
    assert last == _readme_commands()[1]
