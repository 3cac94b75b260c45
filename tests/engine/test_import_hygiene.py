"""The engine, plan resolution and the reader are pure: importing them loads no textual or rich."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import importlib, importlib.util, json, sys
modules = ["inspector.engine", "inspector.resolve"]
if importlib.util.find_spec("inspector.results") is not None:
    modules.append("inspector.results")
for name in modules:
    importlib.import_module(name)
ui = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich"))
print(json.dumps({"imported": modules, "ui": ui}))
"""


def test_engine_resolve_and_reader_import_no_textual_or_rich() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True
    )
    result = json.loads(proc.stdout)
    assert {"inspector.engine", "inspector.resolve"} <= set(result["imported"])
    assert result["ui"] == []
