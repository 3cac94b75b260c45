"""Runs screen: `G` shows each run's publish-gate result (issue 42), judged as `inspector
gate` judges it under the policy of the folder it runs in, with the failed rules in the line under the table."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from tests.results_root import CUT_OFF, MICRO, TAMPERED, make_results_root
from tests.results_root import checked_screen as wait_until_checked

from .helpers import pilot_test, settle, static_text
from .test_runs_recomputed import row_cells

POLICY = "require_stored_equal = true\nmax_error_rate = 0.5\n"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The results, opened from the folder ``here`` holding the policy (issue 48: the policy
    comes from where the app runs; one the results carry is never obeyed)."""
    results = make_results_root(tmp_path)
    (results / "inspector-gate.toml").write_text("# nothing checked\n", encoding="utf-8")
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "inspector-gate.toml").write_text(POLICY, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "here")
    return results


async def gated(pilot, screen) -> None:  # type: ignore[no-untyped-def]
    for _ in range(600):
        await settle(pilot)
        if screen.gates is not None and len(screen.gates) == len(screen.rows):
            return
        await pilot.pause(0.1)
    raise AssertionError("the gate's results did not arrive")


@pilot_test
async def test_g_shows_each_runs_gate_result_and_the_failed_rules(root: Path) -> None:
    app = InspectorApp([root])
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await wait_until_checked(pilot, settle)
        assert "gate" not in screen.run_table.column_keys
        await pilot.press("G")
        await gated(pilot, screen)
        cells = row_cells(screen.run_table)
        marks = {run: cell["gate"] for run, cell in cells.items()}
        assert marks.pop(TAMPERED) == "FAIL"
        assert marks.pop(CUT_OFF) == "!"
        assert set(marks.values()) == {"pass"}
        # The detail line of the tampered run names the failed rule and what it measured.
        screen.run_table.move_cursor(row=screen.run_table.paths.index(root / TAMPERED))
        await settle(pilot)
        detail = static_text(screen.query_one("#runs-status"), width=400)
        assert "gate: FAIL require_stored_equal (run: stored metrics.json differs from" in detail
        screen.run_table.move_cursor(row=screen.run_table.paths.index(root / MICRO))
        await settle(pilot)
        assert "gate: pass (2 rules)" in static_text(screen.query_one("#runs-status"), width=400)
        # G again hides it.
        await pilot.press("G")
        await settle(pilot)
        assert "gate" not in screen.run_table.column_keys
        assert "gate:" not in static_text(screen.query_one("#runs-status"), width=400)


@pilot_test
async def test_a_bad_policy_is_named_and_nothing_is_shown(root: Path) -> None:
    Path("inspector-gate.toml").write_text("max_eror_rate = 0.1\n", encoding="utf-8")
    app = InspectorApp([root])
    notes: list[str] = []
    async with app.run_test(size=(140, 45)) as pilot:
        screen = await wait_until_checked(pilot, settle)
        app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        await pilot.press("G")
        for _ in range(100):
            await settle(pilot)
            if notes:
                break
        assert len(notes) == 1
        assert notes[0].startswith("inspector-gate.toml: unknown key 'max_eror_rate'")
        assert screen.gates is None and "gate" not in screen.run_table.column_keys
