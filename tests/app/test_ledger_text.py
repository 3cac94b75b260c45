"""The count ledger's words (issue 14): "1 task listed", and every reason whole on screen.

At 80 columns the reason column is cut; the panel under the table holds the cursor's task
with every reason in full (issue 14 item 6: "the ledger's reason column is cut").
"""

from __future__ import annotations

import re

from inspector.app.app import InspectorApp
from inspector.app.screens.ledger import LedgerScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.views.audit import Scope

from .helpers import pilot_test, settle, static_text


def _shown(widget) -> str:  # type: ignore[no-untyped-def]
    """What ``widget`` draws on screen, its lines joined and spaces collapsed."""
    lines = ("".join(s.text for s in widget.render_line(y)) for y in range(widget.size.height))
    return " ".join(" ".join(lines).split())


async def _ledger(pilot, app: InspectorApp, *args) -> LedgerScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    overview = app.screen
    assert isinstance(overview, OverviewScreen)
    overview.open_ledger(*args)
    await settle(pilot)
    ledger = app.screen
    assert isinstance(ledger, LedgerScreen)
    return ledger


@pilot_test
async def test_one_task_behind_a_count_is_1_task_listed(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("compare_a")])
    async with app.run_test(size=(100, 30)) as pilot:
        ledger = await _ledger(pilot, app, "correct.native@1", "error", Scope(category="Chemistry"))
        assert len(ledger.tasks) == 1
        title = static_text(ledger.title_bar)
        assert "count error = 1 · 1 task listed" in title, title
        assert not re.search(r"\b1 tasks\b", title), title


@pilot_test
async def test_every_reason_is_whole_on_screen_at_80_columns(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(80, 24)) as pilot:
        ledger = await _ledger(pilot, app, "correct.avg@3", "error")
        table = ledger.task_table
        reason = table.get_column_index("reason")
        cut = 0
        for row, task in enumerate(ledger.tasks):
            table.move_cursor(row=row)
            await pilot.pause()
            cell = table.get_cell_at((row, reason)).plain
            cut += len(cell) > table.columns[reason].width  # the column itself is too narrow
            shown = _shown(ledger.reasons)
            assert task.task_id in shown
            for each in task.reasons:
                assert " ".join(each.text.split()) in shown, (each.text, shown)
        assert cut, "no reason was cut at 80 columns: this test shows nothing"
