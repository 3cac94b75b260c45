"""Warm answers over a results root (issue 53 item 5): ``items``, ``gate`` and ``leaderboard``
of an unchanged root answer from the store (each run's kept answer, the leaderboard's
ties), open no attempt file (``opened``, of ``test_warm_root``) and print byte for byte
what the cache-off path prints; a file changed in place (same size, the mtime put back)
is read again and seen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.items import planted
from tests.loading.helpers import (
    first_result,
    flipped_same_size,
    replace_keeping_mtime,
    run_cli,
    settle_time_stamps,
)
from tests.loading.test_warm_root import opened, root  # noqa: F401 (fixtures)

ON_FIXTURES = [
    ["items", "--format", "json"],
    ["items", "--format", "csv"],
    ["items"],
    ["gate", "--format", "json"],
    ["gate"],
    ["leaderboard", "--format", "json"],
    ["leaderboard"],
    ["check", "--cached", "--format", "json"],
    ["check"],
]
READ_EVERY_FILE = ("errors", "check")  # as they promise, without --cached
ON_PLANTED = [["items", "--format", "json"], ["items"], ["errors"], ["leaderboard"]]


@pytest.fixture
def planted_root(tmp_path: Path) -> Path:
    made = planted.make(tmp_path / "planted")
    settle_time_stamps()
    return made


def _off(argv: list[str], capsys, monkeypatch) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    with monkeypatch.context() as patched:
        patched.setenv("INSPECTOR_CACHE", "0")
        return run_cli(argv, capsys)


CASES = [("root", c) for c in ON_FIXTURES] + [("planted_root", c) for c in ON_PLANTED]


@pytest.mark.parametrize(
    ("where", "command"), CASES, ids=lambda v: v if isinstance(v, str) else " ".join(v)
)
def test_a_warm_root_answers_from_the_store_as_the_cache_off_path_does(
    where: str,
    command: list[str],
    opened: list[str],  # noqa: F811
    request: pytest.FixtureRequest,
    capsys,
    monkeypatch,
) -> None:  # type: ignore[no-untyped-def]
    argv = [command[0], str(request.getfixturevalue(where)), *command[1:]]
    off = _off(argv, capsys, monkeypatch)
    cold = run_cli(argv, capsys)
    assert cold == off
    opened.clear()
    warm = run_cli(argv, capsys)
    assert warm == off
    if command[0] not in READ_EVERY_FILE or "--cached" in command:
        assert opened == [], command


@pytest.mark.parametrize(
    "command", [["items", "--format", "json"], ["gate", "--format", "json"]], ids=" ".join
)
def test_a_file_changed_in_place_is_read_again(
    root: Path,  # noqa: F811
    command: list[str],
    capsys,
    monkeypatch,
) -> None:  # type: ignore[no-untyped-def]
    argv = [command[0], str(root), *command[1:]]
    run_cli(argv, capsys)
    before = run_cli(argv, capsys)
    result = first_result(root / "team" / "compare_a")
    replace_keeping_mtime(result, flipped_same_size(result))
    settle_time_stamps()
    warm = run_cli(argv, capsys)
    assert warm == _off(argv, capsys, monkeypatch)
    assert warm != before


def test_a_warm_leaderboard_takes_its_ties_from_the_store(
    root: Path,  # noqa: F811
    capsys,
    monkeypatch,
) -> None:  # type: ignore[no-untyped-def]
    """The ties of a column whose runs are unchanged are not computed again; once one of
    its runs changes they are, and are those of the cache-off path."""
    from inspector.views import ties

    argv = ["leaderboard", str(root), "--format", "json"]
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
    result = first_result(root / "team" / "compare_a")
    replace_keeping_mtime(result, flipped_same_size(result))
    settle_time_stamps()
    warm = run_cli(argv, capsys)
    assert computed == ["scicode"]
    assert warm == _off(argv, capsys, monkeypatch)
    assert warm != cold
