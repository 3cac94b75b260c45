"""One cold pass over a results root leaves what the other root commands answer from
(issue 53 item 5): after only ``leaderboard`` (or only ``items``, ``gate``, ``check ROOT
--cached``), each of the others opens no attempt file (``opened``, of ``test_warm_root``)
and prints byte for byte what the cache-off path prints; a file changed after it (same
size, the mtime put back) is read again and seen. The cold leaderboard reads each attempt
file once: the ties compare the tasks its check kept, not the runs read again. (``check
ROOT`` without ``--cached`` reads every file and keeps nothing: tests/cli/test_check_root.)
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from tests.loading.helpers import (
    first_result,
    flipped_same_size,
    replace_keeping_mtime,
    run_cli,
    settle_time_stamps,
)
from tests.loading.test_warm_root import opened, root  # noqa: F401 (fixtures)

FIRST = [["leaderboard"], ["items"], ["gate"], ["check", "--cached"]]
THEN = [
    ["items", "--format", "json"],
    ["items", "--format", "csv"],
    ["items"],
    ["gate", "--format", "json"],
    ["gate"],
    ["check", "--cached", "--format", "json"],
    ["leaderboard", "--format", "json"],
    ["leaderboard"],
]


def _argv(command: list[str], where: Path) -> list[str]:
    return [command[0], str(where), *command[1:]]


def _off(argv: list[str], capsys, monkeypatch) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    with monkeypatch.context() as patched:
        patched.setenv("INSPECTOR_CACHE", "0")
        return run_cli(argv, capsys)


@pytest.mark.parametrize("first", FIRST, ids=" ".join)
def test_after_one_cold_command_the_others_open_no_attempt_file(
    first: list[str],
    root: Path,  # noqa: F811
    opened: list[str],  # noqa: F811
    capsys,
    monkeypatch,
) -> None:  # type: ignore[no-untyped-def]
    expected = {" ".join(c): _off(_argv(c, root), capsys, monkeypatch) for c in THEN}
    run_cli(_argv(first, root), capsys)
    assert opened, "the first command reads the attempt files"
    for command in THEN:
        opened.clear()
        found = run_cli(_argv(command, root), capsys)
        assert found == expected[" ".join(command)], command
        assert opened == [], command


@pytest.mark.parametrize("then", [["items", "--format", "json"], ["gate", "--format", "json"]],
                         ids=" ".join)  # fmt: skip
def test_a_file_changed_after_the_leaderboard_is_read_again(
    then: list[str],
    root: Path,  # noqa: F811
    opened: list[str],  # noqa: F811
    capsys,
    monkeypatch,
) -> None:  # type: ignore[no-untyped-def]
    run_cli(_argv(["leaderboard"], root), capsys)
    before = run_cli(_argv(then, root), capsys)
    result = first_result(root / "team" / "compare_a")
    replace_keeping_mtime(result, flipped_same_size(result))
    settle_time_stamps()
    opened.clear()
    warm = run_cli(_argv(then, root), capsys)
    assert opened, "the changed run is read again"
    assert warm == _off(_argv(then, root), capsys, monkeypatch)
    assert warm != before


def test_a_cold_leaderboard_reads_each_attempt_file_once(
    root: Path,  # noqa: F811
    opened: list[str],  # noqa: F811
    capsys,
    monkeypatch,
) -> None:  # type: ignore[no-untyped-def]
    """compare_a and compare_b share a column: their ties come from the tasks their checks
    kept, not from reading both runs again. (Files are opened by name within their
    folder: counted against ``check ROOT`` without the cache, which reads each once.)"""
    _off(["check", str(root)], capsys, monkeypatch)
    once = len(opened)
    opened.clear()
    code, out, _ = run_cli(["leaderboard", str(root), "--format", "json"], capsys)
    assert code == 0 and any(row.get("rank_low") for row in json.loads(out))
    assert once > 0 and len(opened) == once


def test_a_kept_side_is_the_side_the_run_gives(tmp_path: Path) -> None:
    """The headline tasks a run keeps for the ties (a category hierarchy among them), once
    through the store's encoding, are what the ties take from the run read."""
    from inspector import loading
    from inspector.answers.kept import KeptSide, headline_id, side_record
    from inspector.overrides import Overrides
    from inspector.views.side_tasks import side_tasks
    from tests.conftest import FIXTURE_RUNS

    hierarchies = 0
    for run in sorted(p for p in FIXTURE_RUNS.iterdir() if (p / "metrics.json").exists()):
        loaded = loading.read(run, Overrides())
        assert isinstance(loaded, loading.Loaded), run
        session = loaded.session
        series_id = headline_id(session)
        if series_id is None:
            continue
        rec = session.recomputation
        series = next(s for s in rec.report.series if s.series_id == series_id)
        kept = side_record(session, series_id)
        assert kept is not None
        stored = msgspec.msgpack.decode(msgspec.msgpack.encode(kept), type=KeptSide)
        assert stored.side() == side_tasks(rec, series), run.name
        hierarchies += stored.root is not None
    assert hierarchies >= 2
