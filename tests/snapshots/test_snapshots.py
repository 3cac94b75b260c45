"""Snapshots of every screen on the sample runs in fixtures/runs, at fixed sizes.

Sync test functions (snap_compare cannot run inside ``async def``); interaction happens in
``run_before``, which first waits for the loading workers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from inspector.app.app import InspectorApp
from inspector.app.screens.diagnostics import DiagnosticsScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.runs import RunsScreen
from inspector.app.screens.task import TaskScreen
from inspector.views.audit import InCount, TaskSet
from inspector.views.tasks import TaskFilter

RUNS = Path(__file__).resolve().parents[2] / "fixtures" / "runs"
LARGE = (140, 45)
SMALL = (100, 30)

RunBefore = Callable[[Pilot[None]], Awaitable[None]]


def make_app(*names: str) -> InspectorApp:
    app = InspectorApp([RUNS / name if name else RUNS for name in names])
    app.animation_level = "none"
    return app


async def settle(pilot: Pilot[None]) -> None:
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    pilot.app.clear_notifications()  # "Recomputing…" toasts would depend on timing


def steps(*actions: Callable[[Pilot[None]], Any]) -> RunBefore:
    """A run_before that settles, then runs each action (sync or async) and settles again."""

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        for action in actions:
            result = action(pilot)
            if result is not None and hasattr(result, "__await__"):
                await result
            await settle(pilot)

    return run_before


def overview(pilot: Pilot[None]) -> OverviewScreen:
    screen = pilot.app.screen
    assert isinstance(screen, OverviewScreen)
    return screen


def open_tasks(state: TaskSet | None = None) -> Callable[[Pilot[None]], None]:
    def action(pilot: Pilot[None]) -> None:
        screen = overview(pilot)
        assert screen.selected_series is not None
        screen.open_tasks(TaskFilter(screen.selected_series, state=state))

    return action


def open_task(state: str | None = None, nth: int = 0) -> Callable[[Pilot[None]], None]:
    def action(pilot: Pilot[None]) -> None:
        screen = overview(pilot)
        rec = screen.session.recomputation
        assert rec is not None and screen.selected_series is not None
        reductions = rec.reductions[screen.selected_series]
        matching = [i for i, r in enumerate(reductions) if state is None or r.state == state]
        task_id = rec.tasks[matching[nth]].task_id
        pilot.app.push_screen(TaskScreen(screen.session, task_id, screen.selected_series))

    return action


def open_diagnostics(nth: int = 0, attempt: int = 1, source: str | None = None) -> RunBefore:
    async def action(pilot: Pilot[None]) -> None:
        screen = overview(pilot)
        rec = screen.session.recomputation
        assert rec is not None
        task_id = rec.tasks[nth].task_id
        diagnostics = DiagnosticsScreen(screen.session, task_id, attempt)
        pilot.app.push_screen(diagnostics)
        await settle(pilot)
        if source is not None:
            keys = [s.key for s in diagnostics.sources]
            diagnostics.source_list.highlighted = keys.index(source)
            await settle(pilot)

    return action


class TestRunsScreen:
    def test_runs_root(self, snap_compare: Any) -> None:
        """You should see every sample run under fixtures/runs, newest first, with model,
        benchmark, harness, plan, status, task folders per state and the stored headline."""
        assert snap_compare(make_app(""), terminal_size=LARGE, run_before=steps())

    def test_runs_filtered_small(self, snap_compare: Any) -> None:
        """You should see only the k3 runs after typing "k3" in the filter (100×30)."""

        async def type_filter(pilot: Pilot[None]) -> None:
            await pilot.press("slash", "k", "3")

        assert snap_compare(make_app(""), terminal_size=SMALL, run_before=steps(type_filter))


class TestOverviewScreen:
    def test_k3_avg_hierarchy(self, snap_compare: Any) -> None:
        """You should see correct.avg@3 and correct.pass@3 with their 95% CI and five counts,
        the count-overlap note, the hierarchy tree of correct.avg@3 (overall and its groups
        with value, 95% CI, counts, weights and aggregation) and the distribution plot and plan."""
        assert snap_compare(make_app("k3_avg_hierarchy"), terminal_size=LARGE, run_before=steps())

    def test_k3_avg_hierarchy_pass_series(self, snap_compare: Any) -> None:
        """You should see the tree and plot of correct.pass@3 after moving down one series."""

        async def down(pilot: Pilot[None]) -> None:
            await pilot.press("down")

        assert snap_compare(
            make_app("k3_avg_hierarchy"), terminal_size=LARGE, run_before=steps(down)
        )

    def test_k1_micro_small(self, snap_compare: Any) -> None:
        """You should see the k=1 native@1 series of k1_micro with flat categories (100×30)."""
        assert snap_compare(make_app("k1_micro"), terminal_size=SMALL, run_before=steps())

    def test_k3_pass(self, snap_compare: Any) -> None:
        """You should see the single headline series correct.pass@3 of a pass-strategy run."""
        assert snap_compare(make_app("k3_pass"), terminal_size=LARGE, run_before=steps())

    def test_evaluation_failed(self, snap_compare: Any) -> None:
        """You should see the evaluation-failed banner and values marked (reference)."""
        assert snap_compare(
            make_app("k1_evaluation_failed"), terminal_size=LARGE, run_before=steps()
        )

    def test_load_problems(self, snap_compare: Any) -> None:
        """You should see the load problems table listing each unreadable file."""
        assert snap_compare(make_app("load_problems"), terminal_size=LARGE, run_before=steps())

    def test_help(self, snap_compare: Any) -> None:
        """You should see the help screen: the overview's description, its widgets' help and
        the active keys."""

        async def help_key(pilot: Pilot[None]) -> None:
            await pilot.press("question_mark")

        assert snap_compare(make_app("k1_micro"), terminal_size=SMALL, run_before=steps(help_key))


class TestTasksScreen:
    def test_unavailable_count(self, snap_compare: Any) -> None:
        """You should see exactly the tasks behind correct.avg@3's unavailable count (states
        error and unavailable) and the note that unavailable includes error-state tasks."""
        assert snap_compare(
            make_app("k3_avg_hierarchy"),
            terminal_size=LARGE,
            run_before=steps(open_tasks(InCount("unavailable"))),
        )

    def test_hostile_all_tasks(self, snap_compare: Any) -> None:
        """You should see task ids and categories holding markup, escape sequences, bidi
        overrides and zero-width characters shown literally (␛, <U+202E>, ...)."""
        assert snap_compare(
            make_app("hostile"), terminal_size=LARGE, run_before=steps(open_tasks())
        )

    def test_sorted_small(self, snap_compare: Any) -> None:
        """You should see k1_micro's tasks sorted by value, highest first (100×30)."""

        async def sort(pilot: Pilot[None]) -> None:
            table = pilot.app.screen.query_one("TaskTable")
            table.move_cursor(column=table.get_column_index("value"))  # type: ignore[attr-defined]
            await pilot.press("s", "s")

        assert snap_compare(
            make_app("k1_micro"), terminal_size=SMALL, run_before=steps(open_tasks(), sort)
        )


class TestTaskScreen:
    def test_error_task_k3(self, snap_compare: Any) -> None:
        """You should see a task in state error for correct.avg@3 with the engine's reasons,
        and its three attempts side by side."""
        assert snap_compare(
            make_app("k3_avg_hierarchy"), terminal_size=LARGE, run_before=steps(open_task("error"))
        )

    def test_k3_pass_task(self, snap_compare: Any) -> None:
        """You should see a pass@3 task whose unrun attempts are forgiven by the early stop."""
        assert snap_compare(
            make_app("k3_pass"), terminal_size=LARGE, run_before=steps(open_task("evaluated"))
        )

    def test_hostile_task(self, snap_compare: Any) -> None:
        """You should see a hostile task's answer, ground truth and issue message literally."""
        assert snap_compare(
            make_app("hostile"), terminal_size=LARGE, run_before=steps(open_task("error"))
        )


class TestDiagnosticsScreen:
    def test_k3_first_task(self, snap_compare: Any) -> None:
        """You should see the sources of evidence of attempt 1 on the left and the first one
        paged on the right, with line numbers and a status line."""
        assert snap_compare(
            make_app("k3_avg_hierarchy"), terminal_size=LARGE, run_before=steps(open_diagnostics())
        )

    def test_hostile_diagnostics(self, snap_compare: Any) -> None:
        """You should see a hostile attempt's raw result.json with escape sequences shown
        as ␛ and nothing else changed on the terminal (100×30)."""
        assert snap_compare(
            make_app("hostile"),
            terminal_size=SMALL,
            run_before=steps(open_diagnostics(source="raw:result.json")),
        )


def press(*keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def action(pilot: Pilot[None]) -> None:
        await pilot.press(*keys)

    return action


def focus_tree_node(downs: int) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def action(pilot: Pilot[None]) -> None:
        overview(pilot).category_tree.focus()
        await pilot.press(*(["down"] * downs))

    return action


def mark_and_compare(a: str, b: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def action(pilot: Pilot[None]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, RunsScreen)
        names = [run.path.name for run in screen.shown]
        for name in (a, b):
            screen.run_table.move_cursor(row=names.index(name))
            await pilot.press("m")
        await pilot.press("c")

    return action


class TestLedgerScreen:
    def test_unavailable_count(self, snap_compare: Any) -> None:
        """You should see the tasks behind correct.avg@3's unavailable count, each with its
        state and the engine's reason, the note that unavailable is state error plus state
        unavailable, and the reasons of the highlighted task below."""

        def open_ledger(pilot: Pilot[None]) -> None:
            # Not right ×4 + l: that walked onto the error count once the 95 % CI column came.
            overview(pilot).open_ledger("correct.avg@3", "unavailable")

        assert snap_compare(
            make_app("k3_avg_hierarchy"), terminal_size=LARGE, run_before=steps(open_ledger)
        )

    def test_hierarchy_node_small(self, snap_compare: Any) -> None:
        """You should see every task under the first child of the hierarchy root (count
        total) with its state, value and reason (100×30)."""
        assert snap_compare(
            make_app("k3_avg_hierarchy"),
            terminal_size=SMALL,
            run_before=steps(focus_tree_node(1), press("l")),
        )


class TestExplainScreen:
    def test_hierarchy_root(self, snap_compare: Any) -> None:
        """You should see how correct.avg@3 is made: the weighted formula of the hierarchy
        root, each child with its value and its weight after re-normalisation, and the
        evaluated task values that fed it."""
        assert snap_compare(
            make_app("k3_avg_hierarchy"), terminal_size=LARGE, run_before=steps(press("h"))
        )

    def test_micro_small(self, snap_compare: Any) -> None:
        """You should see k1_micro's correct.native@1 as the micro mean of its evaluated task
        values, each task with weight 1/n (100×30)."""
        assert snap_compare(make_app("k1_micro"), terminal_size=SMALL, run_before=steps(press("h")))


class TestWhatIfScreen:
    def test_choices_of_a_k3_avg_run(self, snap_compare: Any) -> None:
        """You should see the derived plans of an avg@3 run over the overview: k=1, avg@2,
        pass@2 and pass@3, each with the attempts it re-reads."""
        assert snap_compare(
            make_app("k3_avg_hierarchy"), terminal_size=LARGE, run_before=steps(press("w"))
        )

    def test_choices_of_a_pass_run_small(self, snap_compare: Any) -> None:
        """You should see the derived plans of a pass@3 run, the avg ones marked as not
        equivalent where a task stopped early (100×30)."""
        assert snap_compare(make_app("k3_pass"), terminal_size=SMALL, run_before=steps(press("w")))


class TestCompareScreen:
    def test_k1_beside_avg3(self, snap_compare: Any) -> None:
        """You should see the stored avg@3 plan (A) beside k=1 derived from attempt 1 (B,
        labelled derived, equivalent: yes): correct.avg@3 ↔ correct.native@1 with both values,
        their 95% intervals and counts, the paired t and bootstrap interval (no McNemar: A has
        three attempts), and the tasks whose state changed."""
        assert snap_compare(
            make_app("k3_avg_hierarchy"), terminal_size=LARGE, run_before=steps(press("w", "enter"))
        )

    def test_two_runs_small(self, snap_compare: Any) -> None:
        """You should see compare_a beside compare_b: the warning that their models differ,
        each series with both values and counts, and exactly the designed differences of
        correct.native@1 — flips 0→1 (5, 25, 39), 1→0 (7, 20), error→evaluated (13, 21)
        (100×30)."""
        assert snap_compare(
            make_app(""),
            terminal_size=SMALL,
            run_before=steps(mark_and_compare("compare_a", "compare_b")),
        )

    def test_waterfall_of_k1_beside_avg3(self, snap_compare: Any) -> None:
        """You should see, under the paired statistics, where B − A came from: A's value, one
        bar per part (green up, red down, each from the running total before it to the one
        after) with its amount and its tasks, B's value and "(Shapley over groups)"; the
        second part is chosen, and the task table lists exactly its tasks."""
        assert snap_compare(
            make_app("k3_avg_hierarchy"),
            terminal_size=LARGE,
            run_before=steps(press("w", "enter"), press("W"), press("down", "enter")),
        )


class TestFlakyScreen:
    def test_k3_avg_flaky_tasks(self, snap_compare: Any) -> None:
        """You should see pass@1..3 and pass^1..3 as bars with estimate and se (0.562 /
        0.750 / 0.812 and 0.562 / 0.375 / 0.250 over 16 tasks), AgentCompass's own avg@3 and
        pass@3 beside them, and the nine tasks whose attempts disagree with ✓ / ✗ per attempt."""
        assert snap_compare(
            make_app("k3_avg_hierarchy"), terminal_size=LARGE, run_before=steps(press("f"))
        )

    def test_k3_pass_flaky_small(self, snap_compare: Any) -> None:
        """You should see why a pass run has no pass@j curve (attempts stop early), and its
        flaky tasks sorted by task id after pressing s, attempts never run shown as — (100×30)."""
        assert snap_compare(
            make_app("k3_pass"), terminal_size=SMALL, run_before=steps(press("f"), press("s"))
        )


class TestIssuesScreen:
    def test_k3_issues_and_retries(self, snap_compare: Any) -> None:
        """You should see the issues of k3_avg_hierarchy by severity × phase × code with the
        attempts and tasks carrying each and the counts of correct.avg@3 they are in, and the
        retries by stage, scope and matched pattern read from the retry records."""
        assert snap_compare(
            make_app("k3_avg_hierarchy"), terminal_size=LARGE, run_before=steps(press("i"))
        )

    def test_hostile_small(self, snap_compare: Any) -> None:
        """You should see the hostile run's issue codes and retry patterns shown literally
        (escape sequences as ␛, bidi overrides as <U+202E>) (100×30)."""
        assert snap_compare(make_app("hostile"), terminal_size=SMALL, run_before=steps(press("i")))
