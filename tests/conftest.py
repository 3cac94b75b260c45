"""Shared test helpers: where the conformance runs and fixtures are."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Runs written by AgentCompass itself, committed with the repository (fixtures/conformance/README.md).
CONFORMANCE = ROOT / "fixtures" / "conformance"
# The workplace's reference folder, when it sits beside the clone: it may only add runs.
SHARED_CONFORMANCE = (ROOT / ".." / "shared" / "conformance").resolve()
FIXTURE_RUNS = ROOT / "fixtures" / "runs"


def _runs_in(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if (p / "metrics.json").is_file())


def conformance_runs() -> list[Path]:
    """Every AgentCompass-written run: the repository's, then those only ../shared/conformance has."""
    runs = {p.name: p for p in _runs_in(CONFORMANCE)}
    for extra in _runs_in(SHARED_CONFORMANCE):
        runs.setdefault(extra.name, extra)
    return [runs[name] for name in sorted(runs)]


def conformance_run(name: str) -> Path:
    """One AgentCompass-written run by folder name (the repository's copy when it has one)."""
    return next(p for p in conformance_runs() if p.name == name)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the user's real cache or config, nor another test's: what
    the app shows may depend on its cache (numbers labelled as cached)."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
