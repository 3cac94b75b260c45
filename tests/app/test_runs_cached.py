"""Runs screen on a root checked before (issue 16): every row shows at once what its last
check found, marked as cached, then every run is checked again; a change no cheap test can
see (a result.json rewritten in place, size and modification time kept) is found by that
check and replaces the cached row."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from inspector import loading
from inspector.answers.root import audit_call, audit_runs
from inspector.app.app import InspectorApp
from inspector.app.screens import runs as runs_module
from inspector.app.screens.runs import RunsScreen
from inspector.loading import index as snapshot
from inspector.overrides import Overrides
from inspector.views.run_check import RunCheck
from tests.loading.helpers import first_result, flipped_same_size, settle_time_stamps
from tests.results_root import CUT_OFF, MICRO, PASS, make_results_root

from .helpers import pilot_test, static_text
from .test_runs_recomputed import checked_screen, row_cells


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = make_results_root(tmp_path)
    settle_time_stamps()
    return root


async def first_opening(root: Path) -> dict[str, dict[str, str]]:
    app = InspectorApp([root])
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await checked_screen(pilot)
        assert not any(row.is_cached for row in screen.rows)
        return row_cells(screen.run_table)


def hold_the_checks(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    release = threading.Event()

    def held(runs, overrides, **kwargs):  # type: ignore[no-untyped-def]
        release.wait(30)
        yield from audit_runs(runs, overrides, **kwargs)

    monkeypatch.setattr(runs_module, "audit_runs", held)
    return release


@pilot_test
async def test_cached_checks_are_shown_marked_until_each_run_is_checked_again(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = await first_opening(root)
    assert before[MICRO]["check"] == "✓"
    # An edit no folder and no run-level file shows: only checking every file finds it.
    result = first_result(root / MICRO)
    data, stat = flipped_same_size(result), result.stat()
    with open(result, "r+b") as handle:
        handle.write(data)
    os.utime(result, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    settle_time_stamps()
    release = hold_the_checks(monkeypatch)
    app = InspectorApp([root])
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        while not (isinstance(screen, RunsScreen) and screen.rows):
            await pilot.pause(0.05)
            screen = app.screen
        assert screen.all_shown and not screen.all_checked
        cells = row_cells(screen.run_table)
        for run, was in before.items():
            if run == CUT_OFF:  # cannot be recomputed: its stored value, as before
                assert cells[run]["headline"] == was["headline"]
                continue
            value = was["headline"].split()[0]
            assert cells[run]["headline"] == f"{value} cached", run
            assert cells[run]["check"] == was["check"], run
            assert [cells[run][k] for k in ("error", "unavailable", "invalidated")] == [
                was[k] for k in ("error", "unavailable", "invalidated")
            ]
        assert "checking 9 again… (cached values until then)" in static_text(
            screen.query_one("#runs-note")
        )
        release.set()
        screen = await checked_screen(pilot)
        assert not any(row.is_cached for row in screen.rows)
        cells = row_cells(screen.run_table)
    assert cells[MICRO]["check"] == "≠" and "cached" not in cells[MICRO]["headline"]
    assert cells[MICRO]["headline"] != before[MICRO]["headline"]
    assert cells[PASS] == before[PASS]


def test_a_cached_check_and_its_interval_come_from_one_look_at_the_files(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspector.answers.root import interval_call

    path = str(root / PASS)

    def audited() -> RunCheck:  # the runs screen's call, in its audit of the runs
        return loading.audit(audit_call, [(path, PASS, Overrides())])[0]  # type: ignore[no-any-return]

    check = audited()  # read and scored: with its interval
    assert check.headline is not None and check.headline.interval is not None
    assert interval_call(path, Overrides(), check.headline.series_id) is not None
    looks: list[Path] = []
    check_files = snapshot.check

    def counted(run: Path, snap, **kwargs):  # type: ignore[no-untyped-def]
        looks.append(run)
        return check_files(run, snap, **kwargs)

    monkeypatch.setattr(snapshot, "check", counted)
    again = audited()
    assert len(looks) == 1
    assert again.headline is not None and again.headline.interval is not None
    low, high = again.headline.interval
    assert (again.headline.value, low, high) == interval_call(
        path, Overrides(), check.headline.series_id
    )
