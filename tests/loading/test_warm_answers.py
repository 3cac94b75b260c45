"""Warm answers over a results root (issue 53 item 5): ``items``, ``gate`` and ``leaderboard``
of an unchanged root answer from the store (each run's kept answer, the leaderboard's
ties), opening no attempt file, and print byte for byte what the cache-off path prints; a
file changed in place (same size, the mtime put back) is read again and seen.

Attempt files are counted as they are opened (``os.open``, which every reader uses), in
this process (the suite's ``INSPECTOR_WORKERS=1``: no reader process).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_RUNS
from tests.items import planted
from tests.loading.helpers import (
    first_result,
    flipped_same_size,
    replace_keeping_mtime,
    run_cli,
    settle_time_stamps,
)

RUNS = ("k3_pass", "k3_avg_hierarchy", "compare_a", "compare_b")
ON_FIXTURES = [
    ["items", "--format", "json"],
    ["items", "--format", "csv"],
    ["items"],
    ["gate", "--format", "json"],
    ["gate"],
    ["leaderboard", "--format", "json"],
    ["leaderboard"],
]
ON_PLANTED = [["items", "--format", "json"], ["items"], ["errors"], ["leaderboard"]]


@pytest.fixture
def fixtures_root(tmp_path: Path) -> Path:
    results = tmp_path / "results"
    for name in RUNS:
        shutil.copytree(FIXTURE_RUNS / name, results / "team" / name)
    settle_time_stamps()
    return results


@pytest.fixture
def planted_root(tmp_path: Path) -> Path:
    root = planted.make(tmp_path / "planted")
    settle_time_stamps()
    return root


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


def _off(argv: list[str], capsys, monkeypatch) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    with monkeypatch.context() as patched:
        patched.setenv("INSPECTOR_CACHE", "0")
        return run_cli(argv, capsys)


def _warm_equals_off(root, command, opened, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    argv = [command[0], str(root), *command[1:]]
    off = _off(argv, capsys, monkeypatch)
    cold = run_cli(argv, capsys)
    assert cold == off
    opened.clear()
    warm = run_cli(argv, capsys)
    assert warm == off
    if command[0] != "errors":  # errors reads every file
        assert opened == [], command


@pytest.mark.parametrize("command", ON_FIXTURES, ids=" ".join)
def test_a_warm_root_answers_from_the_store_as_the_cache_off_path_does(
    fixtures_root: Path, command: list[str], opened: list[str], capsys, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    _warm_equals_off(fixtures_root, command, opened, capsys, monkeypatch)


@pytest.mark.parametrize("command", ON_PLANTED, ids=" ".join)
def test_a_warm_planted_root_answers_as_the_cache_off_path_does(
    planted_root: Path, command: list[str], opened: list[str], capsys, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    _warm_equals_off(planted_root, command, opened, capsys, monkeypatch)


@pytest.mark.parametrize(
    "command", [["items", "--format", "json"], ["gate", "--format", "json"]], ids=" ".join
)
def test_a_file_changed_in_place_is_read_again(
    fixtures_root: Path, command: list[str], capsys, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    argv = [command[0], str(fixtures_root), *command[1:]]
    run_cli(argv, capsys)
    before = run_cli(argv, capsys)
    result = first_result(fixtures_root / "team" / "compare_a")
    replace_keeping_mtime(result, flipped_same_size(result))
    settle_time_stamps()
    warm = run_cli(argv, capsys)
    assert warm == _off(argv, capsys, monkeypatch)
    assert warm != before


def test_a_warm_leaderboard_takes_its_ties_from_the_store(
    fixtures_root: Path, capsys, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """The ties of a column whose runs are unchanged are not computed again; once one of
    its runs changes they are, and are those of the cache-off path."""
    from inspector.views import ties

    argv = ["leaderboard", str(fixtures_root), "--format", "json"]
    cold = run_cli(argv, capsys)
    assert any(row.get("rank_low") for row in json.loads(cold[1])), "a column is compared"
    real = ties.ties_of_runs
    with monkeypatch.context() as patched:

        def refused(*args, **kwargs):  # type: ignore[no-untyped-def]
            raise AssertionError("ties computed again")

        patched.setattr(ties, "ties_of_runs", refused)
        assert run_cli(argv, capsys) == cold
    computed: list[str] = []

    def counted(benchmark, *args, **kwargs):  # type: ignore[no-untyped-def]
        computed.append(benchmark)
        return real(benchmark, *args, **kwargs)

    monkeypatch.setattr(ties, "ties_of_runs", counted)
    result = first_result(fixtures_root / "team" / "compare_a")
    replace_keeping_mtime(result, flipped_same_size(result))
    settle_time_stamps()
    warm = run_cli(argv, capsys)
    assert computed == ["scicode"]
    assert warm == _off(argv, capsys, monkeypatch)
    assert warm != cold
