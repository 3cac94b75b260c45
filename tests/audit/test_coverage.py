"""The 95 % interval covers the true mean of a known Bernoulli population in 93–97 % of draws.

A seeded simulation (``benchmarks/bench_coverage.py``, scenario ``bernoulli``): 2,000 runs of
100 k=1 tasks, each correct with probability 0.3, scored by the engine; the interval comes
from the same code as ``inspector stats``. The seed is fixed, so the figure is the same on
every run (1929 / 2000 = 96.45 % with seed 15 for the exact interval of issue 38; the t
interval before it gave 1904); the 93–97 % band is the issue's acceptance
band, wide enough that a correct interval with another seed still lands in it.
"""

from __future__ import annotations

import pytest

from tests.conftest import script


@pytest.mark.slow
def test_bernoulli_coverage_of_the_95_interval() -> None:
    bench = script("benchmarks/bench_coverage.py")
    covered, counted = bench.coverage("bernoulli", 2000, 15)
    assert counted == 2000
    assert 0.93 <= covered / counted <= 0.97, covered
