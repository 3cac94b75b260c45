"""The compare screen's waterfall (W): where B − A came from, each part opening its tasks."""

from __future__ import annotations

import math

from inspector.app.app import InspectorApp
from inspector.app.screens.compare import CompareScreen
from inspector.views.decomposition import decomposition_of
from widgets.waterfall import Waterfall

from ..conftest import conformance_run
from .helpers import pilot_test, settle

SIZE = (140, 45)


def _lines(waterfall: Waterfall) -> list[str]:
    return [str(waterfall.get_option_at_index(i).prompt) for i in range(waterfall.option_count)]


@pilot_test
async def test_w_shows_the_parts_and_enter_lists_a_parts_tasks() -> None:
    app = InspectorApp([str(conformance_run("e2e_k3_avg_category_mean"))])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        await pilot.press("enter")  # k=1
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        waterfall = screen.query_one(Waterfall)
        assert not waterfall.display  # until W
        await pilot.press("W")
        await settle(pilot)
        assert waterfall.display and waterfall.has_focus
        d = decomposition_of(screen.comparison, screen.pair)
        assert d is not None and [p.group for p in d.parts] == ["up", "down"]
        lines = _lines(waterfall)
        # A's value, one row per part with its amount, B's value and the method
        assert len(lines) == 4
        assert lines[0].startswith("A ") and f"{d.a:.4g}" in lines[0]
        assert lines[1].startswith("values up") and "+0.1389" in lines[1] and "2 tasks" in lines[1]
        assert lines[2].startswith("values down") and "−0.1667" in lines[2]
        assert lines[3].startswith("B ") and f"{d.b:.4g}" in lines[3]
        assert lines[3].endswith("(Shapley over groups)")
        assert math.isclose(d.a + sum(p.value for p in d.parts), d.b, abs_tol=1e-12)
        # the first part is highlighted; enter lists its tasks, down + enter the next part's
        await pilot.press("enter")
        await settle(pilot)
        assert {c.task_id for c in screen.shown} == set(d.parts[0].task_ids)
        await pilot.press("down", "enter")
        await settle(pilot)
        assert {c.task_id for c in screen.shown} == set(d.parts[1].task_ids)
        assert len(screen.shown) == 4
        # W again hides it
        await pilot.press("W")
        await settle(pilot)
        assert not waterfall.display


@pilot_test
async def test_two_runs_with_different_tasks_have_parts_for_each_side() -> None:
    from inspector.views.compare import compare
    from tests.conftest import open_session

    a, b = (
        open_session(str(conformance_run(n)))
        for n in ("syn_k1_binary_aux_micro", "syn_k1_hierarchy")
    )
    assert a.recomputation is not None and b.recomputation is not None
    comparison = compare(a.recomputation, b.recomputation, label_a="aux", label_b="hier")
    app = InspectorApp([str(conformance_run("syn_k1_binary_aux_micro"))])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.push_screen(CompareScreen(comparison, (a, b)))
        await settle(pilot)
        await pilot.press("W")
        await settle(pilot)
        lines = _lines(app.screen.query_one(Waterfall))
        names = [line.split("  ")[0] for line in lines[1:-1]]
        assert names == ["tasks only in A", "tasks only in B", "weight changes"]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        assert {c.task_id for c in app.screen.shown} == set(comparison.only_a)
