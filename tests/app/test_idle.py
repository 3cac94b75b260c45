"""Once a run is on screen the app wakes for nothing: no timer runs while the user reads
(issue 53: idle CPU zero). A paused timer (the screen's update timer) waits for a refresh
and costs nothing; a running one wakes the event loop for as long as its widget lives."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from inspector.app.app import InspectorApp
from inspector.app.screens.overview import OverviewScreen

from .helpers import compare_marked, pilot_test, settle

SIZE = (140, 45)


def running_timers(app: App[None]) -> list[str]:
    """Every timer of the app and of every widget on its screen stack that is not paused."""
    nodes = [app, *app.screen_stack]
    for screen in app.screen_stack:
        nodes += list(screen.walk_children(with_self=False))
    return [
        f"{type(node).__name__}#{node.id}: {timer.name} every {timer._interval} s"
        for node in nodes
        for timer in list(node._timers)
        if timer._task is not None and not timer._task.done() and timer._active.is_set()
    ]


@pilot_test
async def test_no_timer_runs_once_the_run_is_loaded(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen) and app.screen.session is not None
        assert running_timers(app) == []
        await pilot.press("r")  # a reload ends as quiet as the first read
        await settle(pilot)
        assert app.screen.session is not None and not app.screen.reading
        assert running_timers(app) == []


@pilot_test
async def test_no_timer_runs_after_a_cached_reopen(run_path) -> None:  # type: ignore[no-untyped-def]
    for _ in range(2):  # the second open starts from the cache the first wrote
        app = InspectorApp([run_path("k3_pass")])
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, OverviewScreen) and app.screen.session is not None
            assert running_timers(app) == []


@pilot_test
async def test_no_timer_runs_on_the_runs_screen_after_a_compare(runs_root: Path) -> None:
    app = InspectorApp([runs_root])
    async with app.run_test(size=SIZE) as pilot:
        await compare_marked(pilot, ("compare_a", "compare_b"))
        await settle(pilot)
        assert running_timers(app) == []


@pilot_test
async def test_no_timer_runs_after_a_refused_read(tmp_path: Path) -> None:
    run = tmp_path / "not_a_run"
    (run / "details").mkdir(parents=True)
    (run / "run_info.json").write_text("{", encoding="utf-8")  # cannot be read
    app = InspectorApp([run])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen) and app.screen.has_class("-refused")
        assert running_timers(app) == []
