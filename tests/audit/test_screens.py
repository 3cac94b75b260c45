"""The ledger, explain and compare screens, driven with Pilot on conformance runs."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import DataTable

from inspector.app.navigation import TaskChosen, TaskPairChosen
from inspector.app.navigator import Navigator
from inspector.app.screens.compare import CompareScreen
from inspector.app.screens.explain import ExplainScreen
from inspector.app.screens.ledger import LedgerScreen
from inspector.views.audit import Scope
from inspector.views.compare import compare, compare_plans
from inspector.views.tasks import natural_key
from widgets.record_table import RecordTable

from .helpers import CONFORMANCE, attempt, issue, pilot_test, rescore, session, task


class Host(Navigator):
    """An app that shows one screen, moves between screens as the inspector does (the
    navigator) and records the task messages it receives."""

    def __init__(self, screen: Screen[None]) -> None:
        super().__init__()
        self.first = screen
        self.chosen: list[object] = []

    def on_mount(self) -> None:
        self.push_screen(self.first)

    def on_task_chosen(self, message: TaskChosen) -> None:
        self.chosen.append(message)

    def on_task_pair_chosen(self, message: TaskPairChosen) -> None:
        self.chosen.append(message)


def _keys(table: DataTable | RecordTable) -> list[str]:
    """Row keys of a DataTable, task ids of a virtual table of tasks."""
    if isinstance(table, RecordTable):
        return [row.task_id for row in table.rows]
    return [row.value for row in table.rows]


async def settled(pilot) -> None:  # type: ignore[no-untyped-def]
    """Let the screens' workers (ledger tasks, explanations) finish and post their results."""
    for _ in range(2):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


@pilot_test
async def test_ledger_lists_the_tasks_behind_a_count_and_cycles_counts() -> None:
    rec = session(CONFORMANCE / "syn_k1_binary_aux_micro").recomputation
    screen = LedgerScreen(rec, None, "unavailable")
    app = Host(screen)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        assert _keys(screen.task_table) == ["gamma-1", "gamma-2", "beta-2"]
        title = str(screen.title_bar.render())
        assert "count unavailable = 3" in title and "1 in state error plus 2" in title
        await pilot.press("n")  # unavailable → invalidated
        await settled(pilot)
        assert screen.count == "invalidated" and _keys(screen.task_table) == []
        await pilot.press("n", "n")  # → total → evaluated
        await settled(pilot)
        assert screen.count == "evaluated" and len(screen.task_table.rows) == 7
        await pilot.press("enter")
        assert [m.task_id for m in app.chosen] == [_keys(screen.task_table)[0]]


@pilot_test
async def test_ledger_shows_control_characters_literally(tmp_path) -> None:
    rec = rescore(
        [task("evil\x1b[2J", [attempt(1, {}, issue("error", "run", "x", "[bold]boom\x07"))])]
    )
    screen = LedgerScreen(rec, None, "error")
    async with Host(screen).run_test(size=(120, 30)) as pilot:
        await settled(pilot)
        cell = screen.task_table.get_cell_at((0, 0))
        assert cell.plain == "evil␛[2J"
        reasons = screen.reasons.render()
        assert "[bold]boom␇" in str(reasons)


@pilot_test
async def test_explain_drills_down_from_root_to_node() -> None:
    rec = session(CONFORMANCE / "syn_k1_hierarchy").recomputation
    screen = ExplainScreen(rec)
    app = Host(screen)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        assert screen.explanation is not None
        assert [term.label for term in screen.term_table.rows] == [
            term.label for term in screen.explanation.terms
        ]
        assert screen.term_table.row_count == 3
        assert "weighted" in str(screen.summary.render())
        await pilot.press("enter")  # the first child: apps
        await settled(pilot)
        top = app.screen
        assert isinstance(top, ExplainScreen) and top.scope == Scope(node="overall/apps")
        await pilot.press("l")
        await settled(pilot)
        assert isinstance(app.screen, LedgerScreen) and app.screen.scope == Scope(
            node="overall/apps"
        )
        await pilot.press("escape", "escape")
        assert app.screen is screen


@pilot_test
async def test_compare_shows_k1_beside_avg3_and_filters_tasks() -> None:
    rec = session(CONFORMANCE / "e2e_k3_avg_category_mean").recomputation
    comparison = compare_plans(rec, k=1)
    screen = CompareScreen(comparison)
    app = Host(screen)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        assert len(screen.series_table.rows) == 2
        row = screen.series_table.get_row_at(0)
        assert str(row[0]) == "correct.avg@3 ↔ correct.native@1"
        # the value, then (once computed) its 95% interval
        assert str(row[1]).split(" ")[0] == f"{rec.report.series[0].shown_value:.6g}"
        # default filter: every changed task (avg@3 values against 0/1 change in value)
        changed = [c.task_id for c in screen.comparison.tasks(screen.pair) if c.changed]
        assert changed and _keys(screen.task_table) == sorted(changed, key=natural_key)
        await pilot.press("ctrl+f", "ctrl+f", "ctrl+f")  # changes → flips → states → all
        await settled(pilot)
        assert screen.task_filter == "all" and len(screen.task_table.rows) == 10
        await app.workers.wait_for_complete()
        await pilot.pause()
        stats = str(screen.stats_line.render())
        # A has three attempts per task: McNemar does not apply; the series delta's does
        delta = comparison.pair().delta
        assert delta is not None and f"series delta B − A {delta:+.4g}" in stats
        assert "McNemar" not in stats


@pilot_test
async def test_compare_two_runs_lists_the_flips(tmp_path) -> None:
    from .test_compare import _built_b

    a = session(CONFORMANCE / "e2e_k1_micro").recomputation
    b = session(_built_b(tmp_path)).recomputation
    screen = CompareScreen(compare(a, b, label_a="A", label_b="B"))
    app = Host(screen)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        # in natural order of the ids
        assert _keys(screen.task_table) == ["_v1_9", "code_v1_4", "math_v1_1", "math_v1_2"]
        await pilot.press("ctrl+f")  # flips only
        await settled(pilot)
        assert _keys(screen.task_table) == ["code_v1_4", "math_v1_1"]
        screen.task_table.focus()
        await pilot.press("enter")
        assert [(m.task_id, m.series_a, m.series_b) for m in app.chosen] == [
            ("code_v1_4", "correct.native@1", "correct.native@1")
        ]
