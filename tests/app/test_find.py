"""Issue 40: find anything in three keys, see everything at 80 columns — run names that
tell runs apart, keys that move the cursor, the palette's providers, ``/`` and ``:``."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from tests.conftest import FIXTURE_RUNS
from tests.results_root import checked_screen

from .helpers import pilot_test, settle
from .test_runs_recomputed import assert_outward

NAMESPACE = "gpt_scicode_scicode_tool_use_namespace"
ALIKE = (
    f"{NAMESPACE}/syn_alpha_avg_fatal_hierarchy",  # differ in the middle
    f"{NAMESPACE}/syn_beta_avg_fatal_hierarchy",
    f"{NAMESPACE}/20261130_000001",  # differ at the end
    f"{NAMESPACE}/20261130_000002",
)


@pytest.fixture
def alike_root(tmp_path: Path) -> Path:
    """Four runs of one long namespace: two differ only in the middle of their folder
    name, two only at its end; one model is gpt-5, the other gpt-5-mini."""
    root = tmp_path / "results"
    for n, relative in enumerate(ALIKE):
        shutil.copytree(FIXTURE_RUNS / ("compare_a" if n % 2 else "compare_b"), root / relative)
    return root


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (140, 45)])
@pilot_test
async def test_run_names_under_a_root_are_unique_at_every_size(
    alike_root: Path, size: tuple[int, int]
) -> None:
    app = InspectorApp([alike_root])
    async with app.run_test(size=size) as pilot:
        screen = await checked_screen(pilot, settle)
        table = screen.run_table
        keys = table.column_keys
        for key in ("run", "model"):
            if key not in keys:
                continue
            shown = {
                row.summary.relative: table.get_cell_at((n, keys.index(key))).plain
                for n, row in enumerate(table.rows_shown)
            }
            names = {row.summary.relative: (row.summary.relative if key == "run" else
                                            row.summary.model) for row in table.rows_shown}  # fmt: skip
            distinct_names = len(set(names.values()))
            assert len(set(shown.values())) == distinct_names, (size, key, shown)
        assert "run" in keys


@pilot_test
async def test_end_and_home_move_the_cursor_of_the_runs_list(alike_root: Path) -> None:
    app = InspectorApp([alike_root])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await checked_screen(pilot, settle)
        table = screen.run_table
        table.focus()
        await pilot.press("end")
        assert table.cursor_row == len(ALIKE) - 1
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.press("pagedown")
        assert table.cursor_row == len(ALIKE) - 1


# Finding a task: the palette, ``/`` and ``:`` each reach it in at most three keys after
# the query (here one: enter).
TASK = "raman-fitting"


async def overview_at(pilot, size=(80, 24)):  # type: ignore[no-untyped-def]
    from inspector.app.screens.overview import OverviewScreen

    await settle(pilot)
    for _ in range(100):
        screen = pilot.app.screen
        if isinstance(screen, OverviewScreen) and screen.session is not None:
            return screen
        await pilot.pause(0.05)
    raise AssertionError("the overview did not load")


async def typed(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    for char in text:
        await pilot.press(char)
    await pilot.pause(0.3)  # the palette searches in a worker
    await settle(pilot)


def on_task(pilot, task_id: str = TASK) -> bool:  # type: ignore[no-untyped-def]
    from inspector.app.screens.task import TaskScreen

    screen = pilot.app.screen
    return isinstance(screen, TaskScreen) and screen.task_id == task_id


@pilot_test
async def test_palette_finds_a_task_id_and_enter_opens_it(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(80, 24)) as pilot:
        await overview_at(pilot)
        await pilot.press("ctrl+p")
        await typed(pilot, "raman")
        await pilot.press("enter")
        await settle(pilot)
        assert on_task(pilot), pilot.app.screen


@pilot_test
async def test_colon_jumps_to_a_task_id_from_the_overview(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(80, 24)) as pilot:
        await overview_at(pilot)
        await pilot.press("colon")
        await typed(pilot, "raman")
        await pilot.press("enter")
        await settle(pilot)
        assert on_task(pilot), pilot.app.screen


@pilot_test
async def test_slash_on_the_tasks_screen_filters_as_you_type_and_enter_opens(run_path) -> None:  # type: ignore[no-untyped-def]
    from inspector.app.screens.tasks import TasksScreen

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(80, 24)) as pilot:
        await overview_at(pilot)
        await pilot.press("t")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, TasksScreen)
        await pilot.press("slash")
        await typed(pilot, "raman")
        assert [row.task_id for row in screen.shown] == [TASK]
        await pilot.press("enter")
        await settle(pilot)
        assert on_task(pilot), pilot.app.screen
        await pilot.press("escape")
        await settle(pilot)
        # escape in the field clears it and gives the table the focus back
        screen.filter_bar.query_one("#text").focus()
        await pilot.press("escape")
        await settle(pilot)
        assert screen.task_filter.text == "" and len(screen.shown) == screen.total
        assert screen.focused is screen.task_table


@pilot_test
async def test_slash_finds_the_reason_text_too(run_path) -> None:  # type: ignore[no-untyped-def]
    """The text filter looks in the reduction's words: ``missing`` finds the tasks whose
    attempt is missing."""
    from inspector.app.screens.tasks import TasksScreen

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(140, 45)) as pilot:
        await overview_at(pilot)
        await pilot.press("t")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, TasksScreen)
        await pilot.press("slash")
        await typed(pilot, "missing")
        assert screen.shown and all("missing" in row.words for row in screen.shown)


@pilot_test
async def test_palette_opens_a_run_of_the_root_then_a_category(alike_root: Path) -> None:
    from inspector.app.screens.overview import OverviewScreen
    from inspector.app.screens.tasks import TasksScreen

    app = InspectorApp([alike_root])
    async with app.run_test(size=(80, 24)) as pilot:
        await checked_screen(pilot, settle)
        await pilot.press("ctrl+p")
        await typed(pilot, "run: beta")
        await pilot.press("enter")
        screen = await overview_at(pilot)
        assert isinstance(screen, OverviewScreen)
        assert screen.path == alike_root / ALIKE[1]
        await pilot.press("ctrl+p")
        await typed(pilot, "category: physics")
        await pilot.press("enter")
        await settle(pilot)
        tasks = pilot.app.screen
        assert isinstance(tasks, TasksScreen)
        assert tasks.task_filter.categories == frozenset({"Physics"})



@pilot_test
async def test_palette_opens_the_root_s_screens_from_inside_a_run(alike_root: Path) -> None:
    """The runs screen's own `l` / `t` are in the palette there already (as keys); these
    commands reach the same screens from any screen of an open run, leaving the run."""
    from inspector.app.screens.items import ItemsScreen
    from inspector.app.screens.leaderboard import LeaderboardScreen
    from inspector.app.screens.runs import RunsScreen

    app = InspectorApp([alike_root])
    async with app.run_test(size=(80, 24)) as pilot:
        await checked_screen(pilot, settle)
        for query, screen_type in (("screen: leaderboard", LeaderboardScreen),
                                   ("tasks over the runs", ItemsScreen)):  # fmt: skip
            await pilot.press("ctrl+p")
            await typed(pilot, "run: beta")
            await pilot.press("enter")
            await overview_at(pilot)
            await pilot.press("t")  # a screen further in
            await settle(pilot)
            await pilot.press("ctrl+p")
            await typed(pilot, query)
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(pilot.app.screen, screen_type), query
            await pilot.press("escape")
            await settle(pilot)
            assert isinstance(pilot.app.screen, RunsScreen), query

# Every panel of the overview in one key at 80×24.
@pilot_test
async def test_every_overview_panel_is_one_key_away_at_80x24(run_path) -> None:  # type: ignore[no-untyped-def]
    from widgets.category_tree import CategoryTree
    from widgets.distribution import Distribution
    from widgets.plan_panel import PlanPanel
    from widgets.series_table import SeriesTable

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await overview_at(pilot)

        def on_screen(widget) -> bool:  # type: ignore[no-untyped-def]
            region = widget.region
            return bool(widget.display and region.height and region.width >= 40
                        and screen.region.contains_region(region.intersection(screen.region))
                        and region.intersection(screen.region).height)  # fmt: skip

        for key, kind in (("4", PlanPanel), ("3", Distribution), ("2", CategoryTree),
                          ("1", SeriesTable)):  # fmt: skip
            await pilot.press(key)
            await settle(pilot)
            widget = screen.query_one(kind)
            assert on_screen(widget), (key, kind.__name__, widget.region)
        assert screen.focused is screen.series_table


@pilot_test
async def test_p_without_load_problems_says_so(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await overview_at(pilot)
        assert not screen.session.problems
        await pilot.press("p")
        await settle(pilot)
        assert any("No load problems" in str(n.message) for n in app._notifications)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
@pilot_test
async def test_role_and_interval_stay_at_narrow_widths(run_path, size) -> None:  # type: ignore[no-untyped-def]
    """Where the Role and 95% CI columns fold, the role is a mark before the series id and
    the interval's bounds (rounded outwards) follow the value."""
    app = InspectorApp([run_path("compare_a")])
    async with app.run_test(size=size) as pilot:
        screen = await overview_at(pilot)
        await settle(pilot)
        table = screen.series_table
        rec = screen.session.recomputation
        columns = [c.key.value for c in table.ordered_columns]
        for row, series in enumerate(rec.report.series):
            cells = [table.get_cell_at((row, c)).plain for c in range(len(table.columns))]
            if "role" in table.folded:
                mark = {"headline": "H", "auxiliary": "a"}[series.role]
                assert cells[0].split()[0] == mark, (series.role, cells)
            else:
                assert series.role in cells
            if "interval" in table.folded:
                stats = screen.intervals[series.series_id].own.interval
                if stats.ci_low is not None:
                    shown = cells[columns.index("value")].split()
                    assert len(shown) == 2, cells  # the value, then the interval
                    if 0 <= stats.ci_low <= stats.ci_high <= 1:
                        assert_outward(shown[1], stats.ci_low, stats.ci_high)
                    else:  # a scalar's interval: its bounds, outwards to 2 digits
                        left, right = (float(part) for part in shown[1].split("–"))
                        unit = 10 ** (math.floor(math.log10(max(abs(left), abs(right)))) - 1)
                        assert left <= stats.ci_low < left + unit, (shown, stats)
                        assert right - unit < stats.ci_high <= right, (shown, stats)


@pytest.mark.parametrize(("size", "per_row"), [((80, 24), 1), ((100, 30), 2), ((140, 45), 3)])
@pilot_test
async def test_attempt_cards_side_by_side_and_the_next_attempt_key(run_path, size, per_row) -> None:  # type: ignore[no-untyped-def]
    from inspector.app.screens.task import TaskScreen

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=size) as pilot:
        screen = await overview_at(pilot)
        app.push_screen(TaskScreen(screen.session, TASK, "correct.avg@3"))
        await settle(pilot)
        task = app.screen
        assert isinstance(task, TaskScreen)
        rows = {card.region.y for card in task.cards}
        assert len(task.cards) == 3 and len(rows) == -(-3 // per_row), (size, rows)
        first = task.focused_attempt()
        await pilot.press("full_stop")
        await settle(pilot)
        assert task.focused_attempt() == first % 3 + 1
        card = task.cards[task.focused_attempt() - 1]
        assert task.query_one("#task-body").region.contains_region(card.region) or (
            card.region.y >= task.query_one("#task-body").region.y
        )


@pytest.mark.parametrize("size", [(80, 24), (140, 45)])
@pilot_test
async def test_the_title_keeps_the_run_s_own_folder(alike_root: Path, size) -> None:  # type: ignore[no-untyped-def]
    """Under a long namespace the title shortens the namespace, never the part that tells
    the run from its neighbours (``syn_alpha_…`` / ``syn_beta_…``)."""
    from textual.widgets import Header

    app = InspectorApp([alike_root / ALIKE[0]])
    async with app.run_test(size=size) as pilot:
        screen = await overview_at(pilot)
        await settle(pilot)
        shown = str(screen.query_one(Header).query_one("HeaderTitle").render())
        assert "syn_alpha_avg_fatal_hierarchy" in shown, shown
        assert shown.startswith("gpt_"), shown


@pilot_test
async def test_slash_on_the_runs_screen_then_enter_opens_the_first_match(alike_root: Path) -> None:
    from inspector.app.screens.overview import OverviewScreen

    app = InspectorApp([alike_root])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await checked_screen(pilot, settle)
        screen.run_table.focus()
        await pilot.press("end")  # the cursor elsewhere than on the match
        await pilot.press("slash")
        await typed(pilot, "beta")
        await pilot.press("enter")
        overview = await overview_at(pilot)
        assert isinstance(overview, OverviewScreen)
        assert overview.path == alike_root / ALIKE[1]
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("slash")
        await pilot.press("escape")  # escape clears the filter and leaves the field
        await settle(pilot)
        assert screen.filter_input.value == "" and screen.focused is screen.run_table
        assert len(screen.run_table.rows_shown) == len(ALIKE)


@pilot_test
async def test_the_compare_task_table_keeps_eight_rows_at_80x24(run_path) -> None:  # type: ignore[no-untyped-def]
    from inspector.app.screens.compare import CompareScreen
    from inspector.views.compare import compare
    from tests.conftest import open_session

    app = InspectorApp([run_path("compare_a")])
    async with app.run_test(size=(80, 24)) as pilot:
        await overview_at(pilot)
        a, b = open_session(run_path("compare_a")), open_session(run_path("compare_b"))
        assert a.recomputation is not None and b.recomputation is not None
        long = "qwen3-coder-480b-a35b-instruct_terminal_bench_2_terminus2_long_namespace/2026113"
        comparison = compare(a.recomputation, b.recomputation, label_a=f"{long}3",
                             label_b=f"{long}4")  # fmt: skip
        app.push_screen(CompareScreen(comparison, (a, b)))
        await settle(pilot)
        table = app.screen.query_one("#compare-tasks")
        assert table.region.height >= 1 + 8, table.region  # its header and 8 rows


@pilot_test
async def test_diagnostics_sources_break_between_words_at_80_columns(run_path) -> None:  # type: ignore[no-untyped-def]
    from textual.widgets import OptionList

    from inspector.app.screens.diagnostics import DiagnosticsScreen

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await overview_at(pilot)
        app.push_screen(DiagnosticsScreen(screen.session, TASK, 1))
        await settle(pilot)
        options = app.screen.query_one("#sources", OptionList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any(p.replace("\n", "") == "artifacts.execution_diagnostics" for p in prompts)
        labels = {source.label for source in app.screen.sources}
        for prompt in prompts:
            lines = prompt.split("\n")
            assert all(len(line) <= 25 for line in lines), prompt
            for n, line in enumerate(lines[:-1]):  # each break at a space (dropped), or
                head, tail = "\n".join(lines[: n + 1]), "\n".join(lines[n + 1 :])  # after . / - _
                assert line[-1] in "./-_" or (head + " " + tail).replace("\n", "") in {
                    label.replace("\n", "") for label in labels
                }, (prompt, line)


@pilot_test
async def test_marks_and_colours_have_a_legend_on_screen(run_path) -> None:  # type: ignore[no-untyped-def]
    from inspector.app.screens.tasks import TasksScreen

    from .helpers import static_text

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await overview_at(pilot)
        app.push_screen(TasksScreen(screen.session, __import__(
            "inspector.views.tasks", fromlist=["TaskFilter"]).TaskFilter("correct.avg@3")))  # fmt: skip
        await settle(pilot)
        note = static_text(app.screen.query_one("#tasks-note"))
        assert "! ERROR/FATAL issue" in note and "✓ passed" in note, note


@pilot_test
async def test_slash_on_the_count_ledger_filters_and_enter_opens(run_path) -> None:  # type: ignore[no-untyped-def]
    from inspector.app.screens.ledger import LedgerScreen

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(80, 24)) as pilot:
        await overview_at(pilot)
        await pilot.press("l")
        await settle(pilot)
        ledger = app.screen
        assert isinstance(ledger, LedgerScreen)
        everything = len(ledger.tasks)
        await pilot.press("slash")
        await typed(pilot, "raman")
        assert [t.task_id for t in ledger.tasks] == [TASK]
        await pilot.press("enter")
        await settle(pilot)
        assert on_task(pilot), app.screen
        await pilot.press("escape")
        await settle(pilot)
        ledger.query_one(".list-find").focus()
        await pilot.press("escape")
        await settle(pilot)
        assert len(ledger.tasks) == everything and ledger.focused is ledger.task_table
