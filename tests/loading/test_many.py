"""Many runs at once (:func:`inspector.loading.audit`, ``check ROOT``): the worker processes
start with the reader and the engine loaded (imported once, before they fork), not each
importing them on its first run."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT

PROBE = """
import json, sys
from inspector.loading import audit

def first_call(number):
    return number, "inspector.loading.reading" in sys.modules, "inspector.engine.reduction" in sys.modules

print(json.dumps(audit(first_call, [(1,), (2,)])))
"""


def test_workers_start_with_the_reader_loaded() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "INSPECTOR_WORKERS": "2"},
    )
    assert json.loads(proc.stdout) == [[1, True, True], [2, True, True]]


def _paced(monkeypatch, **pacing) -> tuple[list[float], list[tuple[int, object]]]:
    """The time each batch waited for more calls to end, and every pair streamed: calls
    that end one after another over about a second, in the shared reader processes."""
    import concurrent.futures
    import time

    from inspector.loading import audit_in_app

    real_wait = concurrent.futures.wait
    gaps: list[float] = []

    def wait(futures, timeout=None, return_when=concurrent.futures.ALL_COMPLETED):
        if return_when == concurrent.futures.ALL_COMPLETED:
            gaps.append(timeout)
        return real_wait(futures, timeout=timeout, return_when=return_when)

    monkeypatch.setattr(concurrent.futures, "wait", wait)
    calls = [(0.01 * number,) for number in range(20)]
    batches = list(audit_in_app(time.sleep, calls, failed=lambda i, e: e, **pacing))
    return gaps, [pair for batch in batches for pair in batch]


def test_batches_start_soon_and_grow(monkeypatch) -> None:
    """The runs screen's checks: the first values within 0.1 s, then each batch waits
    twice as long as the one before, up to ``every`` (each batch redraws the screen)."""
    gaps, pairs = _paced(monkeypatch, every=0.5, first=0.1)
    assert sorted(index for index, _ in pairs) == list(range(20))
    assert len(gaps) >= 2, gaps
    assert gaps == [0.1, 0.2, 0.4, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5][: len(gaps)]


def test_batches_without_first_wait_every(monkeypatch) -> None:
    gaps, pairs = _paced(monkeypatch, every=0.05)
    assert sorted(index for index, _ in pairs) == list(range(20))
    assert len(gaps) >= 2 and set(gaps) == {0.05}, gaps


PRELOAD_PROBE = """
import json, sys
from inspector import loading

def first_call(path):
    return "colorsys" in sys.modules

runs = [(path,) for path in sys.argv[1:]]
print(json.dumps(loading.audit(first_call, runs, preload=["colorsys"])))
"""


def test_a_first_pass_imports_what_reads_need_once_before_the_workers_start(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``preload`` (the statistics the gate's facts need) is imported before the workers
    fork when a run has no report kept (once, not by each worker), and not at all when
    every run has one (a warm pass answers from the store without it)."""
    from tests.conftest import FIXTURE_RUNS

    runs = [str(FIXTURE_RUNS / "compare_a"), str(FIXTURE_RUNS / "compare_b")]
    env = {**os.environ, "INSPECTOR_WORKERS": "2", "XDG_CACHE_HOME": str(tmp_path / "cache")}

    def probe() -> list[bool]:
        done = subprocess.run([sys.executable, "-c", PRELOAD_PROBE, *runs], cwd=ROOT,
                              capture_output=True, text=True, check=True, env=env)  # fmt: skip
        return json.loads(done.stdout)  # type: ignore[no-any-return]

    assert probe() == [True, True]
    for run in runs:  # their reports kept
        subprocess.run([sys.executable, "-m", "inspector", "report", run, "--json"], cwd=ROOT,
                       capture_output=True, check=True, env=env)  # fmt: skip
    assert probe() == [False, False]
