"""Snapshots of the task, diagnostics and tasks screens on fixtures/runs/hostile (issue 7).

The hostile run's task ids, categories, answers, ground truths, issue messages and
diagnostics hold Rich markup, ANSI / OSC sequences, BEL, backspaces, carriage returns,
right-to-left overrides and zero-width joiners. Every screen shows them literally (␛, ␇,
␈, ␍, <U+202E>, <U+200D>, markup as typed) and nothing else on the terminal changes. These
add the sizes and screens tests/snapshots/test_snapshots.py does not cover (its hostile
tests: tasks and the emoji task at 140×45, the raw result.json at 100×30); what reaches
the terminal is checked byte by byte in tests/robustness/test_rendered_output.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from inspector.app import payloads
from inspector.app.screens.diagnostics import DiagnosticsScreen
from inspector.app.screens.task import TaskScreen
from tests.snapshots.test_snapshots import (
    LARGE,
    SMALL,
    RunBefore,
    make_app,
    open_tasks,
    overview,
    settle,
    steps,
)

ANSI = "ansi\x1b[2Jclear"
OSC8 = "osc8\x1b]8;;https://e.com\x1b\\link\x1b]8;;\x1b\\"
RTL = "rtl\u202etxt.exe"


def open_task_id(task_id: str) -> Callable[[Pilot[None]], None]:
    def action(pilot: Pilot[None]) -> None:
        screen = overview(pilot)
        assert screen.selected_series is not None
        pilot.app.push_screen(TaskScreen(screen.session, task_id, screen.selected_series))

    return action


def open_diagnostics_of(task_id: str, source: str | None = None) -> RunBefore:
    async def action(pilot: Pilot[None]) -> None:
        diagnostics = DiagnosticsScreen(overview(pilot).session, task_id, 1)
        pilot.app.push_screen(diagnostics)
        await settle(pilot)
        if source is not None:
            keys = [s.key for s in diagnostics.sources]
            diagnostics.source_list.highlighted = keys.index(source)
            await settle(pilot)
        diagnostics.pager.focus()

    return action


class TestHostileTasksScreen:
    def test_all_tasks_small(self, snap_compare: Any) -> None:
        """You should see all 14 hostile task ids and categories in the tasks table at
        100×30: ␛[2J, ␇, ␈, ␍, ␊, <U+202E>, <U+200D> made visible, [bold red]x[/] and
        [link=…] as typed, CJK and emoji intact, columns aligned."""
        assert snap_compare(
            make_app("hostile"), terminal_size=SMALL, run_before=steps(open_tasks())
        )


class TestHostileTaskScreen:
    def test_ansi_task_small(self, snap_compare: Any) -> None:
        """You should see task "ansi␛[2Jclear" at 100×30: category ␛[31mred␛[0m, the
        answer ␛[2J␛[Hwiped, and the issue code [red]model_failed[/] with its message
        ␛[31mHTTP 400␛[0m … ␛]52;c;aGVsbG8=␇ (an OSC 52 clipboard write, shown, not run)."""
        assert snap_compare(
            make_app("hostile"), terminal_size=SMALL, run_before=steps(open_task_id(ANSI))
        )

    def test_rtl_task(self, snap_compare: Any) -> None:
        """You should see task "rtl<U+202E>txt.exe" with category "<U+202E>right-to-left"
        and the answer "<U+202E>gnp.exe": the override is named, so no text is reversed."""
        assert snap_compare(
            make_app("hostile"), terminal_size=LARGE, run_before=steps(open_task_id(RTL))
        )


class TestHostileDiagnosticsScreen:
    def test_execution_diagnostics(self, snap_compare: Any) -> None:
        """You should see the execution_diagnostics traceback of "ansi␛[2Jclear": colour
        codes as ␛[31m…␛[0m, an OSC 52 write and an OSC 8 link as ␛]…␇ / ␛]8;;…␛\\, the
        carriage return in "progress 10%␍ progress 100%", markup as typed, line numbers."""
        assert snap_compare(
            make_app("hostile"),
            terminal_size=LARGE,
            run_before=steps(open_diagnostics_of(ANSI, "diagnostics")),
        )

    def test_trajectory_small(self, snap_compare: Any) -> None:
        """You should see the trajectory of the OSC 8 task step by step at 100×30: the
        user content, the assistant's tool call arguments and the tool observation with
        every escape sequence made visible."""
        assert snap_compare(
            make_app("hostile"),
            terminal_size=SMALL,
            run_before=steps(open_diagnostics_of(OSC8, "trajectory")),
        )

    def test_result_too_large_to_parse(
        self, snap_compare: Any, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """You should see, with the parse limit lowered to 1 KiB, the diagnostics of
        "ansi␛[2Jclear" open on "result.json (raw file)", first in the list, with the notice
        "result.json: 3.2 KiB, more than the 1.0 KiB the inspector parses for display: the
        raw file is paged from disk; o opens it in $PAGER" above the pager."""
        monkeypatch.setattr(payloads, "PARSE_LIMIT", 1024)
        assert snap_compare(
            make_app("hostile"), terminal_size=LARGE, run_before=steps(open_diagnostics_of(ANSI))
        )
