"""``inspector.api`` is typed for its users: a script using it passes ``mypy --strict``, and
a wrong use of a row's field is caught."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

USE = """
from inspector.api import InspectorError, Root, TaskRow, open_root

def failing(path: str) -> list[str]:
    try:
        root: Root = open_root(path)
    except InspectorError as exc:
        return [str(exc)]
    rows: list[TaskRow] = [t for t in root.tasks if t.state == "evaluated"]
    values: list[float] = [t.value for t in rows if t.value is not None]
    codes: tuple[str, ...] = rows[0].reason_codes
    return [t.task_id for t in rows if t.value == 0.0] + list(codes) + [str(sum(values))]
"""
MISUSE = """
from inspector.api import open_run

total: int = open_run("x").tasks[0].value
"""


def _mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "use_api.py"
    script.write_text(source, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
         "--no-incremental", str(script)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_a_script_using_the_api_type_checks(tmp_path: Path) -> None:
    done = _mypy(tmp_path, USE)
    assert done.returncode == 0, done.stdout[-3000:]
    done = _mypy(tmp_path, MISUSE)
    assert done.returncode == 1
    assert 'has type "float | None", variable has type "int"' in done.stdout
