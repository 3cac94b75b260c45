"""Runs screen: `G` shows each run's publish-gate result (issue 42), judged as `inspector
gate` judges it under the policy of the folder it runs in, with the failed rules in the line under the table."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from tests.results_root import CANCELLED, CUT_OFF, MICRO, TAMPERED, make_results_root
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
        assert "gate (policy: " in detail
        assert (
            "): FAIL (1 passed, 1 failed, 0 skipped) "
            "require_stored_equal: run (stored metrics.json differs from"
        ) in detail
        screen.run_table.move_cursor(row=screen.run_table.paths.index(root / MICRO))
        await settle(pilot)
        assert "inspector-gate.toml): pass: 2 passed, 0 failed, 0 skipped" in (
            static_text(screen.query_one("#runs-status"), width=400)
        )
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


WIDE_POLICY = (
    'series = "*"\nrequire_stored_equal = true\nmax_error_rate = 0.05\nmax_regression = 0.0\n'
)


def _cli_rules(root: Path, run: str) -> list[dict]:  # type: ignore[type-arg]
    """The rules ``inspector gate ROOT --format json`` judged for ``run``."""
    import contextlib
    import io
    import json

    from inspector.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["gate", str(root), "--format", "json"])
    return next(r for r in json.loads(out.getvalue())["runs"] if r["run"] == run)["rules"]


async def _detail(pilot, screen, root: Path, run: str) -> str:  # type: ignore[no-untyped-def]
    screen.run_table.move_cursor(row=screen.run_table.paths.index(root / run))
    await settle(pilot)
    return static_text(screen.query_one("#runs-status"), width=1000)


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (140, 45)])
@pilot_test
async def test_g_names_the_policy_counts_every_rule_and_reads_a_changed_policy(
    tmp_path: Path, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 49: the policy (in the folder the app runs in, outside the results) changes
    while the app is open; G judges again under it."""
    root = make_results_root(tmp_path)
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    policy = here / "inspector-gate.toml"
    policy.write_text(WIDE_POLICY, encoding="utf-8")
    rules = _cli_rules(root, CANCELLED)
    statuses = [r["status"] for r in rules]
    counts = (
        f"{statuses.count('pass')} passed, {statuses.count('fail')} failed, "
        f"{statuses.count('skipped')} skipped"
    )
    assert counts == "1 passed, 1 failed, 1 skipped"
    failures = [f for r in rules for f in r["failures"]]
    assert len(failures) == 2  # correct.avg@3 and correct.pass@3 both over the limit
    app = InspectorApp([root])
    async with app.run_test(size=size) as pilot:
        screen = await wait_until_checked(pilot, settle)
        await pilot.press("G")
        await gated(pilot, screen)
        detail = await _detail(pilot, screen, root, CANCELLED)
        assert "gate (policy: inspector-gate.toml): FAIL" in detail
        assert counts in detail
        for failure in failures:  # every failing series, as the CLI words it
            series, _rule, what = failure.removeprefix(f"{CANCELLED}: ").split(": ", 2)
            assert f"{series} ({what})" in detail, (series, detail)
        # The policy file changes: G judges again under it (no r needed) and stays shown.
        policy.write_text("max_error_rate = 0.5\n", encoding="utf-8")
        await pilot.press("G")
        await gated(pilot, screen)
        assert "gate" in screen.run_table.column_keys
        detail = await _detail(pilot, screen, root, CANCELLED)
        assert "gate (policy: inspector-gate.toml): pass: 1 passed, 0 failed, 0 skipped" in detail
        # Unchanged: G hides the column as before.
        await pilot.press("G")
        await settle(pilot)
        assert "gate" not in screen.run_table.column_keys
        # The file goes: the defaults are named.
        policy.unlink()
        await pilot.press("G")
        await gated(pilot, screen)
        detail = await _detail(pilot, screen, root, CANCELLED)
        assert "gate (policy: the defaults" in detail
