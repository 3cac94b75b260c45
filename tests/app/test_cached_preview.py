"""Reopening a run: a run's cached report is on screen before its tasks are read, marked
as not yet checked until its files are found unchanged; a changed run's goes when the check
finds the change, and is never shown as unchanged.

The full read is held back (an event the test releases), so what the overview shows in
between is exactly what came from the report cache.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

import inspector.loading.reading as loading_module
from inspector.app.app import InspectorApp
from inspector.app.screens.overview import OverviewScreen
from inspector.app.settings import Settings
from inspector.loading import prepare_app, reports

from .helpers import cell_text, pilot_test, settle, static_text

SIZE = (140, 45)


def _copy(run: Path, tmp_path: Path) -> Path:
    target = tmp_path / "results" / "ns" / run.name
    shutil.copytree(run, target)
    return target


class Held:
    """Makes ``module.name`` wait until released (the overview's full read: scoring's
    PendingRead.finish; the check of the files: reports.lookup)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> None:
        self.release = threading.Event()
        original = getattr(module, name)

        def held(*args, **kwargs):  # type: ignore[no-untyped-def]
            self.release.wait(timeout=30)
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, held)


def held_read(monkeypatch: pytest.MonkeyPatch) -> Held:
    return Held(monkeypatch, loading_module.PendingRead, "finish")


def held_check(monkeypatch: pytest.MonkeyPatch) -> Held:
    return Held(monkeypatch, reports, "lookup")


async def _wait_for(pilot, condition, seconds: float = 30) -> None:  # type: ignore[no-untyped-def]
    """Until ``condition`` holds; by the clock, not a count of pauses (a loaded machine
    made 400 pauses of 10 ms too few once)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        await pilot.pause(0.01)


async def _overview(pilot, app: InspectorApp) -> OverviewScreen:  # type: ignore[no-untyped-def]
    """The overview once it is on screen (its loading may still be held back)."""
    await _wait_for(pilot, lambda: isinstance(app.screen, OverviewScreen))
    screen = app.screen
    assert isinstance(screen, OverviewScreen)
    return screen


@pilot_test
async def _fill_cache(run: Path) -> None:
    app = InspectorApp([run])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen) and app.screen.session is not None


def _label(screen: OverviewScreen) -> str:
    return static_text(screen.query_one("#loading-label"))


def _series_totals(screen: OverviewScreen) -> list[tuple[str, str]]:
    table = screen.series_table
    return [
        (cell_text(table, row, "series"), cell_text(table, row, "value"))
        for row in range(table.row_count)
    ]


def test_unchanged_run_shows_its_cached_report_first(
    run_path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    run = _copy(run_path("k3_avg_hierarchy"), tmp_path)
    _fill_cache(run)
    stored = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    check, held = held_check(monkeypatch), held_read(monkeypatch)

    @pilot_test
    async def reopen() -> None:
        app = InspectorApp([run])
        async with app.run_test(size=SIZE) as pilot:
            screen = await _overview(pilot, app)
            # First before the check of the run's files (250,000 lstat calls at 50,000
            # tasks), marked as not yet checked; the check marks them unchanged.
            await _wait_for(pilot, lambda: screen.series_table.row_count > 0)
            assert "not yet checked" in _label(screen)
            assert "Unchanged" not in _label(screen)
            check.release.set()
            await _wait_for(pilot, lambda: "Unchanged since last opened" in _label(screen))
            assert screen.session is None, "the full read was not held back"
            for row, series in enumerate(stored["series"]):
                assert cell_text(screen.series_table, row, "series") == series["series_id"]
                assert cell_text(screen.series_table, row, "total") == str(
                    series["counts"]["total"]
                )
            label = static_text(screen.query_one("#loading-label"))
            assert "cached report" in label
            held.release.set()
            await settle(pilot)
            assert screen.session is not None
            assert "cached report" not in static_text(screen.query_one("#loading-label"))

    reopen()


def test_changed_run_cached_numbers_go_when_checked_and_the_new_ones_come(
    run_path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    """A run changed since it was cached (one result.json rewritten, its old modification
    time put back): its cached numbers are shown only as not yet checked, go when the
    check finds the change, and the numbers read from the files replace them."""
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    run = _copy(run_path("k3_avg_hierarchy"), tmp_path)
    _fill_cache(run)
    stored = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    result = sorted(run.glob("details/normal/*/attempt-1/result.json"))[0]
    payload = json.loads(result.read_text(encoding="utf-8"))
    payload["metrics"]["correct"] = not payload["metrics"]["correct"]
    info = result.stat()
    result.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    os.utime(result, ns=(info.st_atime_ns, info.st_mtime_ns))
    check, read = held_check(monkeypatch), held_read(monkeypatch)
    seen: list[str] = []

    @pilot_test
    async def reopen() -> None:
        app = InspectorApp([run])
        async with app.run_test(size=SIZE) as pilot:
            screen = await _overview(pilot, app)
            await _wait_for(pilot, lambda: screen.series_table.row_count > 0)
            cached = _series_totals(screen)
            assert "not yet checked" in _label(screen)
            check.release.set()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                seen.append(_label(screen))
                if screen.series_table.row_count == 0:
                    break
                await pilot.pause(0.01)
            assert screen.series_table.row_count == 0, "stale numbers stayed after the check"
            assert not any("Unchanged" in label for label in seen)
            read.release.set()
            await settle(pilot)
            assert screen.session is not None
            fresh = _series_totals(screen)
            assert fresh != cached, "the numbers read are the cached ones"
            report = screen.session.recomputation.report  # type: ignore[union-attr]
            assert [s.series_id for s in report.series] == [
                s["series_id"] for s in stored["series"]
            ]

    reopen()


def test_prepared_before_the_app(
    run_path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    """`inspector RUN` looks the run up before textual starts: the overview shows the
    cached numbers as it mounts; a run not in the cache gets its reading started."""
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    run = _copy(run_path("k3_avg_hierarchy"), tmp_path)
    early = prepare_app([run])
    assert early is not None and early.preview is None and early.pending is not None
    early.pending.cancel()
    _fill_cache(run)
    early = prepare_app([run])
    assert early is not None and early.preview is not None and early.pending is None
    held = held_read(monkeypatch)

    @pilot_test
    async def open_early() -> None:
        app = InspectorApp([run], settings=Settings(early=early))
        async with app.run_test(size=SIZE) as pilot:
            screen = await _overview(pilot, app)
            await _wait_for(pilot, lambda: screen.series_table.row_count == 2)
            assert screen.session is None
            held.release.set()
            await settle(pilot)
            assert screen.session is not None

    open_early()


def test_keys_pressed_while_the_run_is_read_say_so_then_work(
    run_path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    """``f`` (and every key that needs the run) pressed before the run is read says so,
    instead of doing nothing; once it is read, the same key opens its screen."""
    from inspector.app.screens.flaky import FlakyScreen

    run = _copy(run_path("k3_avg_hierarchy"), tmp_path)
    held = held_read(monkeypatch)

    @pilot_test
    async def press_early() -> None:
        app = InspectorApp([run])
        async with app.run_test(size=SIZE) as pilot:
            screen = await _overview(pilot, app)
            for key in ("f", "i", "t", "l"):
                await pilot.press(key)
            await pilot.pause()
            said = [str(n.message) for n in app._notifications]
            assert screen.session is None, "the full read was not held back"
            assert app.screen is screen
            for what in ("flaky tasks", "issues screen", "task list", "count ledger"):
                assert f"The run is still being read: {what} once it is loaded." in said, said
            held.release.set()
            await _wait_for(pilot, lambda: screen.session is not None)
            await pilot.press("f")
            await _wait_for(pilot, lambda: isinstance(app.screen, FlakyScreen))

    press_early()
