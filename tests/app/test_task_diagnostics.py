"""Task screen (reductions with reasons, attempts) and diagnostics (sources, paging, search)."""

from __future__ import annotations

from inspector.app.app import InspectorApp
from inspector.app.screens.diagnostics import DiagnosticsScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.task import TaskScreen
from inspector.views.audit import InState
from inspector.views.documents import StringDocument
from inspector.views.tasks import TaskFilter
from widgets.reductions_panel import ReductionsPanel

from .helpers import pilot_test, settle, static_text

SIZE = (140, 45)


async def _open_task(pilot, state: str) -> TaskScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    overview = pilot.app.screen
    assert isinstance(overview, OverviewScreen)
    rec = overview.session.recomputation
    series_id = overview.selected_series
    index = next(i for i, r in enumerate(rec.reductions[series_id]) if r.state == state)
    overview.open_tasks(
        TaskFilter(series_id, state=InState(state) if state != "evaluated" else None)
    )
    await settle(pilot)
    screen = TaskScreen(overview.session, rec.tasks[index].task_id, series_id)
    pilot.app.push_screen(screen)
    await settle(pilot)
    return screen


@pilot_test
async def test_error_task_shows_its_reason_and_attempts(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_task(pilot, "error")
        reductions = screen.reductions
        avg = next(r for r in reductions if r.series_id == "correct.avg@3")
        assert avg.state == "error" and avg.reasons
        panel = static_text(screen.query_one(ReductionsPanel))
        for reason in avg.reasons:
            assert reason.code in panel
        task = screen.task
        for card in screen.cards:
            text = static_text(card)
            if card.index in task.attempts:
                assert task.attempts[card.index].status in text
            else:
                assert "missing" in text or "not run" in text
        assert screen.payloads


async def open_raw_result(pilot) -> DiagnosticsScreen:  # type: ignore[no-untyped-def]
    """The diagnostics of an error task of the open run, on its raw result.json."""
    await _open_task(pilot, "error")
    await pilot.press("d")
    await settle(pilot)
    diagnostics = pilot.app.screen
    assert isinstance(diagnostics, DiagnosticsScreen)
    raw = next(i for i, s in enumerate(diagnostics.sources) if s.key == "raw:result.json")
    diagnostics.source_list.highlighted = raw
    await settle(pilot)
    return diagnostics


@pilot_test
async def test_diagnostics_pages_and_searches(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        diagnostics = await open_raw_result(pilot)
        document = diagnostics.pager.document
        assert document is not None and document.line_count > 0
        await pilot.press("slash")
        await pilot.press(*"status", "enter")
        await settle(pilot)
        assert diagnostics.pager.match_line is not None
        line = document.lines(diagnostics.pager.match_line, 1)[0]
        assert "status" in line.casefold()
        first = diagnostics.pager.match_line
        await pilot.press("escape")  # closes the search box, stays here
        assert app.screen is diagnostics
        diagnostics.pager.focus()
        await pilot.press("n")
        await settle(pilot)
        assert diagnostics.pager.match_line is not None
        assert diagnostics.pager.match_line != first or document.line_count == 1


@pilot_test
async def test_pager_renders_hostile_text_literally(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k1_micro")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        rec = overview.session.recomputation
        diagnostics = DiagnosticsScreen(overview.session, rec.tasks[0].task_id, 1)
        app.push_screen(diagnostics)
        await settle(pilot)
        diagnostics.pager.show(StringDocument("x", "\x1b[2Jclear [bold]x[/bold] \u202eevil"))
        await pilot.pause()
        strip = diagnostics.pager.render_line(0)
        text = "".join(segment.text for segment in strip)
        assert "␛[2Jclear [bold]x[/bold] <U+202E>evil" in text
        assert "\x1b" not in text


@pilot_test
async def test_trajectory_steps_jump(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        rec = overview.session.recomputation
        diagnostics = DiagnosticsScreen(overview.session, rec.tasks[0].task_id, 1)
        app.push_screen(diagnostics)
        await settle(pilot)
        keys = [s.key for s in diagnostics.sources]
        assert "trajectory" in keys
        diagnostics.source_list.highlighted = keys.index("trajectory")
        await settle(pilot)
        diagnostics.pager.focus()
        await pilot.press("right_square_bracket")
        await settle(pilot)
        first = diagnostics.pager.match_line
        assert first is not None
        document = diagnostics.pager.document
        assert document is not None
        assert document.lines(first, 1)[0].startswith("── step 1")
        await pilot.press("right_square_bracket")
        await settle(pilot)
        second = diagnostics.pager.match_line
        assert second is not None and second > first
        assert document.lines(second, 1)[0].startswith("── step 2")


@pilot_test
async def test_retry_records_of_a_retry_only_attempt(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        task = TaskScreen(overview.session, "git-leak-recovery", "correct.avg@3")
        app.push_screen(task)
        await settle(pilot)
        card = task.query_one("#attempt-3")
        assert "retry-only" in static_text(card)
        card.focus()
        await pilot.press("d")
        await settle(pilot)
        diagnostics = app.screen
        assert isinstance(diagnostics, DiagnosticsScreen)
        assert diagnostics.attempt == 3
        retries = [i for i, s in enumerate(diagnostics.sources) if s.key.startswith("retry:")]
        assert len(retries) == 2
        diagnostics.source_list.highlighted = retries[0]
        await settle(pilot)
        document = diagnostics.pager.document
        assert document is not None
        text = "\n".join(document.lines(0, document.line_count))
        assert "retry" in text and "issues" in text
