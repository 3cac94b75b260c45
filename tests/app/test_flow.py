"""Layout and flow (issue 14): focus comes back, headers stay visible, comparisons open on
what changed and say which side is which, task ids sort as numbers."""

from __future__ import annotations

from inspector.app.app import InspectorApp
from inspector.app.screens.compare import CompareScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.task import TaskScreen
from inspector.app.screens.tasks import TasksScreen
from inspector.app.screens.whatif import WhatIfScreen
from inspector.views.audit import InCount
from inspector.views.tasks import TaskFilter
from widgets.category_tree import CategoryTree

from .helpers import pilot_test, settle, static_text

MEDIUM = (100, 30)


def test_natural_key_orders_digit_runs_as_numbers() -> None:
    from inspector.views.tasks import natural_key

    ids = ["13", "20", "25", "39", "5", "7", "task-10", "task-9", "Task-9b"]
    assert sorted(ids, key=natural_key) == [
        "5", "7", "13", "20", "25", "39", "task-9", "Task-9b", "task-10",
    ]  # fmt: skip


@pilot_test
async def test_task_ids_sort_as_numbers(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("compare_a")])
    async with app.run_test(size=MEDIUM) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        overview.open_tasks(TaskFilter(overview.selected_series or ""))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TasksScreen)
        screen.task_table.move_cursor(column=0)
        await pilot.press("s")
        await settle(pilot)
        ids = [row.task_id for row in screen.shown]
        assert ids[:6] == ["2", "5", "7", "12", "13", "15"]
        assert ids == sorted(ids, key=int)


@pilot_test
async def test_back_from_a_tree_node_restores_focus_and_node(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=MEDIUM) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        tree = overview.category_tree
        tree.focus()
        await pilot.press("down", "down", "down")
        line = tree.cursor_line
        label = tree.node_data.label if tree.node_data else None
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TasksScreen)
        await pilot.press("r")  # a reload (or watch mode) while away
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is overview
        assert overview.focused is tree
        assert tree.cursor_line == line
        assert tree.node_data is not None and tree.node_data.label == label
        # so l opens the ledger of the node just looked at, not of the series table's count
        _, scope, _ = overview.pointed_at()
        assert scope.node is not None or scope.category is not None


@pilot_test
async def test_task_screen_opens_with_its_header_visible(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=MEDIUM) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        rec = overview.recomputation
        assert rec is not None
        reductions = rec.reductions["correct.avg@3"]
        # a task whose failing attempt is not the first: the screen used to scroll to it
        index = next(
            i
            for i, task in enumerate(rec.tasks)
            if any(a.has_error_issue for a in task.attempts.values())
            and task.attempts.get(1, None) is not None
            and not task.attempts[1].has_error_issue
        )
        assert reductions[index]
        task_id = rec.tasks[index].task_id
        app.push_screen(TaskScreen(overview.session, task_id, "correct.avg@3"))  # type: ignore[arg-type]
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TaskScreen)
        body = screen.query_one("#task-body")
        assert body.scroll_y == 0
        head = screen.query_one("#task-head")
        assert head.region.y >= 1 and head.region.height > 0  # on screen, under the header
        assert task_id in static_text(head)
        assert task_id in str(app.screen.sub_title)
        # the failing attempt still has the focus
        assert screen.focused is not None and screen.focused.id != "attempt-1"


async def _what_if(pilot, app: InspectorApp, label: str) -> CompareScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press("w")
    await settle(pilot)
    chooser = app.screen
    assert isinstance(chooser, WhatIfScreen)
    chooser.option_list.highlighted = [c.label for c in chooser.choices].index(label)
    await pilot.press("enter")
    await settle(pilot)
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, CompareScreen)
    return screen


@pilot_test
async def test_what_if_k1_opens_on_the_changed_tasks(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=MEDIUM) as pilot:
        screen = await _what_if(pilot, app, "k=1")
        changed = [c for c in screen.comparison.tasks(screen.pair) if c.changed]
        assert len(changed) > 0
        assert {c.task_id for c in screen.shown} == {c.task_id for c in changed}
        assert f"{len(changed)} tasks" in static_text(screen.stats_line)


@pilot_test
async def test_what_if_pass2_opens_on_a_series_both_sides_have(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=MEDIUM) as pilot:
        screen = await _what_if(pilot, app, "pass@2")
        assert screen.pair.a is not None and screen.pair.b is not None
        assert screen.pair.b.reducer == "pass"
        assert not any(c.kind.startswith("only in") for c in screen.shown)


@pilot_test
async def test_derived_values_keep_the_reference_marker(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k1_evaluation_failed")])
    async with app.run_test(size=MEDIUM) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        rec = overview.recomputation
        assert rec is not None and rec.report.evaluation_failed
        from inspector.views.compare import compare, compare_plans

        comparison = compare(rec, rec, label_a="A run", label_b="B run")
        app.push_screen(CompareScreen(comparison))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        row = [str(cell) for cell in screen.series_table.get_row_at(0)]
        assert "(reference)" in row[1] and "(reference)" in row[2]
        del compare_plans


def _tree(screen: OverviewScreen) -> CategoryTree:
    return screen.category_tree


@pilot_test
async def test_compare_labels_side_of_an_opened_task_and_swap(runs_root) -> None:  # type: ignore[no-untyped-def]
    from inspector.views.compare import compare
    from tests.conftest import open_session as open_run

    a = open_run(runs_root / "compare_a")
    b = open_run(runs_root / "compare_b")
    assert a.recomputation is not None and b.recomputation is not None
    long_a = "gpt_scicode_scicode_tool_use_20261130_000001"
    long_b = "gpt_scicode_scicode_tool_use_20261130_000002"
    comparison = compare(a.recomputation, b.recomputation, label_a=long_a, label_b=long_b)
    app = InspectorApp([runs_root / "compare_a"])
    async with app.run_test(size=MEDIUM) as pilot:
        await settle(pilot)
        app.push_screen(CompareScreen(comparison, (a, b)))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        listed = [change.task_id for change in screen.shown]
        assert len(listed) > 3 and listed == sorted(listed, key=int)  # 5, 7, 13, 20, not 13, 20, 5
        headers = [str(col.label) for col in screen.series_table.ordered_columns]
        assert headers[1] != headers[2]
        assert headers[1].endswith("000001") and headers[2].endswith("000002")
        # b opens the task on side B, and the task screen says so
        screen.task_table.focus()
        first = screen.shown[0]
        await pilot.press("b")
        await settle(pilot)
        task = app.screen
        assert isinstance(task, TaskScreen) and task.session is b
        assert "side B" in str(task.sub_title) and "000002" in str(task.sub_title)
        assert f"side B: {long_b}" in static_text(task.query_one("#task-head"))
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        # v swaps the sides: B's run becomes side A, values and changes follow
        await pilot.press("v")
        await settle(pilot)
        swapped = app.screen
        assert isinstance(swapped, CompareScreen) and swapped is not screen
        c = swapped.comparison
        assert (c.label_a, c.label_b) == (long_b, long_a)
        assert swapped.sessions == (b, a)
        row = next(ch for ch in swapped.shown if ch.task_id == first.task_id)
        assert (row.value_a, row.value_b) == (first.value_b, first.value_a)
        if first.flip:
            assert row.flip == "→".join(reversed(first.flip.split("→")))
        assert len(app.screen_stack) == 3  # swapping replaces the screen
        await pilot.press("enter")
        await settle(pilot)
        task = app.screen
        assert isinstance(task, TaskScreen) and task.session is b
        assert "side A" in str(task.sub_title)


@pilot_test
async def test_diagnostics_switches_attempt_keeping_the_section(run_path) -> None:  # type: ignore[no-untyped-def]
    from inspector.app.screens.diagnostics import DiagnosticsScreen
    from inspector.views.documents import StringDocument

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=MEDIUM) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        rec = overview.recomputation
        assert rec is not None
        task = next(t for t in rec.tasks if sorted(t.attempts) == [1, 2, 3])
        diagnostics = DiagnosticsScreen(overview.session, task.task_id, 1)  # type: ignore[arg-type]
        app.push_screen(diagnostics)
        await settle(pilot)
        keys = [s.key for s in diagnostics.sources]
        diagnostics.source_list.highlighted = keys.index("raw:result.json")
        await settle(pilot)
        await pilot.press("enter")  # read it: the text has the focus
        await settle(pilot)
        assert diagnostics.focused is diagnostics.pager
        await pilot.press("full_stop")  # the next attempt, same section
        await settle(pilot)
        assert diagnostics.attempt == 2
        assert "attempt 2 of 3" in str(diagnostics.sub_title)
        assert diagnostics.current_key == "raw:result.json"
        document = diagnostics.pager.document
        assert document is not None and "attempt-2" in str(document.full_path)
        await pilot.press("comma")
        await settle(pilot)
        assert diagnostics.attempt == 1
        document = diagnostics.pager.document
        assert document is not None and "attempt-1" in str(document.full_path)
        # escape goes from the text back to the sections, then leaves
        diagnostics.pager.focus()
        await pilot.press("escape")
        assert app.screen is diagnostics and diagnostics.focused is diagnostics.source_list
        # a long line wraps on z
        diagnostics.pager.show(StringDocument("long", "x" * 300 + "END\nsecond"))
        await pilot.pause()
        assert "END" not in "".join(s.text for s in diagnostics.pager.render_line(0))
        await pilot.press("z")
        await pilot.pause()
        rows = ["".join(s.text for s in diagnostics.pager.render_line(y)) for y in range(14)]
        assert any("END" in row for row in rows), rows
        assert any(row.strip().startswith("2 second") for row in rows)
        # a search result of a section no longer shown is dropped
        from inspector.app.screens.diagnostics import MatchFound

        diagnostics.post_message(MatchFound("another section", "x", 0))
        await pilot.pause()
        assert diagnostics.pager.match_line is None
        await pilot.press("escape")
        assert app.screen is not diagnostics


@pilot_test
async def test_export_writes_the_rows_on_screen(run_path, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import csv
    import json

    from inspector.app.screens.table_export import TableExportScreen
    from inspector.app.settings import Settings

    run = run_path("k3_avg_hierarchy")
    app = InspectorApp([run], settings=Settings(cwd=tmp_path))
    async with app.run_test(size=MEDIUM) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        overview.open_tasks(TaskFilter("correct.avg@3", state=InCount("error")))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TasksScreen)
        shown = [row.task_id for row in screen.shown]
        assert 0 < len(shown) < 19
        await pilot.press("x")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, TableExportScreen)
        assert dialog.target() == tmp_path / "tasks-correct.avg@3.csv"
        assert str(tmp_path) in static_text(dialog.query_one("#export-target"))
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
        with open(tmp_path / "tasks-correct.avg@3.csv", newline="", encoding="utf-8") as handle:
            records = list(csv.DictReader(handle))
        assert [r["Task"] for r in records] == shown
        assert all(r["has_error"] == "yes" for r in records)
        assert {r["Attempts"] for r in records} <= {m for m in (row.marks for row in screen.shown)}
        # JSON: the same rows; into the run directory: refused, nothing written
        await pilot.press("x")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, TableExportScreen)
        dialog.formats.highlighted = 1
        await settle(pilot)
        assert dialog.path_input.value.endswith(".json")
        await pilot.press("enter")
        await settle(pilot)
        records = json.loads((tmp_path / "tasks-correct.avg@3.json").read_text(encoding="utf-8"))
        assert [r["Task"] for r in records] == shown
        await pilot.press("x")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, TableExportScreen)
        dialog.path_input.value = str(run / "tasks.csv")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is dialog and not (run / "tasks.csv").exists()
        await pilot.press("escape")
        # copy: the task id under the cursor, or its row
        screen.task_table.move_cursor(row=1)
        await pilot.press("y")
        assert app.clipboard == shown[1]
        await pilot.press("Y")
        assert app.clipboard.split("\t")[0] == shown[1] and "\t" in app.clipboard


def test_attempt_marks_and_reduction_words_follow_the_engine(run_path) -> None:  # type: ignore[no-untyped-def]
    from inspector.views.tasks import task_rows
    from tests.conftest import open_session as open_run

    rec = open_run(run_path("k3_avg_hierarchy")).recomputation
    assert rec is not None
    rows = {row.task_id: row for row in task_rows(rec, "correct.avg@3")}
    fix_git = rows["build-cython-ext"]
    assert fix_git.marks == "✓✗✓"
    assert fix_git.words == "mean(1, 0, 1) = 0.6667"
    leak = rows["git-leak-recovery"]  # attempt 3 left only a retry count
    assert leak.marks.endswith("·") and leak.state == "error"
    assert leak.words == leak.reduction.reasons[0].text
    for row in rows.values():
        assert len(row.marks) == 3
        if row.state == "evaluated":  # the listed observations are what the engine reduced
            inner = row.words.split("(", 1)[1].split(")", 1)[0]
            values = [float(v) for v in inner.split(", ")]
            assert abs(sum(values) / 3 - (row.value or 0)) < 1e-9
        errors = [i for i, a in rec.tasks[row.index].attempts.items() if a.has_error_issue]
        assert [i + 1 for i, m in enumerate(row.marks) if m == "!"] == sorted(errors)
    pass_rows = {row.task_id: row for row in task_rows(rec, "correct.pass@3")}
    assert pass_rows["build-cython-ext"].words == "any(1, 0, 1) = 1.0000"


@pilot_test
async def test_task_screen_says_which_file_o_and_e_open(run_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import inspector.app.screens.task as task_module

    opened: list[tuple[str, object]] = []
    monkeypatch.setattr(
        task_module, "hand_over", lambda app, variable, path: opened.append((variable, path))
    )
    monkeypatch.setenv("PAGER", "less")
    run = run_path("k3_avg_hierarchy")
    app = InspectorApp([run])
    async with app.run_test(size=MEDIUM) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        screen = TaskScreen(overview.session, "build-cython-ext", "correct.avg@3")  # type: ignore[arg-type]
        app.push_screen(screen)
        await settle(pilot)
        screen.query_one("#attempt-2").focus()
        await settle(pilot)
        files = static_text(screen.query_one("#task-files"))
        assert "less runs/k3_avg_hierarchy/details/" in files
        assert "attempt-2/result.json" in files
        footer_keys = {b.description for _, b, _, _ in app.active_bindings.values() if b.show}
        assert "Pager: result.json" in footer_keys and "Editor: task folder" in footer_keys
        await pilot.press("o")
        await pilot.press("e")
        entry = overview.session.run.entry_for("build-cython-ext")  # type: ignore[union-attr]
        assert entry is not None
        assert opened == [
            ("PAGER", run / entry.folder / "attempt-2" / "result.json"),
            ("EDITOR", run / entry.folder),
        ]


@pilot_test
async def test_overview_says_the_run_status_and_opens_a_load_problem(run_path) -> None:  # type: ignore[no-untyped-def]
    from inspector.app.screens.detail import DetailScreen

    app = InspectorApp([run_path("k1_evaluation_failed")])
    async with app.run_test(size=MEDIUM) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        banner = static_text(overview.banner("failed"))
        assert "Run status: failed" in banner and "Final FATAL issues" in banner
    app = InspectorApp([run_path("k1_micro")])
    async with app.run_test(size=MEDIUM) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        assert "Run status" not in static_text(overview.banner("failed"))  # completed
        assert overview.check_action("focus_problems", ()) is True  # p says there are none
    app = InspectorApp([run_path("load_problems")])
    async with app.run_test(size=MEDIUM) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        assert "not finished" in static_text(overview.banner("failed"))
        shown = {
            b.action for _, b, enabled, _ in app.active_bindings.values() if b.show and enabled
        }
        assert "focus_problems" in shown  # p stays in the footer after loading
        await pilot.press("p")
        await pilot.press("enter")
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen)
        problem = overview.session.problems[0]  # type: ignore[union-attr]
        text = static_text(detail.query_one("#detail-text"), width=400)
        assert problem.message[:60] in text and problem.rule in text and "skipped" in text
        await pilot.press("escape")
        assert app.screen is overview and overview.focused is overview.problems_table


def test_a_v2_run_info_is_noted_not_skipped() -> None:
    from inspector.results.problems import RULE_RUN_INFO_V2, RULE_TASK_INDEX, LoadProblem

    assert LoadProblem("run_info.json", "v2", RULE_RUN_INFO_V2, False).effect == "noted"
    assert LoadProblem("x/task.json", "bad", RULE_TASK_INDEX, False).effect == "skipped"
    assert LoadProblem("x/task.json", "bad", RULE_TASK_INDEX, True).effect == "refuses run"


def test_columns_shrink_then_fold_from_the_highest_fold() -> None:
    from widgets.columns import Column, fit_columns

    columns = (
        Column("task", "Task", 30, shrink=12, cut="middle"),
        Column("value", "Value", 6),
        Column("words", "Reduction", 40, fold=7, shrink=20),
        Column("extra", "Extra", 10, fold=9),
    )
    full = sum(c.render_width for c in columns)
    assert fit_columns(columns, full)[0] == (0, 1, 2, 3)
    shown, fitted = fit_columns(columns, full - 12)  # Extra goes first, nothing is cut
    assert shown == (0, 1, 2) and [c.width for c in fitted] == [30, 6, 40]
    shown, fitted = fit_columns(columns, 32 + 8 + 22)  # then Reduction is cut to fit
    assert shown == (0, 1, 2) and fitted[2].width == 20
    shown, fitted = fit_columns(columns, 20 + 8)  # ids never fold: cut down last
    assert shown == (0, 1) and fitted[0].width == 18


def test_columns_take_their_short_headers_before_anything_folds() -> None:
    from widgets.columns import Column, fit_columns

    columns = (
        Column("code", "code", 10),
        Column("invalidated", "invalidated", 1, justify="right", short="inv"),
        Column("effect", "effect", 11, fold=1),
    )
    full = sum(c.render_width for c in columns)  # 12 + 13 + 13
    assert [c.label for c in fit_columns(columns, full)[1]] == ["code", "invalidated", "effect"]
    shown, fitted = fit_columns(columns, full - 8)  # the short header is enough: nothing folds
    assert shown == (0, 1, 2) and [c.label for c in fitted] == ["code", "inv", "effect"]
    shown, fitted = fit_columns(columns, 12 + 5)  # then the foldable column goes
    assert shown == (0, 1) and [c.label for c in fitted] == ["code", "inv"]
