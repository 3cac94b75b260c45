"""EEE ``uncertainty`` against an independent calculation.

The task values come from `inspector tasks --series all --format jsonl` (the engine's
per-task reductions); the standard error, interval and standard deviation are computed
here with scipy / numpy from the formulas of E. Miller's "Adding Error Bars to Evals"
(task = cluster), not through inspector.views.stats; the interval of a value in [0, 1] is
Clopper–Pearson at the effective n of issue 38, computed here with scipy.stats.beta; the
records are validated against EEE's schema.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from tests.conftest import FIXTURE_RUNS

from .test_export import AGGREGATE, _export, _tasks_output


def _exact_at(p: float, n_eff: float) -> tuple[float, float]:
    """Clopper–Pearson at x = p·n_eff successes of n_eff (scipy.stats.beta quantiles)."""
    x = p * n_eff
    low = 0.0 if x <= 0 else stats.beta.ppf(0.025, x, n_eff - x + 1)
    high = 1.0 if x >= n_eff else stats.beta.ppf(0.975, x + 1, n_eff - x)
    return float(low), float(high)


def _hall(values: np.ndarray) -> tuple[float, float]:
    """Hall (1992) solved numerically: the μ with |g(T)| = t₀.₉₇₅, T = (x̄ − μ)/se,
    g(T) = T + γ(1 + 2T²)/(6√n) + γ²T³/(27n), γ the sample skewness m₃/σ̂³."""
    from scipy import optimize

    n, mean = len(values), float(values.mean())
    gamma = float(np.mean((values - mean) ** 3) / np.std(values) ** 3)

    def g(t: float) -> float:
        return t + gamma * (1 + 2 * t * t) / (6 * n**0.5) + gamma**2 * t**3 / (27 * n)

    q, se = stats.t.ppf(0.975, n - 1), stats.sem(values)
    t_high = optimize.brentq(lambda t: g(t) - q, -1e6, 1e6, xtol=1e-14)
    t_low = optimize.brentq(lambda t: g(t) + q, -1e6, 1e6, xtol=1e-14)
    return mean - t_high * se, mean - t_low * se


def _task_values(run: Path, series_id: str, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    rows = [json.loads(line) for line in _tasks_output(run, "jsonl", capsys).splitlines()]
    return [r for r in rows if r["series_id"] == series_id and r["state"] == "evaluated"]


def _uncertainty(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, dict]:
    aggregate_path, _ = _export(run, "eee", tmp_path, capsys)
    record = json.loads(aggregate_path.read_text(encoding="utf-8"))
    assert not list(AGGREGATE.iter_errors(record))
    return {r["evaluation_result_id"]: r["score_details"] for r in record["evaluation_results"]}


@pytest.mark.parametrize("series_id", ["correct.native@1", "reward.native@1"])
def test_a_micro_mean_has_scipys_standard_error_and_exact_interval(
    series_id: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = FIXTURE_RUNS / "k1_micro"
    values = np.array([r["value"] for r in _task_values(run, series_id, capsys)], dtype=float)
    details = _uncertainty(run, tmp_path, capsys)[series_id]
    got = details["uncertainty"]
    n = len(values)
    assert details["score"] == pytest.approx(values.mean(), rel=1e-12)
    sem = stats.sem(values)
    p = values.mean()
    if series_id.startswith("correct"):  # binary: Clopper–Pearson of x of n
        low, high = _exact_at(p, n)
    else:  # a scalar (reward), whatever its values: Hall's skewness-corrected t (issue 49)
        low, high = _hall(values)
    assert got["num_samples"] == n == 11
    assert got["standard_error"]["value"] == pytest.approx(sem, rel=1e-9)
    assert got["standard_deviation"] == pytest.approx(np.std(values, ddof=1), rel=1e-9)
    ci = got["confidence_interval"]
    assert ci["confidence_level"] == 0.95
    assert (ci["lower"], ci["upper"]) == (
        pytest.approx(low, rel=1e-9),
        pytest.approx(high, rel=1e-9),
    )


def test_correct_on_k1_micro_worked_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """7 of 11 tasks right: p = 7/11, s² = 11/10 · p(1 − p), se = s/√11; the interval is
    Clopper–Pearson's for 7 of 11 (scipy's binomtest, method 'exact')."""
    got = _uncertainty(FIXTURE_RUNS / "k1_micro", tmp_path, capsys)["correct.native@1"]
    p = 7 / 11
    s = math.sqrt(p * (1 - p) * 11 / 10)
    se = s / math.sqrt(11)
    assert got["score"] == p
    u = got["uncertainty"]
    assert u["standard_deviation"] == pytest.approx(s, rel=1e-12)
    assert u["standard_error"]["value"] == pytest.approx(se, rel=1e-12)
    ref = stats.binomtest(7, 11).proportion_ci(0.95, method="exact")
    assert u["confidence_interval"]["lower"] == pytest.approx(ref.low, rel=1e-9)
    assert u["confidence_interval"]["upper"] == pytest.approx(ref.high, rel=1e-9)


def test_a_mean_of_category_means_has_the_stratified_standard_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """k3_pass (category_mean, one one-task category): Var = Σ (1/G)² s̃_g² / n_g, each
    category's variance moderated towards m̃(1 − m̃) with 2 df (m̃ = (Σv + 2)/(n + 4)), the
    one-task category's that alone. Its task values are
    binary (pass@3), so the interval is Clopper–Pearson at Kish's effective number of tasks
    1 / Σ (1/G)² / n_g."""
    run = FIXTURE_RUNS / "k3_pass"
    groups: dict[str, list[float]] = {}
    for row in _task_values(run, "correct.pass@3", capsys):
        groups.setdefault(row["category"], []).append(row["value"])
    details = _uncertainty(run, tmp_path, capsys)["correct.pass@3"]
    g = len(groups)
    assert details["score"] == pytest.approx(sum(np.mean(v) for v in groups.values()) / g)
    many = [v for v in groups.values() if len(v) > 1]
    assert len(many) < g  # a one-task category is exercised
    parts = []
    for v in groups.values():
        m_tilde = (sum(v) + 2) / (len(v) + 4)
        s2 = np.var(v, ddof=1) if len(v) > 1 else 0.0
        variance = ((len(v) - 1) * s2 + 2 * m_tilde * (1 - m_tilde)) / (len(v) + 1)
        parts.append(((1 / g) ** 2 * variance / len(v), len(v) + 1))
    se = math.sqrt(sum(p for p, _ in parts))
    kish = 1 / sum((1 / g) ** 2 / len(v) for v in groups.values())
    low, high = _exact_at(details["score"], kish)
    got = details["uncertainty"]
    assert got["num_samples"] == sum(map(len, groups.values())) == 13
    assert got["standard_error"]["value"] == pytest.approx(se, rel=1e-9)
    assert got["confidence_interval"]["lower"] == pytest.approx(low, rel=1e-9)
    assert got["confidence_interval"]["upper"] == pytest.approx(high, rel=1e-9)
    assert "standard_deviation" not in got  # se is not sd/√n here


def test_a_corpus_formula_has_no_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """compare_a's ratio of sums: no standard error is claimed, only the evaluated count."""
    run = FIXTURE_RUNS / "compare_a"
    got = _uncertainty(run, tmp_path, capsys)["subproblem_correctness.native@1"]["uncertainty"]
    assert got == {"num_samples": 18}
