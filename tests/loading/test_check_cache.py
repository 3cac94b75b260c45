"""What the runs screen shows at once for a root checked before: each run's last report
in the store under the plan (the same ref the app's preview shows first), judged against
its stored metrics.json as the check judges it, NOT checked against the run's files — so
only ever shown marked as cached until the run is checked again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from inspector import loading
from inspector.answers.root import audit_call, check_one, interval_call, last_check
from inspector.overrides import Overrides
from inspector.views.run_check import RunCheck
from tests.loading.helpers import first_result, flipped_same_size, settle_time_stamps
from tests.results_root import CUT_OFF, MICRO, PASS, make_results_root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = make_results_root(tmp_path)
    settle_time_stamps()
    return root


def runs_of(root: Path) -> dict[str, str]:
    return {str(info.parent): str(info.parent.relative_to(root))
            for info in sorted(root.glob("*/*/run_info.json"))}  # fmt: skip


def screen_checks(root: Path, plan: Overrides | None = None) -> dict[str, RunCheck]:
    """Every run under ``root`` checked as the runs screen checks it (an audit keeping
    each run's report), with its headline interval asked for after."""
    runs = runs_of(root)
    plan = plan or Overrides()
    checks = loading.audit(audit_call, [(path, rel, plan) for path, rel in runs.items()])
    for path, check in zip(runs, checks, strict=True):
        if check.headline is not None and not check.headline.is_reference:
            interval_call(path, plan, check.headline.series_id)
    return dict(zip(runs, loading.audit(audit_call, [(p, r, plan) for p, r in runs.items()]),
                    strict=True))  # fmt: skip


def shown_first(root: Path, plan: Overrides | None = None) -> dict[str, RunCheck]:
    found = {path: last_check(path, rel, plan) for path, rel in runs_of(root).items()}
    return {path: check for path, check in found.items() if check is not None}


def test_nothing_is_shown_for_a_root_never_checked(root: Path) -> None:
    assert shown_first(root) == {}


def test_an_unchanged_root_shows_every_check_as_it_was(root: Path) -> None:
    """Every mark (✓, ≠, ! for the run that cannot be scored, ∅), count, headline and
    interval the check made, and the unusable run's line under the root."""
    checks = screen_checks(root)
    assert len(checks) == 9 and {c.state for c in checks.values()} == {"ok", "differs", "unusable"}
    assert any(c.headline is not None and c.headline.interval is not None for c in checks.values())
    cut_off = checks[str(root / CUT_OFF)]
    assert cut_off.problem is not None and cut_off.problem.startswith(f"{CUT_OFF}/run_info.json:")
    assert shown_first(root) == checks


def test_a_run_without_stored_metrics_shows_its_recomputation_unstored(root: Path) -> None:
    (root / PASS / "metrics.json").unlink()
    settle_time_stamps()
    checks = screen_checks(root)
    assert checks[str(root / PASS)].state == "unstored"
    assert shown_first(root)[str(root / PASS)] == checks[str(root / PASS)]


def test_the_mark_is_not_checked_against_the_files_until_the_check(root: Path) -> None:
    """A result.json rewritten in place (size and modification time kept): the last report
    is shown, as the app's preview shows it, until the check finds the change."""
    checks = screen_checks(root)
    result = first_result(root / MICRO)
    data, before = flipped_same_size(result), result.stat()
    with open(result, "r+b") as handle:
        handle.write(data)
    os.utime(result, ns=(before.st_atime_ns, before.st_mtime_ns))
    settle_time_stamps()
    assert shown_first(root)[str(root / MICRO)] == checks[str(root / MICRO)]
    now = check_one(str(root / MICRO), MICRO, Overrides(), cached=True)
    assert checks[str(root / MICRO)].status == "ok" and now.status == "differs"
    assert shown_first(root)[str(root / MICRO)] == now  # the check's read is the new report


def test_another_plan_or_no_cache_shows_nothing(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    screen_checks(root)
    assert shown_first(root, Overrides(k=1)) == {}
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    assert shown_first(root) == {}


def test_a_check_under_another_plan_is_shown_under_that_plan(root: Path) -> None:
    checks = screen_checks(root, Overrides(k=1))
    assert shown_first(root, Overrides(k=1)) == checks
    assert shown_first(root) == {}
