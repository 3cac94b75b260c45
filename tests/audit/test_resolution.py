"""Is a paired delta resolved (issue 51 item 2): the minimum detectable effect beside the
paired delta, and the tasks (or attempts per task) that would resolve the observed delta.
Its power at the stated MDE is measured by benchmarks/bench_mde.py; here: the numbers it is
built from, computed by hand, and what ``inspector diff`` prints and writes."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from inspector.cli.main import main
from inspector.engine.report import MICRO_WEIGHTED
from inspector.views.paired import (
    DeltaInterval,
    SeriesSample,
    Side,
    delta_interval,
    paired_stats,
    reach_at,
)
from inspector.views.resolution import resolution
from inspector.views.run_stats import Shape
from tests.conftest import FIXTURE_RUNS


def _side(values: list[float], k: int = 1) -> Side:
    x = np.array(values, dtype=float)
    n = len(x)
    shape = Shape(1, "binary task values") if k == 1 else Shape(k, f"fractions of {k}")
    return Side(x, np.ones(n), np.zeros(n, np.intp), np.ones(n, bool), MICRO_WEIGHTED, None,
                float(x.mean()), shape)  # fmt: skip


def _sample(a: list[float], b: list[float], k: int = 1) -> SeriesSample:
    return SeriesSample(tuple(f"t{i}" for i in range(len(a))), ("c",), _side(a, k), _side(b, k))


def _stats(a: list[float], b: list[float], k: int = 1):  # type: ignore[no-untyped-def]
    pairs = list(zip(a, b, strict=True))
    delta = float(np.mean(b) - np.mean(a))
    return paired_stats("s", pairs, one_outcome=k == 1, delta=delta, sample=_sample(a, b, k))


A = [1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1] * 2
B = [1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1] * 2


def test_the_standard_error_is_the_textbook_paired_one_and_the_mde_lies_beyond_the_reach():
    """For a micro series the paired standard error is s_d/√n of the task differences; the
    MDE is past the interval's reach towards 0 by at least t_(0.8, n−1)·se."""
    found = _stats(A, B)
    d = np.array(B, float) - np.array(A, float)
    n = len(d)
    assert found.resolution is not None and found.interval is not None
    assert found.resolution.se == pytest.approx(float(np.std(d, ddof=1)) / math.sqrt(n), rel=1e-9)
    reach = found.delta - found.interval.low
    t = stats.t.ppf(0.8, n - 1)
    assert found.resolution.mde >= reach + t * found.resolution.se - 1e-12
    assert found.resolution.mde <= reach + 2 * t * found.resolution.se


def test_the_tasks_that_would_resolve_the_delta_do_resolve_it():
    """Repeating the same tasks until there are ``tasks_to_resolve`` of them gives an MDE
    no larger than the observed delta (within the rounding of whole repeats), while the
    original tasks do not."""
    found = _stats(A, B)
    assert found.resolution is not None
    assert found.resolution.mde > found.delta
    need = found.resolution.tasks_to_resolve
    repeats = math.ceil(need / len(A))
    bigger = _stats(A * repeats, B * repeats)
    assert bigger.resolution is not None
    assert bigger.resolution.mde <= found.delta * 1.05
    fewer = _stats(A * max(1, repeats // 2), B * max(1, repeats // 2))
    assert fewer.resolution is not None and fewer.resolution.mde > found.delta


def test_attempts_per_task_from_the_within_task_variance():
    """Fractions of k = 4 attempts: the within-task part W of se² is Σ x(1 − x)/(k − 1)/n²
    over both sides (by hand here; at most se² itself); at k′ attempts se² becomes
    se² − W + W·4/k′ and the MDE scales with se: ``attempts_to_resolve`` is the least k′
    whose MDE reaches the observed delta; where the tasks themselves differ too much, more
    attempts cannot."""
    rng = np.random.default_rng(51)
    p = rng.beta(1.5, 1.5, size=40)
    a = list(rng.binomial(4, p) / 4)
    b = list(rng.binomial(4, np.clip(p + 0.04, 0, 1)) / 4)
    found = _stats(a, b, k=4)
    res = found.resolution
    assert res is not None and res.mde > found.delta
    assert res.attempts_to_resolve is not None and res.attempts_to_resolve > 4
    n = len(a)
    within = min(sum(x * (1 - x) / 3 for x in a + b) / n**2, res.se**2)

    def mde_at(k: int) -> float:
        return res.mde * math.sqrt(res.se**2 - within + within * 4 / k) / res.se

    k2 = res.attempts_to_resolve
    assert mde_at(k2) <= found.delta + 1e-12 < mde_at(k2 - 1)
    # between-task differences dominate: no number of attempts is enough
    c = [0.0, 1.0] * 16
    d = [1.0, 0.0] * 15 + [1.0, 1.0]
    wide = _stats(c, d, k=4).resolution
    assert wide is not None and wide.attempts_to_resolve is None
    assert "attempts per task alone cannot" in (wide.reason or "")


def test_no_mde_without_a_paired_interval():
    one = _stats([1.0], [0.0])
    assert one.interval is None and one.resolution is None
    agree = _stats([1.0] * 6, [1.0] * 6)  # every task the same on both sides: no spread
    assert agree.resolution is not None and agree.resolution.mde is None
    assert (agree.resolution.reason or "").startswith("no MDE: no spread")
    same = _stats([1, 0, 1, 0, 1, 1], [0, 1, 1, 0, 1, 1])  # the same value, tasks differ
    assert same.delta == 0 and same.resolution is not None and same.resolution.mde > 0
    assert same.resolution.tasks_to_resolve is None
    assert same.resolution.reason == "the observed delta is 0"


def test_the_jackknife_groups_are_the_same_for_the_same_sample():
    sample = _sample(A, B)
    found = delta_interval(sample)
    assert isinstance(found, DeltaInterval)
    first = resolution(sample, (found.low, found.high), len(A), 0.1, 0.95, reach_at(0.95))
    again = resolution(sample, (found.low, found.high), len(A), 0.1, 0.95, reach_at(0.95))
    assert first == again


def test_diff_says_it_in_words_and_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    a, b = str(FIXTURE_RUNS / "compare_a"), str(FIXTURE_RUNS / "compare_b")
    main(["diff", a, b])
    text = capsys.readouterr().out
    assert "this comparison can detect changes of " in text
    assert " points or more (80% power, 18 paired tasks); the observed +5 would need about " in text
    main(["diff", a, b, "--format", "json"])
    series = {s["label"]: s for s in json.loads(capsys.readouterr().out)["series"]}
    headline = series["correct.native@1"]["paired"]
    assert 0 < headline["mde"] < 1 and headline["mde_power"] == 0.8
    # about n·(MDE/|d|)² tasks, n the 18 paired
    assert headline["tasks_to_resolve"] == math.ceil(18 * (headline["mde"] / 0.05) ** 2)
    assert headline["resolution"].startswith("this comparison can detect changes of")
    corpus = series["subproblem_correctness.native@1"]["paired"]
    assert corpus["mde"] is None and corpus["tasks_to_resolve"] is None
    assert corpus["resolution"].startswith("no MDE: no interval: the series is not an aggregate")
