"""The differences between two reports come in the same order on every run of the program."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import json, sys
from inspector.views.differences import compare_reports
stored = {"series": [{"series_id": f"gone-{i}"} for i in range(8)]}
new = {"series": [{"series_id": f"new-{i}"} for i in range(8)]}
print(json.dumps([d.where for d in compare_reports(stored, new)]))
"""


def test_series_present_on_one_side_keep_each_files_order() -> None:
    expected = [f"gone-{i}" for i in range(8)] + [f"new-{i}" for i in range(8)]
    for seed in range(6):
        proc = subprocess.run(
            [sys.executable, "-c", SCRIPT],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PYTHONHASHSEED": str(seed), "PATH": ""},
            check=True,
        )
        assert json.loads(proc.stdout) == expected, f"PYTHONHASHSEED={seed}"
