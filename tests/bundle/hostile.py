"""A run whose task id, category, issue message and verifier output are markup: what a
page that lets result text become HTML or script would run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from inspector.results.layout import task_directory_name
from tests.conftest import FIXTURE_RUNS

TASK_ID = "</script><script>window.__pwned = 'task id'</script>"
CATEGORY = "<img src=x onerror=\"window.__pwned = 'category'\">"
MESSAGE = "<img src=x onerror=window.__pwned='message'> & \u2028 line \u2029 end"
VERIFIER = "</script><!-- <script>window.__pwned = 'verifier'</script>"
TASK = "taubench_retail_4b4b27df"


def hostile_run(tmp_path: Path) -> Path:
    """``fixtures/runs/k1_micro`` with one task's id, category, issue and verifier output
    replaced by markup."""
    run = tmp_path / "hostile"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    (folder,) = [p for p in (run / "details").glob(f"*/{TASK}--*")]
    task = json.loads((folder / "task.json").read_text(encoding="utf-8"))
    task.update(task_id=TASK_ID, category=CATEGORY)
    (folder / "task.json").write_text(json.dumps(task), encoding="utf-8")
    result = json.loads((folder / "attempt-1" / "result.json").read_text(encoding="utf-8"))
    result["issues"][0]["message"] = MESSAGE
    result["meta"]["benchmark"]["eval_raw_data"] = VERIFIER
    (folder / "attempt-1" / "result.json").write_text(json.dumps(result), encoding="utf-8")
    # AgentCompass names the folder after the task id (as its writer would have)
    folder.rename(folder.parent / task_directory_name(TASK_ID))
    return run
