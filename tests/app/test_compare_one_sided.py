"""``b`` on a task that exists only in A says so (issue 49, item 7), instead of silently
opening side A."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from tests.audit.helpers import drop_task
from tests.conftest import conformance_run

from .helpers import compare_marked, pilot_test, settle


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    shutil.copytree(conformance_run("e2e_k1_micro"), root / "a")
    shutil.copytree(conformance_run("e2e_k1_micro"), root / "b")
    drop_task(root / "b", "_v1_9")  # only in A
    return root


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (140, 45)])
@pilot_test
async def test_b_on_a_task_only_in_a_says_so(tmp_path: Path, size) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([_root(tmp_path)])
    notes: list[str] = []
    async with app.run_test(size=size) as pilot:
        screen = await compare_marked(pilot, ("a", "b"))
        assert (screen.comparison.label_a, screen.comparison.label_b) == ("a", "b")
        await pilot.press("ctrl+f", "ctrl+f", "ctrl+f")  # all tasks
        await settle(pilot)
        assert screen.task_filter == "all"
        row = [ch.task_id for ch in screen.shown].index("_v1_9")
        screen.task_table.move_cursor(row=row)
        await settle(pilot)
        app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        await pilot.press("b")
        await settle(pilot)
        assert app.screen is screen  # nothing opened in place of B
        assert notes == ["_v1_9 is only in A (a): B has no such task; enter opens it in A"]
