"""Every screen at the three sizes terminals have: 80×24, 100×30 and 140×45.

The runs sit under a long namespace (copies of the sample runs in a temporary folder; only
``namespace/run_id`` is ever on screen) and include a failed run, a legacy v2 run and a
compare of two runs whose folder names differ only at the end. Sync test functions;
interaction in ``run_before``.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from inspector.app.app import InspectorApp
from inspector.app.screens.compare import CompareScreen
from inspector.app.screens.diagnostics import DiagnosticsScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.task import TaskScreen
from inspector.views.audit import Scope
from inspector.views.compare import compare
from inspector.views.tasks import TaskFilter
from tests.conftest import open_session as open_run

from .test_snapshots import settle, steps

ROOT = Path(__file__).resolve().parents[2] / "fixtures"
NAMESPACE = "qwen3-coder-480b-a35b-instruct_terminal_bench_2_terminus2_long_namespace"
SIZES = [pytest.param(size, id=f"{size[0]}x{size[1]}") for size in ((80, 24), (100, 30), (140, 45))]
Action = Callable[[Pilot[None]], Any]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample runs under a long namespace, named like AgentCompass run ids."""
    root = tmp_path_factory.mktemp("roots") / NAMESPACE
    for source, name in (
        (ROOT / "runs" / "k3_avg_hierarchy", "20261130_000001"),
        (ROOT / "runs" / "k1_evaluation_failed", "20261130_000002"),
        (ROOT / "runs" / "compare_a", "20261130_000003"),
        (ROOT / "runs" / "compare_b", "20261130_000004"),
        (ROOT / "conformance" / "syn_legacy_v2_layout", "20261130_000005"),
    ):
        shutil.copytree(source, root / name)
    return root


def app_for(path: Path) -> InspectorApp:
    app = InspectorApp([path])
    app.animation_level = "none"
    return app


def overview(pilot: Pilot[None]) -> OverviewScreen:
    screen = pilot.app.screen
    assert isinstance(screen, OverviewScreen)
    return screen


def push_task(task_id: str, series_id: str = "correct.avg@3") -> Action:
    def action(pilot: Pilot[None]) -> None:
        screen = overview(pilot)
        assert screen.session is not None
        pilot.app.push_screen(TaskScreen(screen.session, task_id, series_id))

    return action


class TestOverviewSizes:
    @pytest.mark.parametrize("size", SIZES)
    def test_hierarchy_run(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see the run's name (its long namespace cut in the middle), its status
        (cancelled), both series with value and all five counts, and the hierarchy tree
        with whole category names; below 100 columns the plan panel leaves the tree room."""
        assert snap_compare(app_for(runs / "20261130_000001"), terminal_size=size,
                            run_before=steps())  # fmt: skip

    @pytest.mark.parametrize("size", SIZES)
    def test_failed_run(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see "Run status: failed" with AgentCompass's error text, the
        evaluation-failed banner and values marked (reference)."""
        assert snap_compare(app_for(runs / "20261130_000002"), terminal_size=size,
                            run_before=steps())  # fmt: skip

    @pytest.mark.parametrize("size", SIZES)
    def test_legacy_run(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see a v2 run: its load problem noted (not skipped), its series and
        counts."""
        assert snap_compare(app_for(runs / "20261130_000005"), terminal_size=size,
                            run_before=steps())  # fmt: skip


class TestTasksSizes:
    @pytest.mark.parametrize("size", SIZES)
    def test_all_tasks(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see every task with its state, one mark per attempt and its value;
        the reduction in words at 140 columns; task ids and categories cut in the middle
        at 80; under the table the cursor's task in full."""

        def open_tasks(pilot: Pilot[None]) -> None:
            overview(pilot).open_tasks(TaskFilter("correct.avg@3"))

        assert snap_compare(app_for(runs / "20261130_000001"), terminal_size=size,
                            run_before=steps(open_tasks))  # fmt: skip


class TestTaskSizes:
    @pytest.mark.parametrize("size", SIZES)
    def test_error_task(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see the task's id, category and ground truth at the top (not scrolled
        to its attempts), which file o and which folder e open, the reductions with their
        reasons under them, and the attempts."""
        assert snap_compare(app_for(runs / "20261130_000001"), terminal_size=size,
                            run_before=steps(push_task("git-leak-recovery")))  # fmt: skip


class TestDiagnosticsSizes:
    @pytest.mark.parametrize("size", SIZES)
    def test_second_attempt(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see attempt 2 of 3 of fix-pandas-version in the title (switched to
        with "."), its sources on the left and its result.json paged on the right."""

        async def open_diagnostics(pilot: Pilot[None]) -> None:
            screen = overview(pilot)
            assert screen.session is not None
            pilot.app.push_screen(DiagnosticsScreen(screen.session, "fix-pandas-version", 1))
            await settle(pilot)
            await pilot.press("full_stop")

        assert snap_compare(app_for(runs / "20261130_000001"), terminal_size=size,
                            run_before=steps(open_diagnostics))  # fmt: skip


class TestLedgerSizes:
    @pytest.mark.parametrize("size", SIZES)
    def test_error_count(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see the tasks behind correct.avg@3's error count with their first
        reason, and the cursor's task with every reason below."""

        def open_ledger(pilot: Pilot[None]) -> None:
            overview(pilot).open_ledger("correct.avg@3", "error")

        assert snap_compare(app_for(runs / "20261130_000001"), terminal_size=size,
                            run_before=steps(open_ledger))  # fmt: skip


class TestExplainSizes:
    @pytest.mark.parametrize("size", SIZES)
    def test_engineering_node(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see how the engineering node's value is made: its children, their
        weights and the tasks under it."""

        def open_explain(pilot: Pilot[None]) -> None:
            overview(pilot).open_explain("correct.avg@3", Scope(node="overall/engineering"))

        assert snap_compare(app_for(runs / "20261130_000001"), terminal_size=size,
                            run_before=steps(open_explain))  # fmt: skip


class TestIssuesSizes:
    @pytest.mark.parametrize("size", SIZES)
    def test_issues(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see the issues by severity × phase × code with whole issue codes, and
        the retries by stage, scope and pattern."""

        def open_issues(pilot: Pilot[None]) -> None:
            overview(pilot).open_issues()

        assert snap_compare(app_for(runs / "20261130_000001"), terminal_size=size,
                            run_before=steps(open_issues))  # fmt: skip


class TestFlakySizes:
    @pytest.mark.parametrize("size", SIZES)
    def test_flaky_tasks(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see the tasks whose attempts disagree, one mark per attempt, with the
        pass@j / pass^j estimates, and the run's name in the title."""

        def open_flaky(pilot: Pilot[None]) -> None:
            overview(pilot).action_flaky()

        assert snap_compare(app_for(runs / "20261130_000001"), terminal_size=size,
                            run_before=steps(open_flaky))  # fmt: skip


class TestCompareSizes:
    @pytest.mark.parametrize("size", SIZES)
    def test_two_runs(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see two runs whose names differ only at the end: the value columns
        read "A …000003" and "B …000004", and the changed tasks of correct.native@1."""

        def open_compare(pilot: Pilot[None]) -> None:
            a = open_run(runs / "20261130_000003")
            b = open_run(runs / "20261130_000004")
            assert a.recomputation is not None and b.recomputation is not None
            label_a, label_b = (f"{NAMESPACE}/20261130_00000{n}" for n in (3, 4))
            comparison = compare(a.recomputation, b.recomputation, label_a=label_a,
                                 label_b=label_b)  # fmt: skip
            pilot.app.push_screen(CompareScreen(comparison, (a, b)))

        assert snap_compare(app_for(runs / "20261130_000003"), terminal_size=size,
                            run_before=steps(open_compare))  # fmt: skip

    @pytest.mark.parametrize("size", SIZES)
    def test_warnings_and_moved_tasks(
        self, snap_compare: Any, runs: Path, size: tuple[int, int]
    ) -> None:
        """You should see, above the numbers, the warning that the plans differ (k=1 in A,
        k=3 in B) in words, then after D exactly the 12 tasks that moved, grouped by kind
        (value down, value up, error→evaluated) with the counts in the line above."""

        async def open_compare(pilot: Pilot[None]) -> None:
            a = open_run(ROOT / "runs" / "k3_avg_first_attempt")
            b = open_run(ROOT / "runs" / "k3_avg_hierarchy")
            assert a.recomputation is not None and b.recomputation is not None
            comparison = compare(a.recomputation, b.recomputation, label_a="k3_avg_first_attempt",
                                 label_b="k3_avg_hierarchy")  # fmt: skip
            pilot.app.push_screen(CompareScreen(comparison, (a, b)))
            await settle(pilot)
            await pilot.press("D")

        assert snap_compare(app_for(runs / "20261130_000001"), terminal_size=size,
                            run_before=steps(open_compare))  # fmt: skip

    @pytest.mark.parametrize("size", SIZES)
    def test_what_if_k1(self, snap_compare: Any, runs: Path, size: tuple[int, int]) -> None:
        """You should see avg@3 (the stored plan) beside k=1 (derived), opened on the tasks
        whose value or state changed."""

        async def what_if(pilot: Pilot[None]) -> None:
            await pilot.press("w")
            await settle(pilot)
            await pilot.press("enter")

        assert snap_compare(app_for(runs / "20261130_000001"), terminal_size=size,
                            run_before=steps(what_if))  # fmt: skip
