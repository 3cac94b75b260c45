"""A run that cannot be scored is answered warm too (issue 53 item 5): once read, an
unchanged run whose report is refused (an attempt file that is not JSON, a run_info.json
that is not) is answered from the line the store keeps, by ``report RUN``, ``check RUN
--cached`` and the root commands, opening none of its files (``opened_any``), with the
exit code and every byte the cache-off path prints; a fix of the file, even one of the
same size with the mtime put back, is read again and seen.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_RUNS
from tests.loading.helpers import replace_keeping_mtime, run_cli, settle_time_stamps

ON_ROOT = [
    ["leaderboard"],
    ["leaderboard", "--format", "json"],
    ["check", "--cached"],
    ["check", "--cached", "--format", "json"],
    ["items"],
    ["items", "--format", "json"],
    ["gate"],
    ["gate", "--format", "json"],
]
ON_RUN = [["report"], ["report", "--json"], ["check", "--cached"]]
BREAKS = [("load_problems", "result"), ("load_problems", "run_info"), ("compare_b", "result")]
"""The run broken and how: ``load_problems``'s warnings are said before its refusal (it is
not finished: ``items`` leaves it out for that); ``compare_b`` is finished."""


def _broken_file(run: Path, which: str) -> Path:
    if which == "run_info":
        return run / "run_info.json"
    return sorted(run.glob("details/normal/*/attempt-1/result.json"))[-1]


def _break(path: Path) -> bytes:
    """``path`` made invalid JSON in place, its size kept; its bytes as they were."""
    original = path.read_bytes()
    path.write_bytes(b"x" + original[1:])
    return original


@pytest.fixture(params=BREAKS, ids="-".join)
def broken_root(tmp_path: Path, request: pytest.FixtureRequest) -> tuple[Path, Path, Path, bytes]:
    """A root of a scored run and one refused, the refused run, the file that breaks it,
    and its bytes as they were before."""
    name, which = request.param
    root = tmp_path / "results"
    shutil.copytree(FIXTURE_RUNS / "compare_a", root / "team" / "compare_a")
    run = root / "team" / name
    shutil.copytree(FIXTURE_RUNS / name, run)
    file = _broken_file(run, which)
    original = _break(file)
    settle_time_stamps()
    return root, run, file, original


@pytest.fixture
def opened_any(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every file under ``tmp_path`` (the runs) opened from now on (not folders: the
    store's check lists them)."""
    found: list[str] = []
    real_open = os.open

    def counted(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path).startswith(str(tmp_path)) and not os.path.isdir(path):
            found.append(str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", counted)
    return found


def _off(argv: list[str], capsys, monkeypatch) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    with monkeypatch.context() as patched:
        patched.setenv("INSPECTOR_CACHE", "0")
        return run_cli(argv, capsys)


def _argv(command: list[str], where: Path) -> list[str]:
    return [command[0], str(where), *command[1:]]


CASES = [("root", c) for c in ON_ROOT] + [("run", c) for c in ON_RUN]


@pytest.mark.parametrize(
    ("where", "command"), CASES, ids=lambda v: " ".join(v) if isinstance(v, list) else v
)
def test_a_warm_refused_run_opens_none_of_its_files_and_says_what_a_read_says(
    where: str,
    command: list[str],
    broken_root: tuple[Path, Path, Path, bytes],
    opened_any: list[str],
    capsys,
    monkeypatch,
) -> None:  # type: ignore[no-untyped-def]
    run = broken_root[1]
    argv = _argv(command, broken_root[0] if where == "root" else run)
    off = _off(argv, capsys, monkeypatch)
    said = off[1] + off[2]
    assert run.name in said or "!" in said, "the refused run is shown"
    if where == "run":
        assert off[0] == 2 and off[1] == ""
        if run.name == "load_problems":
            assert off[2].count("\n") == 2, "a warning, then the refusal"
    assert run_cli(argv, capsys) == off
    opened_any.clear()
    assert run_cli(argv, capsys) == off
    assert opened_any == []  # not even the run-level files


@pytest.mark.parametrize("plan", [["--k", "7"], ["--strategy", "avg", "--k", "0"]], ids=" ".join)
def test_a_derived_plan_the_run_cannot_be_scored_as_is_answered_warm(
    plan: list[str], tmp_path: Path, opened_any: list[str], capsys, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    run = tmp_path / "k3_pass"
    shutil.copytree(FIXTURE_RUNS / "k3_pass", run)
    settle_time_stamps()
    argv = ["report", str(run), *plan, "--json"]
    off = _off(argv, capsys, monkeypatch)
    assert off[0] == 2 and "cannot score as" in off[2]
    assert run_cli(argv, capsys) == off
    opened_any.clear()
    assert run_cli(argv, capsys) == off
    assert opened_any == []


def test_a_refused_run_named_another_way_is_named_as_given(
    broken_root: tuple[Path, Path, Path, bytes],
    opened_any: list[str],
    capsys,
    monkeypatch,
) -> None:  # type: ignore[no-untyped-def]
    """The line is kept without the run's path: answered for the path as given now."""
    root, run = broken_root[:2]
    run_cli(["report", str(run)], capsys)
    monkeypatch.chdir(root / "team")
    argv = ["report", os.path.join("..", "team", run.name)]
    off = _off(argv, capsys, monkeypatch)
    assert str(root) not in off[2] and f"../team/{run.name}/" in off[2]
    opened_any.clear()
    assert run_cli(argv, capsys) == off
    assert opened_any == []


@pytest.mark.parametrize(
    "command", [["check", "--cached"], ["gate", "--format", "json"], ["report"]], ids=" ".join
)
def test_the_broken_file_fixed_in_place_is_read_again(
    command: list[str],
    broken_root: tuple[Path, Path, Path, bytes],
    capsys,
    monkeypatch,
) -> None:  # type: ignore[no-untyped-def]
    """Fixed with the same size and the old mtime put back (a restore from a backup)."""
    root, run, file, original = broken_root
    argv = _argv(command, run if command[0] == "report" else root)
    run_cli(argv, capsys)
    before = run_cli(argv, capsys)
    replace_keeping_mtime(file, original)
    settle_time_stamps()
    warm = run_cli(argv, capsys)
    assert warm == _off(argv, capsys, monkeypatch)
    assert warm != before
    assert "not valid JSON" in before[1] + before[2]
    assert "not valid JSON" not in warm[1] + warm[2]


@pytest.mark.parametrize(
    ("name", "said"),
    [("compare_b", "cannot be recomputed"), ("load_problems", "not finished (status None)")],
)
def test_items_after_another_command_opens_none_of_a_refused_runs_files(
    name: str,
    said: str,
    tmp_path: Path,
    opened_any: list[str],
    capsys,
    monkeypatch,
) -> None:  # type: ignore[no-untyped-def]
    """What ``check`` kept tells ``items`` whether the run is left out as unfinished (its
    run_info.json's status, kept with the refusal) or as refused."""
    root = tmp_path / "results"
    shutil.copytree(FIXTURE_RUNS / name, root / "team" / name)
    _break(_broken_file(root / "team" / name, "result"))
    settle_time_stamps()
    argv = ["items", str(root), "--format", "json"]
    off = _off(argv, capsys, monkeypatch)
    assert f"left out team/{name}: {said}" in off[2]
    run_cli(["check", str(root), "--cached"], capsys)
    opened_any.clear()
    assert run_cli(argv, capsys) == off
    assert opened_any == []
