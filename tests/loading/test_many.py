"""Many runs at once (:mod:`inspector.loading.many`, ``check ROOT``): the worker processes
start with the reader and the engine loaded (imported once, before they fork), not each
importing them on its first run."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

PROBE = """
import json, sys
from inspector.loading.many import map_in_processes

def first_call(number):
    return number, "inspector.loading.pending" in sys.modules, "inspector.engine.reduction" in sys.modules

print(json.dumps(map_in_processes(first_call, [(1,), (2,)], 2)))
"""


def test_workers_start_with_the_reader_loaded() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(proc.stdout) == [[1, True, True], [2, True, True]]
