"""Helpers for Pilot tests."""

from __future__ import annotations

import asyncio
import functools
import io
from collections.abc import Awaitable, Callable
from typing import Any

from textual.message import Message
from textual.pilot import Pilot
from textual.worker import WorkerCancelled


async def settle(pilot: Pilot[None], rounds: int = 3) -> None:
    """Let workers finish and their messages be handled.

    An exclusive worker replaced by a newer one of its group ends cancelled: that is the app
    working as meant (a reload supersedes the task rows being built), so it does not fail the wait.
    """
    for _ in range(rounds):
        await pilot.pause()
        for _ in range(10):
            try:
                await pilot.app.workers.wait_for_complete()
                break
            except WorkerCancelled:
                await pilot.pause()
    await pilot.pause()


def cell_text(table, row: int, column: str) -> str:  # type: ignore[no-untyped-def]
    """The plain text of one DataTable cell."""
    value = table.get_cell_at((row, table.get_column_index(column)))
    return value.plain if hasattr(value, "plain") else str(value)


def pilot_test(function: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an ``async def`` test with ``asyncio.run`` (no async pytest plugin needed)."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(function(*args, **kwargs))

    return wrapper


def capture(widget: Any, kind: type[Message]) -> list[Any]:
    """Record every ``kind`` message ``widget`` posts (they are still delivered)."""
    seen: list[Any] = []
    original = widget.post_message

    def post(message: Message) -> bool:
        if isinstance(message, kind):
            seen.append(message)
        return bool(original(message))

    widget.post_message = post
    return seen


def static_text(widget: Any, width: int = 200) -> str:
    """The plain text a Static shows (its content rendered without styles)."""
    from rich.console import Console

    console = Console(width=width, color_system=None, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


async def compare_marked(pilot: Pilot[None], names: tuple[str, str]) -> Any:
    """On the runs screen, mark the runs whose folders are ``names`` (A, then B), press c and
    wait for the compare screen; returns it."""
    from inspector.app.screens.compare import CompareScreen
    from inspector.app.screens.runs import RunsScreen

    await settle(pilot)
    runs = pilot.app.screen
    assert isinstance(runs, RunsScreen)
    shown = [run.path.name for run in runs.shown]
    for name in names:
        runs.run_table.move_cursor(row=shown.index(name))
        await pilot.press("m")
    await pilot.press("c")
    for _ in range(100):
        await settle(pilot)
        if isinstance(pilot.app.screen, CompareScreen):
            break
        await pilot.pause(0.1)
    screen = pilot.app.screen
    assert isinstance(screen, CompareScreen)
    return screen
