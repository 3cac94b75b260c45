"""`inspector diff --format json`: paired t, bootstrap, McNemar, config differences, references."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy import stats as scipy_stats

from inspector.cli.main import main
from tests.conftest import FIXTURE_RUNS, conformance_runs

RUNS = sorted(path for path in FIXTURE_RUNS.iterdir() if path.is_dir()) + conformance_runs()
PAIRED = {"n", "mean_diff", "series_delta", "ci_low", "ci_high", "p_value", "method"}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _reported(capsys: pytest.CaptureFixture[str], run: Path, series: str) -> float:
    """The series value `inspector report --json` gives (another command)."""
    code, out, _ = _run(capsys, "report", str(run), "--json")
    assert code == 0
    return next(s["value"] for s in json.loads(out)["series"] if s["series_id"] == series)


def _values(capsys: pytest.CaptureFixture[str], run: Path, series: str) -> dict[str, float]:
    """Per-task values of the evaluated tasks, from `inspector tasks` (another command)."""
    code, out, _ = _run(capsys, "tasks", str(run), "--series", series, "--format", "jsonl")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    return {r["task_id"]: r["value"] for r in rows if r["state"] == "evaluated"}


@pytest.mark.parametrize("run", RUNS, ids=[r.name for r in RUNS])
def test_diff_of_a_run_with_itself(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "diff", str(run), str(run), "--format", "json")
    if code == 2:  # a run AgentCompass refuses
        assert _run(capsys, "report", str(run))[0] == 2
        return
    assert code == 0, err
    data = json.loads(out)
    assert data["config_differences"] == [] and data["only_a"] == data["only_b"] == []
    for series in data["series"]:
        paired = series["paired"]
        assert set(paired) >= PAIRED
        sides = "a side has no interval" not in paired["method"]
        if series["a"]["value"] is not None and series["bootstrap"] is not None and sides:
            assert (paired["mean_diff"], paired["series_delta"], paired["p_value"]) == (0, 0, 1)
            # MOVER: the sides' own intervals, their correlation shrunk below 1: a run
            # beside itself gets an interval around 0 that is not a point
            assert paired["ci_low"] < 0 < paired["ci_high"]
            # the deprecated alias of paired (issue 49): nothing is resampled
            assert series["bootstrap"]["resamples"] == 0 and series["bootstrap"]["mean_diff"] == 0.0
        if series["mcnemar"] is not None:
            assert (series["mcnemar"]["b"], series["mcnemar"]["c"]) == (0, 0)


def test_paired_t_and_mcnemar_of_the_compare_runs(capsys: pytest.CaptureFixture[str]) -> None:
    a, b = FIXTURE_RUNS / "compare_a", FIXTURE_RUNS / "compare_b"
    code, out, _ = _run(capsys, "diff", str(a), str(b), "--format", "json", "--seed", "7")
    assert code == 1
    data = json.loads(out)
    assert data["config_differences"] == [
        "model differs: gpt-5-mini-2025-08-07 vs gpt-5-2025-08-07"
    ]
    series = next(s for s in data["series"] if s["label"] == "correct.native@1")
    va, vb = (_values(capsys, run, "correct.native@1") for run in (a, b))
    both = sorted(set(va) & set(vb))
    paired = series["paired"]
    assert paired["evaluated_on_both"] == len(both) == 18
    delta = _reported(capsys, b, "correct.native@1") - _reported(capsys, a, "correct.native@1")
    assert paired["mean_diff"] == paired["series_delta"] == delta
    assert paired["ci_low"] < delta < paired["ci_high"] and 0 < paired["p_value"] <= 1
    expected = json.loads((FIXTURE_RUNS / "compare_expected.json").read_text(encoding="utf-8"))
    flips = json.dumps(expected)
    assert series["mcnemar"]["b"] == 2 and series["mcnemar"]["c"] == 3, flips
    assert series["mcnemar"]["p_value"] == scipy_stats.binomtest(2, 5).pvalue == 1.0
    # --seed has no effect (nothing is random); bootstrap is paired's deprecated alias
    assert series["bootstrap"]["seed"] is None and series["bootstrap"]["resamples"] == 0
    assert series["bootstrap"]["ci_low"] == paired["ci_low"]


def test_k1_against_avg3_lists_the_config_first_and_has_no_mcnemar(
    capsys: pytest.CaptureFixture[str],
) -> None:
    a, b = FIXTURE_RUNS / "k3_avg_first_attempt", FIXTURE_RUNS / "k3_avg_hierarchy"
    _, out, _ = _run(capsys, "diff", str(a), str(b), "--format", "json")
    data = json.loads(out)
    assert any(d.startswith("k differs: 1 vs 3") for d in data["config_differences"])
    for series in data["series"]:
        assert series["mcnemar"] is None
    _, table, _ = _run(capsys, "diff", str(a), str(b))
    first_table = table.index("series ")
    assert table.index("different plans: k=1 in A, k=3 in B") < first_table


def test_reference_values_are_marked_in_diff_tables(capsys: pytest.CaptureFixture[str]) -> None:
    failed, ok = FIXTURE_RUNS / "k1_evaluation_failed", FIXTURE_RUNS / "k1_micro"
    for form in ("table", "markdown"):
        _, out, _ = _run(capsys, "diff", str(failed), str(ok), "--format", form)
        row = next(line for line in out.splitlines() if line.lstrip("| ").startswith("correct."))
        assert "0.636364 (reference)" in row, row
        assert "reference value" in out


def test_what_if_k1_is_a_paired_comparison_on_the_same_tasks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`diff RUN --what-if k=1`: the run's avg@3 beside k=1 on its first attempts; the paired t
    is checked against scipy on the task values of the genuine k=1 run written from attempt 1
    (fixtures/runs/k3_avg_first_attempt), read by `inspector tasks`."""
    run, genuine = FIXTURE_RUNS / "k3_avg_hierarchy", FIXTURE_RUNS / "k3_avg_first_attempt"
    code, out, err = _run(capsys, "diff", str(run), "--what-if", "k=1", "--format", "json")
    assert code == 1, err
    assert "derived plan: k=1 on attempt 1 of an avg@3 run (equivalent to having run it)" in err
    data = json.loads(out)
    assert data["b"] == f"{run} k=1 (derived)" and data["a"] == f"{run} avg@3"
    assert "k differs: 3 vs 1" in data["config_differences"]
    assert data["only_a"] == data["only_b"] == []
    series = next(s for s in data["series"] if s["a"] and s["a"]["series_id"] == "correct.avg@3")
    assert series["b"]["series_id"] == "correct.native@1"
    delta = _reported(capsys, genuine, "correct.native@1") - _reported(capsys, run, "correct.avg@3")
    paired = series["paired"]
    assert paired["n"] == 19 and paired["evaluated_on_both"] == 16
    assert paired["mean_diff"] == paired["series_delta"] == series["delta"] == delta
    assert paired["ci_low"] < delta < paired["ci_high"]
    assert series["mcnemar"] is None  # A averages three attempts per task
    assert series["bootstrap"]["n"] == 19 and series["bootstrap"]["ci_high"] == paired["ci_high"]
    # The table prints the same analysis as diffing the run with the genuine k=1 run.
    _, table, _ = _run(capsys, "diff", str(run), "--what-if", "k=1")
    _, runs_table, _ = _run(capsys, "diff", str(run), str(genuine))
    line = next(x for x in table.splitlines() if x.startswith("series delta"))
    assert line in runs_table.splitlines()


def test_what_if_of_a_pass_run_says_it_is_not_equivalent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = FIXTURE_RUNS / "k3_pass"
    code, out, err = _run(capsys, "diff", str(run), "--what-if", "avg@3", "--format", "json")
    assert code == 1, err
    assert "(NOT equivalent to having run it)" in err
    data = json.loads(out)
    assert "B is not equivalent to having run that plan" in data["notes"]
    assert "strategy differs: pass vs avg" in data["config_differences"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["k3_avg_hierarchy"], "give either run B or --what-if PLAN"),
        (["k3_avg_hierarchy", "k3_pass", "--what-if", "k=1"], "give either run B or --what-if"),
        (["k3_avg_hierarchy", "--what-if", "avg@5"], "the run has 3 attempts per task"),
        (["k3_avg_hierarchy", "--what-if", "best@2"], "a plan is k=1, avg@J or pass@J"),
        (["k3_avg_hierarchy", "--what-if", "avg@3"], "is the run's own plan"),
        (["k1_micro", "--what-if", "k=1"], "is the run's own plan"),
    ],
)
def test_what_if_misuse_is_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = [str(FIXTURE_RUNS / a) if (FIXTURE_RUNS / a).is_dir() else a for a in argv]
    code, out, err = _run(capsys, "diff", *runs)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err, err
