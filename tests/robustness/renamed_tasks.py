"""A copy of a fixture run whose task ids are replaced (folders renamed to match), for the
tests of what the command line does with hostile ids."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from inspector.results.layout import task_directory_name
from tests.conftest import FIXTURE_RUNS

EditResult = Callable[[dict[str, Any]], None]


def copy_with_task_ids(
    run: Path, task_ids: Mapping[str, str], edit: EditResult | None = None
) -> Path:
    """``fixtures/runs/k1_micro`` copied to ``run``, each task id in ``task_ids`` replaced
    by its value; ``edit`` changes the attempt-1 result of each renamed task."""
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    for task_file in sorted(run.glob("details/*/*/task.json")):
        data = json.loads(task_file.read_text(encoding="utf-8"))
        new_id = task_ids.get(data["task_id"])
        if new_id is None:
            continue
        if edit is not None:
            result_file = task_file.parent / "attempt-1" / "result.json"
            result = json.loads(result_file.read_text(encoding="utf-8"))
            edit(result)
            result_file.write_text(json.dumps(result), encoding="utf-8")
        data["task_id"] = new_id
        task_file.write_text(json.dumps(data), encoding="utf-8")
        task_file.parent.rename(task_file.parent.parent / task_directory_name(new_id))
    return run
