"""``max_regression`` judges the comparison model's number (issue 37 item 1 on issue 42's
gate): the series delta B − A and its paired interval exactly as ``inspector diff A B
--format json`` gives them (``paired.series_delta``, ``ci_low``, ``ci_high``), on fixture
runs (a micro pair whose task sets differ, a k=1 vs avg@3 hierarchy pair)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.answers.gate import paired_facts
from inspector.cli.main import main
from inspector.overrides import Overrides
from inspector.views.gate import Regression
from tests.conftest import FIXTURE_RUNS

PAIRS = [("compare_a", "compare_b"), ("k3_avg_first_attempt", "k3_avg_hierarchy")]


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    return code, json.loads(out)


def _diff(capsys: pytest.CaptureFixture[str], a: Path, b: Path) -> dict[str, dict[str, Any]]:
    """``inspector diff A B --format json``'s series with both sides, by side B's id."""
    _, data = _json(capsys, "diff", str(a), str(b), "--format", "json")
    return {s["b"]["series_id"]: s for s in data["series"] if s["a"] and s["b"]}


def _headlines(capsys: pytest.CaptureFixture[str], run: Path) -> list[str]:
    """The series the gate's ``series = "headline"`` names (role ``headline``)."""
    _, data = _json(capsys, "report", str(run), "--json")
    return [s["series_id"] for s in data["series"] if s["role"] == "headline"]


@pytest.mark.parametrize("names", PAIRS, ids=["-".join(p) for p in PAIRS])
def test_the_gate_measures_what_diff_gives(
    names: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = (FIXTURE_RUNS / name for name in names)
    diffed = _diff(capsys, a, b)
    found = paired_facts(str(b), str(a), Overrides(), list(diffed))
    for series_id, entry in diffed.items():
        got = found[series_id]
        paired = entry["paired"]
        assert isinstance(got, Regression), (series_id, got)
        if paired["ci_low"] is None:  # compared, no interval: the measured rules are INCONCLUSIVE
            assert (got.low, got.high, got.no_interval) == (None, None, paired["method"])
            assert got.delta == paired["series_delta"]
            continue
        assert (got.delta, got.low, got.high) == (
            paired["series_delta"],
            paired["ci_low"],
            paired["ci_high"],
        ), series_id
        assert got.tasks == paired["n"] and got.against_series == entry["a"]["series_id"]


@pytest.mark.parametrize("names", PAIRS, ids=["-".join(p) for p in PAIRS])
def test_gate_against_reports_the_headline_delta_of_diff(
    names: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """End to end: ``inspector gate B --against A``'s headline figure is diff's, and its
    verdict is PASS when all of diff's interval is at or above −limit, FAIL when all of it is
    below, else INCONCLUSIVE (exit 0 under the default ``inconclusive = "warn"``)."""
    a, b = (FIXTURE_RUNS / name for name in names)
    diffed = _diff(capsys, a, b)
    figures = [
        (p["series_delta"], p["ci_low"], p["ci_high"])
        for p in (diffed[s]["paired"] for s in _headlines(capsys, b) if s in diffed)
    ]
    assert figures
    policy = tmp_path / "p.toml"
    seen = set()
    for limit in (0.0, 0.5):
        policy.write_text(f"max_regression = {limit}\n", encoding="utf-8")
        code, data = _json(
            capsys, "gate", str(b), "--policy", str(policy), "--against", str(a), "--format", "json"
        )
        (rule,) = data["runs"][0]["rules"]
        said = " ".join([rule["detail"], *rule["failures"]])
        for delta, low, high in figures:
            assert f"change {delta:+.4g} [{low:+.4g}, {high:+.4g}] vs limit {0.0 - limit:+g}" in said
        verdicts = {"fail" if high < -limit else "pass" if low >= -limit else "inconclusive"
                    for _, low, high in figures}  # fmt: skip
        verdict = next(v for v in ("fail", "inconclusive", "pass") if v in verdicts)
        status = {"fail": "fail", "inconclusive": "skipped", "pass": "pass"}[verdict]
        assert (rule["verdict"], rule["status"], code) == (verdict, status, int(status == "fail"))
        seen.add(verdict)
    assert len(seen) == 2, seen  # each pair shows two verdicts over the two limits


def test_the_hierarchy_pair_is_not_the_mean_of_task_differences(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The old gate's estimand (the mean per-task difference over the tasks evaluated on
    both sides) is another number on the hierarchy pair: the gate must not measure it."""
    a, b = (FIXTURE_RUNS / name for name in PAIRS[1])
    headline = _headlines(capsys, b)[0]
    pair = _diff(capsys, a, b)[headline]
    values = []
    for run, series_id in ((a, pair["a"]["series_id"]), (b, headline)):
        code = main(["tasks", str(run), "--series", series_id, "--format", "jsonl"])
        rows = [json.loads(line) for line in capsys.readouterr()[0].splitlines()]
        assert code == 0
        values.append({r["task_id"]: r["value"] for r in rows if r["state"] == "evaluated"})
    both = sorted(set(values[0]) & set(values[1]))
    old = sum(values[1][t] - values[0][t] for t in both) / len(both)
    got = paired_facts(str(b), str(a), Overrides(), [headline])[headline]
    assert isinstance(got, Regression)
    assert got.delta == pair["paired"]["series_delta"]
    assert abs(got.delta - old) > 1e-6, (got.delta, old)
