"""The audit, explain, compare, stats and CLI modules import neither textual nor rich."""

from __future__ import annotations

import subprocess
import sys

from .helpers import ROOT

PURE = (
    "inspector.audit",
    "inspector.attribution",
    "inspector.explain",
    "inspector.compare",
    "inspector.stats",
    "inspector.cli_audit",
)


def test_pure_modules_import_no_ui() -> None:
    code = (
        f"import sys\nfor name in {PURE!r}: __import__(name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
