"""Intervals in the overview, the tree and compare; the flaky-tasks view and its curves."""

from __future__ import annotations

import math

from inspector.app.app import InspectorApp
from inspector.app.screens.compare import CompareScreen
from inspector.app.screens.flaky import FlakyScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.task import TaskScreen
from inspector.views.compare import compare_plans
from inspector.views.run_stats import series_stats

from .helpers import cell_text, pilot_test, settle, static_text

SIZE = (140, 45)


@pilot_test
async def test_overview_and_tree_show_the_intervals_of_run_stats(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        rec = screen.session.recomputation
        for row, series in enumerate(rec.report.series):
            interval = series_stats(rec, series).own.interval
            expected = f"[{interval.ci_low:.3g}, {interval.ci_high:.3g}]"
            assert cell_text(screen.series_table, row, "interval") == expected
        root = screen.category_tree.root.children[0]  # overall
        overall = series_stats(rec, rec.report.series[0]).hierarchy[0]
        assert overall.key == "overall"
        # the bounds, rounded outwards to hundredths (not a symmetric ± of an asymmetric
        # interval)
        low = math.floor(overall.interval.ci_low * 100) / 100
        high = math.ceil(overall.interval.ci_high * 100) / 100
        assert f"{low:.2f}–{high:.2f}".replace("0.", ".") in root.label.plain


@pilot_test
async def test_flaky_view_sorts_and_opens_the_task(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FlakyScreen)
        # the title says which run (as every screen's does), the sub-title where in it
        assert screen.title == "runs/k3_avg_hierarchy" and screen.sub_title == "flaky tasks"
        chart = static_text(screen.query_one("#pass-curves"))
        assert "pass@1" in chart and "pass^3" in chart and "0.562" in chart
        assert "correct.pass@3 = 0.824" in chart
        by_disagreement = [f.task_id for f in screen.shown]
        assert len(by_disagreement) == 9
        await pilot.press("s")
        await settle(pilot)
        assert [f.task_id for f in screen.shown] == sorted(by_disagreement)
        first = screen.shown[0].task_id
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TaskScreen) and app.screen.task_id == first


@pilot_test
async def test_compare_plans_shows_each_side_interval_and_the_series_delta(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rec = app.screen.session.recomputation
        comparison = compare_plans(rec, k=1)
        app.push_screen(CompareScreen(comparison))
        await settle(pilot)
        screen = app.screen
        pair = comparison.series[0]
        a = series_stats(comparison.a, pair.a).own.interval
        b = series_stats(comparison.b, pair.b).own.interval
        assert cell_text(screen.series_table, 0, "a").endswith(f"[{a.ci_low:.3g}, {a.ci_high:.3g}]")
        assert cell_text(screen.series_table, 0, "b").endswith(f"[{b.ci_low:.3g}, {b.ci_high:.3g}]")
        stats = static_text(screen.stats_line)
        # the paired line is of the headline delta itself: B's value minus A's
        delta = pair.b.shown_value - pair.a.shown_value
        assert f"series delta B − A {delta:+.4g}" in stats and "McNemar" not in stats
