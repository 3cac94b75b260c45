"""What the app says about how it loaded a run (issue 11): ``--watch`` from the command
line reloads and says so on screen, numbers from the cache are labelled and ``R`` reads
every file again, and the copies handed to $PAGER / $EDITOR are removed."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from inspector.cli import main as cli
from tests.app.helpers import pilot_test, settle, static_text
from tests.loading.helpers import copy_run


def _total(app: InspectorApp) -> int | None:
    session = app.session
    if session is None or session.recomputation is None:
        return None
    return session.recomputation.report.series[0].counts.total


def _status(app: InspectorApp) -> str:
    return static_text(app.screen.query_one("#load-status"))


@pilot_test
async def test_watch_from_the_command_line_reloads(tmp_path: Path) -> None:
    run = copy_run(tmp_path)
    parked = tmp_path / "parked"
    victim = sorted((run / "details" / "normal").iterdir())[0]
    shutil.move(str(victim), parked)  # not published yet
    app = cli.build_app([str(run), "--watch", "1"])
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        assert app.watching
        before = _total(app)
        assert before is not None
        assert "Watching: reloads every 1 s · last reloaded " in _status(app)
        first_reload = app.last_reload
        shutil.move(str(parked), victim)  # AgentCompass publishes it
        for _ in range(100):
            await asyncio.sleep(0.1)
            await settle(pilot, rounds=1)
            if _total(app) == before + 1:
                break
        assert _total(app) == before + 1
        assert app.last_reload is not None and app.last_reload != first_reload
        assert app.last_reload.strftime("%H:%M:%S") in _status(app)
        await pilot.press("a")
        assert not app.watching
        await settle(pilot)
        assert "Watching" not in _status(app)


@pilot_test
async def test_numbers_from_the_cache_are_labelled_and_R_reads_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = copy_run(tmp_path)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    app = InspectorApp([run])
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        assert app.session is not None and app.session.run.cache_hits == 0
        assert "From the cache" not in _status(app)
    app = InspectorApp([run])
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        assert app.session is not None
        entries = len(app.session.run.entries)
        assert app.session.run.cache_hits == entries > 0
        assert f"From the cache: {entries} of {entries} task folders" in _status(app)
        await pilot.press("R")
        await settle(pilot)
        assert app.session.run.cache_hits == 0
        assert "From the cache" not in _status(app)


@pytest.mark.parametrize("key", ["e", "o"])
@pilot_test
async def test_no_temporary_file_is_left_after_the_pager_returns(
    key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspector.app.screens.diagnostics import DiagnosticsScreen
    from inspector.views.documents import FileDocument
    from tests.conftest import FIXTURE_RUNS

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    handed: list[str] = []

    def program(command, check=False):  # type: ignore[no-untyped-def]
        handed.append(Path(command[-1]).read_text(encoding="utf-8"))

    monkeypatch.setattr("inspector.app.handoff.subprocess.run", program)
    monkeypatch.setenv("EDITOR", "true")
    monkeypatch.setenv("PAGER", "true")
    app = InspectorApp([FIXTURE_RUNS / "k3_avg_hierarchy"])
    monkeypatch.setattr(type(app), "suspend", lambda self: contextlib.nullcontext())
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        session = app.session
        assert session is not None and session.recomputation is not None
        screen = DiagnosticsScreen(session, session.recomputation.tasks[0].task_id, 1)
        app.push_screen(screen)
        await settle(pilot)
        for position in range(len(screen.sources)):
            screen.source_list.highlighted = position
            await settle(pilot)
            if screen.pager.document is not None and not isinstance(
                screen.pager.document, FileDocument
            ):
                break
        else:
            pytest.fail("no text source to hand over")
        screen.pager.focus()
        await pilot.press(key)
        await settle(pilot)
    assert handed and handed[0], "nothing was handed over"
    assert [p.name for p in temp.iterdir() if p.name.startswith("inspector-")] == []


def test_the_fork_server_imports_the_interval_statistics_only_for_the_runs_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening on a results root, every run's headline interval is computed in the reader
    processes: scipy.special is imported once, in the fork server they come from. Opening
    on one run, whose reader processes compute none, it is not."""
    from inspector import loading
    from inspector.loading import processes

    preloaded: list[list[str]] = []
    monkeypatch.setattr(processes, "start_forkserver", lambda names: preloaded.append(list(names)))
    run = copy_run(tmp_path / "root" / "ns")
    loading.stop_app(loading.prepare_app([run], cli.RUNS_SCREEN_WORK, cli.ROOT_WORK))
    loading.stop_app(loading.prepare_app([tmp_path / "root"], cli.RUNS_SCREEN_WORK, cli.ROOT_WORK))
    assert preloaded == [
        list(cli.RUNS_SCREEN_WORK),
        [*cli.RUNS_SCREEN_WORK, "scipy.special"],
    ]
