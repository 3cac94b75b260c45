"""Shared test helpers: where the conformance runs and fixtures are."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = (ROOT / ".." / "shared" / "conformance").resolve()
FIXTURE_RUNS = ROOT / "fixtures" / "runs"


def conformance_runs() -> list[Path]:
    """Every AgentCompass run in ../shared/conformance (empty when the folder is absent)."""
    if not CONFORMANCE.is_dir():
        return []
    return sorted(p for p in CONFORMANCE.iterdir() if (p / "metrics.json").is_file())


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the user's real cache or config."""
    home = tmp_path_factory.getbasetemp() / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
