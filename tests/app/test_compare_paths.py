"""What-if plans beside the stored plan, and two marked runs compared from the runs screen."""

from __future__ import annotations

import json
from pathlib import Path

from inspector.app.app import InspectorApp
from inspector.app.commands import InspectorCommands
from inspector.app.screens.compare import CompareScreen
from inspector.app.screens.diagnostics import DiagnosticsScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.runs import RunsScreen
from inspector.app.screens.task import TaskScreen
from inspector.app.screens.whatif import WhatIfScreen
from tests.conftest import open_session as open_run

from .helpers import cell_text, pilot_test, settle, static_text

SIZE = (140, 45)


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.6g}"


def _keys(table) -> list[str]:  # type: ignore[no-untyped-def]
    """Task ids of the compare screen's (virtual) task table."""
    return [row.task_id for row in table.rows]


@pilot_test
async def test_what_if_shows_k1_beside_avg3(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        await pilot.press("w")
        await settle(pilot)
        chooser = app.screen
        assert isinstance(chooser, WhatIfScreen)
        assert [c.label for c in chooser.choices] == ["k=1", "avg@2", "pass@2", "pass@3"]
        # the k=1 lottery (a worker): attempt 1's value is the genuine k=1 run's
        genuine = open_run(run_path("k3_avg_first_attempt")).recomputation
        assert genuine is not None
        one = genuine.report.series_by_id("correct.native@1").value
        lottery = static_text(chooser.query_one("#whatif-lottery"), width=400)
        assert f"correct.native@1 on attempt 1 / 2 / 3: {one:.4g} / " in lottery
        assert "beside correct.avg@3 0.5469, correct.pass@3 0.8241" in lottery
        await pilot.press("enter")  # k=1
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        c = screen.comparison
        assert c.kind == "plans" and c.derivation is not None and c.derivation.equivalent
        # Both series side by side: avg@3 (the stored plan) and k=1 (derived).
        # each value, then (computed in a worker) its 95% interval
        row = [str(cell).split(" [")[0] for cell in screen.series_table.get_row_at(0)]
        stored = c.a.report.series_by_id("correct.avg@3")
        derived = c.b.report.series_by_id("correct.native@1")
        assert row[:3] == [
            "correct.avg@3 ↔ correct.native@1",
            _number(stored.shown_value),
            _number(derived.shown_value),
        ]
        headers = [str(col.label) for col in screen.series_table.ordered_columns]
        assert headers[1:3] == ["A avg@3", "B k=1 (derived)"]
        header = static_text(screen.header_text)
        assert "(the stored plan)" in header and "k=1 (derived)" in header
        assert "equivalent to having run it: yes" in header
        assert "B is a derived plan: k=1 on attempt 1 of an avg@3 run" in header
        # k=1 derived from avg@3 equals the same tasks run with k=1 (the fixture built so).
        first = open_run(run_path("k3_avg_first_attempt")).recomputation
        assert first is not None
        alone = first.report.series_by_id("correct.native@1")
        assert (derived.value, derived.counts) == (alone.value, alone.counts)
        assert row[5] == "/".join(
            str(getattr(alone.counts, n))
            for n in ("total", "evaluated", "error", "unavailable", "invalidated")
        )
        # The changed tasks open on either side; side B is the derived plan (one attempt).
        assert screen.shown
        screen.task_table.focus()
        await pilot.press("enter")
        await settle(pilot)
        task = app.screen
        assert isinstance(task, TaskScreen) and task.session is app.session
        await pilot.press("escape", "b")
        await settle(pilot)
        task = app.screen
        assert isinstance(task, TaskScreen)
        assert task.session.recomputation is c.b and [card.index for card in task.cards] == [1]
        assert "derived plan: k=1 on attempt 1 of an avg@3 run" in static_text(
            task.query_one("#task-head")
        )
        await pilot.press("escape")
        await settle(pilot)
        # D: exactly the tasks that moved, grouped by kind, counts adding up
        await pilot.press("D")
        await settle(pilot)
        moved = {ch.task_id for ch in c.changes(c.opening_pair())}
        assert {ch.task_id for ch in screen.shown} == moved and len(moved) == 12
        kinds = [ch.kind for ch in screen.shown]
        assert kinds == sorted(kinds, key=kinds.index)  # each kind in one block
        line = static_text(screen.stats_line, width=400)
        assert "12 tasks moved: 3 value down, 6 value up, 3 error→evaluated" in line
        await pilot.press("escape")
        assert app.screen is overview


@pilot_test
async def test_what_if_pass_run_as_avg_is_labelled_not_equivalent(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_pass")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        chooser = app.screen
        assert isinstance(chooser, WhatIfScreen)
        labels = [c.label for c in chooser.choices]
        assert labels == ["k=1", "avg@2", "pass@2", "avg@3"]
        chooser.option_list.highlighted = labels.index("avg@3")
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        header = static_text(screen.header_text)
        assert "avg@3 (derived)" in header
        assert "equivalent to having run it: no" in header and "never run" in header
        # w picks another plan: the new comparison replaces this one.
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(app.screen, WhatIfScreen)
        await pilot.press("enter")  # k=1
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen) and app.screen is not screen
        assert app.screen.comparison.label_b == "k=1 (derived)"
        assert len(app.screen_stack) == 3  # default, overview, compare


@pilot_test
async def test_what_if_is_hidden_on_a_k1_run(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k1_micro")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        assert overview.check_action("what_if", ()) is False
        await pilot.press("w")
        await settle(pilot)
        assert app.screen is overview


@pilot_test
async def test_runs_screen_marks_two_runs_and_compares_them(runs_root: Path) -> None:
    expected = json.loads((runs_root / "compare_expected.json").read_text())
    app = InspectorApp([runs_root])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        runs = app.screen
        assert isinstance(runs, RunsScreen)
        names = [run.path.name for run in runs.shown]
        assert runs.check_action("compare", ()) is None  # greyed out until two are marked
        for name in (expected["a"], expected["b"]):
            runs.run_table.move_cursor(row=names.index(name))
            await pilot.press("m")
        assert [p.name for p in runs.marked] == [expected["a"], expected["b"]]
        row = names.index(expected["a"])
        assert cell_text(runs.run_table, row, "mark") == "●"
        assert runs.check_action("compare", ()) is True
        commands = {t for t, _, _ in InspectorCommands(runs).commands()}
        assert "compare: the two marked runs" in commands
        await pilot.press("c")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        c = screen.comparison
        assert c.kind == "runs" and (c.label_a, c.label_b) == (expected["a"], expected["b"])
        assert screen.pair.label == expected["series"]
        flips = expected["flips"]
        # Default filter: flips and state changes — exactly the designed differences.
        shown = {ch.task_id: ch.kind for ch in screen.shown}
        assert shown == {
            **{t: "flip 0→1" for t in flips["0_to_1"]},
            **{t: "flip 1→0" for t in flips["1_to_0"]},
            **{t: "error→evaluated" for t in flips["error_to_evaluated"]},
            **{t: "evaluated→error" for t in flips["evaluated_to_error"]},
        }
        await pilot.press("D")  # the moved tasks, grouped by kind
        await settle(pilot)
        groups = [("flip 1→0", flips["1_to_0"]), ("flip 0→1", flips["0_to_1"]),
                  ("error→evaluated", flips["error_to_evaluated"]),
                  ("evaluated→error", flips["evaluated_to_error"])]  # fmt: skip
        assert [(ch.kind, ch.task_id) for ch in screen.shown] == [
            (kind, t) for kind, ids in groups for t in sorted(ids, key=int)
        ]
        counts = ", ".join(f"{len(ids)} {kind}" for kind, ids in groups if ids)
        assert f"tasks moved: {counts}" in static_text(screen.stats_line, width=400)
        await pilot.press("ctrl+f", "ctrl+f")  # from D back to the filters: changed, flips
        await settle(pilot)
        assert screen.task_filter == "flips"
        assert sorted(_keys(screen.task_table), key=int) == sorted(
            flips["0_to_1"] + flips["1_to_0"], key=int
        )
        # Paired statistics come from a worker; the run-vs-run warning names what differs.
        await settle(pilot)
        stats = static_text(screen.stats_line)
        down, up = len(flips["1_to_0"]), len(flips["0_to_1"])
        assert f"McNemar exact (two-sided): {down} 1→0 vs {up} 0→1" in stats
        assert "series delta B − A" in stats and "(MOVER, 18 of 20 tasks paired" in stats
        assert "seed" not in stats and "p inverts the CI" in stats  # nothing is random
        header = static_text(screen.header_text)
        # the runs are alike but for the model: no warning, a note says what was compared
        assert c.warnings == () and "⚠" not in header
        assert "compared: model differs" in header
        # enter opens the task in run A, b in run B.
        screen.task_table.focus()
        first = screen.shown[0].task_id
        await pilot.press("enter")
        await settle(pilot)
        task = app.screen
        assert isinstance(task, TaskScreen)
        assert task.task_id == first and task.session.run.path.name == expected["a"]
        await pilot.press("escape", "b")
        await settle(pilot)
        task = app.screen
        assert isinstance(task, TaskScreen)
        assert task.task_id == first and task.session.run.path.name == expected["b"]
        # the side stays labelled down to the attempt's diagnostics
        assert task.side == f"side B: {expected['b']}"
        await pilot.press("d")
        await settle(pilot)
        diagnostics = app.screen
        assert isinstance(diagnostics, DiagnosticsScreen)
        assert f"side B: {expected['b']}" in diagnostics.sub_title
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("escape", "escape")
        assert app.screen is runs


@pilot_test
async def test_marking_a_third_run_drops_the_first(runs_root: Path) -> None:
    app = InspectorApp([runs_root])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        runs = app.screen
        assert isinstance(runs, RunsScreen)
        for row in range(3):
            runs.run_table.move_cursor(row=row)
            await pilot.press("m")
        assert runs.marked == [runs.shown[1].path, runs.shown[2].path]
        await pilot.press("m")  # unmark the third
        assert runs.marked == [runs.shown[1].path]
