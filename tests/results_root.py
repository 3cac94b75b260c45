"""A results root for the runs screen and leaderboard tests (issue 16, issue 14 item 1).

Copies of the sample runs (fixtures/runs, written by AgentCompass) and the legacy v2 run
(fixtures/conformance): three runs of one long namespace whose folder names differ only at the
end (``…/20261130_00000N``), one of them with a tampered metrics.json; a failed run (the
evaluation failed: reference values); a cancelled run; a legacy v2 run; and a run whose
run_info.json is cut off (it cannot be recomputed).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tests.conftest import FIXTURE_RUNS, ROOT

LEGACY = ROOT / "fixtures" / "conformance" / "syn_legacy_v2_layout"
NAMESPACE = "gpt_scicode_scicode_tool_use_namespace"
ENDS_ALIKE = tuple(f"{NAMESPACE}/20261130_00000{n}" for n in (1, 2, 3))
TAMPERED = ENDS_ALIKE[1]
FAILED = "screens/k1_evaluation_failed"
CANCELLED = "terminal/k3_avg_hierarchy"
LEGACY_RUN = "legacy/syn_legacy_v2_layout"
CUT_OFF = "scicode/compare_b"
PASS = "hle/k3_pass"
MICRO = "tau/k1_micro"


def tamper_headline(run: Path, delta: float = 0.25) -> float:
    """Add ``delta`` to the stored headline value; returns the value AgentCompass stored."""
    metrics = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    headline = next(s for s in metrics["series"] if s["role"] == "headline")
    stored = headline["value"]
    headline["value"] = stored + delta
    text = json.dumps(metrics, indent=2, sort_keys=True)
    (run / "metrics.json").write_text(text, encoding="utf-8")
    return stored


def make_results_root(base: Path, *, ends_alike_only: bool = False) -> Path:
    """Write the results root under ``base`` and return it (``base / "results"``)."""
    root = base / "results"
    for relative in ENDS_ALIKE:
        shutil.copytree(FIXTURE_RUNS / "compare_a", root / relative)
    if ends_alike_only:
        return root
    tamper_headline(root / TAMPERED)
    for relative, source in (
        (FAILED, FIXTURE_RUNS / "k1_evaluation_failed"),
        (CANCELLED, FIXTURE_RUNS / "k3_avg_hierarchy"),
        (LEGACY_RUN, LEGACY),
        (CUT_OFF, FIXTURE_RUNS / "compare_b"),
        (PASS, FIXTURE_RUNS / "k3_pass"),
        (MICRO, FIXTURE_RUNS / "k1_micro"),
    ):
        shutil.copytree(source, root / relative)
    (root / CUT_OFF / "run_info.json").write_text('{"run_id": "cut off', encoding="utf-8")
    return root


SCICODE_MODEL = "gpt-5-mini-2025-08-07"
"""The model of the three …/20261130_00000N runs (compare_a)."""


async def checked_screen(pilot: Any, settle: Callable[[Any], Awaitable[None]]) -> Any:
    """Wait until every run on the runs screen has been recomputed and the statistics of
    its headline have arrived; returns the screen."""
    from inspector.app.screens.runs import RunsScreen

    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, RunsScreen)
    for _ in range(600):
        if screen.rows and screen.all_checked and screen.intervals_done:
            break
        await pilot.pause(0.1)
        await settle(pilot)
    assert screen.all_checked and screen.intervals_done
    await settle(pilot)
    return screen
