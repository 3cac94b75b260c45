"""The paired interval of a series delta B − A is MOVER (issue 37 item 3 to issue 38's bar):
inside the feasible range, never of zero width, and the combination of each side's own
Clopper–Pearson interval with the phi coefficient of the 2×2 table, computed here by hand.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from inspector.engine.report import MICRO_WEIGHTED
from inspector.views.paired import DeltaInterval, SeriesSample, Side, delta_interval
from inspector.views.run_stats import Shape


def _side(values: list[float]) -> Side:
    n = len(values)
    x = np.array(values, dtype=float)
    return Side(x, np.ones(n), np.zeros(n, np.intp), np.ones(n, bool), MICRO_WEIGHTED, None,
                float(x.mean()), Shape(1, "binary task values"))  # fmt: skip


def _sample(a: list[float], b: list[float]) -> SeriesSample:
    return SeriesSample(tuple(f"t{i}" for i in range(len(a))), ("c",), _side(a), _side(b))


def _interval(a: list[float], b: list[float]) -> DeltaInterval:
    found = delta_interval(_sample(a, b))
    assert isinstance(found, DeltaInterval), found
    return found


def test_all_pass_on_both_sides_at_n5_is_an_interval_not_a_point() -> None:
    ci = _interval([1.0] * 5, [1.0] * 5)
    assert -1 <= ci.low < 0 < ci.high <= 1
    # each side's Clopper–Pearson lower bound for 5 of 5 is 0.05^(1/5) = 0.5493
    assert ci.high - ci.low > 0.5


def test_a_binary_delta_never_leaves_minus_one_to_one() -> None:
    # the jackknife t gave 0.8 ± 2.776·0.2 = [0.245, 1.355] here
    ci = _interval([0, 0, 0, 0, 1], [1, 1, 1, 1, 1])
    assert 0 < ci.low < 0.8 < ci.high <= 1


def test_mover_from_clopper_pearson_and_phi() -> None:
    a = [1, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1]
    b = [1, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1]
    n = len(a)
    ci = _interval(a, b)
    pa, pb = sum(a) / n, sum(b) / n
    ca = stats.binomtest(sum(a), n).proportion_ci(0.95, method="exact")
    cb = stats.binomtest(sum(b), n).proportion_ci(0.95, method="exact")
    both = sum(x == y == 1 for x, y in zip(a, b, strict=True))
    only_a = sum(x == 1 and y == 0 for x, y in zip(a, b, strict=True))
    only_b = sum(x == 0 and y == 1 for x, y in zip(a, b, strict=True))
    neither = n - both - only_a - only_b
    phi = (both * neither - only_a * only_b) / math.sqrt(
        (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    )
    r = phi * (n - 1) / n
    d = pb - pa
    low = d - math.sqrt((pb - cb.low) ** 2 + (ca.high - pa) ** 2
                        - 2 * r * (pb - cb.low) * (ca.high - pa))  # fmt: skip
    high = d + math.sqrt((cb.high - pb) ** 2 + (pa - ca.low) ** 2
                         - 2 * r * (cb.high - pb) * (pa - ca.low))  # fmt: skip
    assert math.isclose(ci.low, max(-1.0, low), abs_tol=1e-9)
    assert math.isclose(ci.high, min(1.0, high), abs_tol=1e-9)


pairs_st = st.integers(2, 30).flatmap(
    lambda n: st.tuples(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n),
                        st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n))
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(pairs=pairs_st)
def test_binary_k1_interval_is_inside_and_wide(pairs: tuple[list[float], list[float]]) -> None:
    a, b = pairs
    ci = _interval(a, b)
    d = sum(b) / len(b) - sum(a) / len(a)
    assert -1 <= ci.low <= d <= ci.high <= 1
    assert ci.low < ci.high
