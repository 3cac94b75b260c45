"""What the app sends to the terminal on the hostile run: nothing but text, colours and cursor moves.

For each screen a user reaches on ``fixtures/runs/hostile`` (overview, tasks, every task,
the diagnostics of every source of the tasks whose texts are hostile, issues), the full
screen update is rendered to the bytes Textual would write to a real terminal. Those bytes
may hold SGR colour sequences and cursor positioning and nothing else: no escape sequence
from a result file (screen clears, OSC 52 clipboard writes, OSC 8 hyperlinks), no BEL,
backspace or carriage return, no bidirectional override or zero-width character — and the
screen text shows those characters made visible instead.
"""

from __future__ import annotations

import io
import re
import unicodedata
from pathlib import Path

from rich.console import Console
from textual.app import App

from inspector.app.app import InspectorApp
from inspector.app.screens.diagnostics import DiagnosticsScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.task import TaskScreen
from inspector.views.tasks import TaskFilter
from tests.app.helpers import pilot_test, settle
from tests.conftest import FIXTURE_RUNS

SIZE = (140, 45)
HOSTILE = FIXTURE_RUNS / "hostile"

ALLOWED = re.compile(r"\x1b\[[0-9;:]*m|\x1b\[[0-9]+;[0-9]+H")
"""SGR (colours, bold, ...) and cursor positioning: what Textual itself writes."""

INVISIBLE = {0x061C, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2060, 0xFEFF}
INVISIBLE |= set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))
"""Bidirectional controls and zero-width characters."""

HOSTILE_TASKS = (
    "ansi\x1b[2Jclear",
    "osc52\x1b]52;c;aGVsbG8=\x07",
    "osc8\x1b]8;;https://e.com\x1b\\link\x1b]8;;\x1b\\",
    "bell\x07back\x08\x08space",
    "rtl\u202etxt.exe",
    "cr\roverwrite",
)


def terminal_bytes(app: App[None]) -> str:
    """The full screen as Textual writes it to a terminal (truecolor, links on)."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        legacy_windows=False,
    )
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    assert update is not None
    return update.render_segments(console)


def screen_text(app: App[None]) -> str:
    """The screen's characters, line by line."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def assert_inert(app: App[None], where: str) -> None:
    raw = terminal_bytes(app)
    rest = ALLOWED.sub("", raw)
    bad = sorted(
        {
            f"U+{ord(char):04X}"
            for char in rest
            if (ord(char) < 0x20 and char != "\n")
            or 0x7F <= ord(char) <= 0x9F
            or ord(char) in INVISIBLE
            or unicodedata.category(char) in ("Cf", "Zl", "Zp", "Cs")
        }
    )
    assert not bad, f"{where}: the terminal would receive {', '.join(bad)}"
    assert "\x1b]" not in raw, f"{where}: an OSC sequence reaches the terminal"


@pilot_test
async def test_hostile_run_sends_only_text_colours_and_cursor_moves() -> None:
    app = InspectorApp([HOSTILE])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        assert_inert(app, "overview")
        session = overview.session
        rec = session.recomputation
        assert rec is not None and overview.selected_series is not None
        series = overview.selected_series

        overview.open_tasks(TaskFilter(series))
        await settle(pilot)
        assert_inert(app, "tasks")
        shown = screen_text(app)
        for visible in ("␛[2Jclear", "<U+202E>txt.exe", "[bold red]x[/]", "<U+200D>", "␇"):
            assert visible in shown, visible
        app.pop_screen()
        await settle(pilot)

        for task in rec.tasks:
            screen = TaskScreen(session, task.task_id, series)
            app.push_screen(screen)
            await settle(pilot, rounds=1)
            assert screen.payloads or screen.payload_errors  # the attempt cards are filled
            assert_inert(app, f"task {task.task_id!r}")
            app.pop_screen()

        for task_id in HOSTILE_TASKS:
            diagnostics = DiagnosticsScreen(session, task_id, 1)
            app.push_screen(diagnostics)
            await settle(pilot, rounds=1)
            for number, source in enumerate(diagnostics.sources):
                diagnostics.source_list.highlighted = number
                await settle(pilot, rounds=1)
                assert diagnostics.current_key == source.key and not diagnostics.pager.loading
                assert_inert(app, f"diagnostics {task_id!r} {source.key}")
            app.pop_screen()

        await pilot.press("i")
        await settle(pilot)
        assert_inert(app, "issues")


@pilot_test
async def test_execution_diagnostics_are_shown_literally() -> None:
    app = InspectorApp([HOSTILE])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        diagnostics = DiagnosticsScreen(overview.session, "ansi\x1b[2Jclear", 1)
        app.push_screen(diagnostics)
        await settle(pilot)
        assert diagnostics.sources[0].key == "diagnostics"
        shown = screen_text(app)
        assert "␛[31mTraceback (most recent call last):␛[0m" in shown
        assert "␛]52;c;aGVsbG8=␇" in shown
        assert "progress 10%␍ progress 100%" in shown
        assert "[link=https://example.com]y[/link]" in shown
        assert_inert(app, "execution_diagnostics")


def test_the_check_catches_what_it_should(tmp_path: Path) -> None:
    """The filter itself: raw escape sequences and invisible characters are caught."""
    for sample in ("\x1b[2J", "\x1b]52;c;eA==\x07", "a\u202eb", "a\u200db", "\r", "\x08"):
        rest = ALLOWED.sub("", f"\x1b[1;1H\x1b[38;2;1;2;3mok{sample}\x1b[0m")
        assert any(
            (ord(c) < 0x20 and c != "\n") or ord(c) in INVISIBLE or c == "\x1b" for c in rest
        ), repr(sample)
    assert ALLOWED.sub("", "\x1b[12;40H\x1b[1;38;2;10;20;30;48;2;0;0;0mtext\x1b[0m") == "text"
