"""Helpers for the results tests: where the conformance runs are, and small file utilities."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.conftest import CONFORMANCE as CONFORMANCE
from tests.conftest import conformance_run as conformance_run
from tests.conftest import conformance_runs

RUN_NAMES = [path.name for path in conformance_runs()]


def task_dirs(run: Path, state: str) -> list[Path]:
    """The task folders of one state folder, sorted by name."""
    return sorted(path for path in (run / "details" / state).iterdir() if path.is_dir())


def load(path: Path) -> Any:
    """A file as AgentCompass carries it: ``json.loads``, each lone surrogate then as its
    pydantic dump writes it (three U+FFFD, fixtures/conformance/syn_lone_surrogates)."""
    return _carried(json.loads(path.read_text(encoding="utf-8")))


def _carried(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if isinstance(value, list):
        return [_carried(item) for item in value]
    if isinstance(value, dict):
        return {_carried(key): _carried(item) for key, item in value.items()}
    return value


def dump(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def tree_fingerprint(root: Path) -> dict[str, str]:
    """Every entry under root: file content hashes, link targets, folders."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[rel] = "link:" + str(path.readlink())
        elif path.is_dir():
            found[rel] = "dir"
        else:
            found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


# ---------------------------------------------------------------------------------------
# Defects: each breaks exactly one thing in a copy of the e2e_k1_micro conformance run
# (10 published tasks, k=1: 7 under normal/, 3 under error/) and says which file the one
# problem must name, whether AgentCompass refuses the whole run for it, and how many tasks
# still load. The expectations come from the spec (and AgentCompass's source), not from
# the reader.
# ---------------------------------------------------------------------------------------

BASE_RUN = "e2e_k1_micro"
BASE_TASKS = 10


def first_task(run: Path, state: str = "normal") -> Path:
    return task_dirs(run, state)[0]


def rel(run: Path, path: Path) -> str:
    return path.relative_to(run).as_posix()


def _edit_result(run: Path, change) -> str:
    folder = first_task(run)
    path = folder / "attempt-1" / "result.json"
    value = load(path)
    change(value)
    dump(path, value)
    return rel(run, path)


def _edit_index(run: Path, change) -> str:
    path = first_task(run) / "task.json"
    value = load(path)
    change(value)
    dump(path, value)
    return rel(run, path)


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def truncated_task_json(run: Path) -> str:
    path = first_task(run) / "task.json"
    _truncate(path)
    return rel(run, path)


def truncated_result_json(run: Path) -> str:
    path = first_task(run) / "attempt-1" / "result.json"
    _truncate(path)
    return rel(run, path)


def zero_byte_result_json(run: Path) -> str:
    path = first_task(run) / "attempt-1" / "result.json"
    path.write_bytes(b"")
    return rel(run, path)


def zero_byte_task_json(run: Path) -> str:
    path = first_task(run) / "task.json"
    path.write_bytes(b"")
    return rel(run, path)


def non_utf8_result_json(run: Path) -> str:
    path = first_task(run) / "attempt-1" / "result.json"
    path.write_bytes(path.read_bytes().replace(b'"status"', b'"st\xffatus"', 1))
    return rel(run, path)


def metrics_not_a_mapping(run: Path) -> str:
    return _edit_result(run, lambda v: v.update(metrics=[["correct", True]]))


def metric_value_null(run: Path) -> str:
    return _edit_result(run, lambda v: v["metrics"].update(correct=None))


def metric_value_text(run: Path) -> str:
    return _edit_result(run, lambda v: v["metrics"].update(correct="true"))


def metric_value_nan(run: Path) -> str:
    path = first_task(run) / "attempt-1" / "result.json"
    value = load(path)
    value["metrics"]["correct"] = 12345.5
    dump(path, value)
    path.write_text(path.read_text(encoding="utf-8").replace("12345.5", "NaN"), encoding="utf-8")
    return rel(run, path)


def issues_null(run: Path) -> str:
    return _edit_result(run, lambda v: v.update(issues=None))


def issues_missing(run: Path) -> str:
    return _edit_result(run, lambda v: v.pop("issues"))


def issue_severity_upper_case(run: Path) -> str:
    issue = {"severity": "FATAL", "phase": "run", "code": "run_failed", "message": "boom"}
    return _edit_result(run, lambda v: v.update(issues=[issue]))


def issue_without_message(run: Path) -> str:
    issue = {"severity": "error", "phase": "run", "code": "run_failed"}
    return _edit_result(run, lambda v: v.update(issues=[issue]))


def status_unknown(run: Path) -> str:
    return _edit_result(run, lambda v: v.update(status="done"))


def error_key_in_v3_attempt(run: Path) -> str:
    return _edit_result(run, lambda v: v.update(error="model failed"))


def unknown_attempt_field(run: Path) -> str:
    return _edit_result(run, lambda v: v.update(correct=True))


def meta_without_harness(run: Path) -> str:
    return _edit_result(run, lambda v: v.update(meta={"benchmark": {}}))


def trajectory_a_list(run: Path) -> str:
    return _edit_result(run, lambda v: v.update(trajectory=[{"step_id": 0}]))


def retry_count_missing(run: Path) -> str:
    return _edit_result(run, lambda v: v.pop("retry_count"))


def retry_count_bool(run: Path) -> str:
    return _edit_result(run, lambda v: v.update(retry_count=True))


def attempt_plan_k_zero(run: Path) -> str:
    return _edit_index(run, lambda v: v["attempt_plan"].update(k=0))


def attempt_plan_extra_key(run: Path) -> str:
    return _edit_index(run, lambda v: v["attempt_plan"].update(max_retries=1))


def attempt_plan_unknown_strategy(run: Path) -> str:
    return _edit_index(run, lambda v: v["attempt_plan"].update(strategy="best"))


def non_canonical_attempt_key(run: Path) -> str:
    folder = first_task(run)
    (folder / "attempt-1").rename(folder / "attempt-01")
    return _edit_index(run, lambda v: v.update(attempts={"01": "attempt-01"}))


def attempt_index_above_k(run: Path) -> str:
    folder = first_task(run)
    shutil.copytree(folder / "attempt-1", folder / "attempt-2")
    return _edit_index(run, lambda v: v["attempts"].update({"2": "attempt-2"}))


def only_retry_only_attempts(run: Path) -> str:
    path = first_task(run) / "attempt-1" / "result.json"
    dump(path, {"retry_count": 1})
    return rel(run, first_task(run) / "task.json")


def retry_counts_above_k(run: Path) -> str:
    folder = first_task(run)
    (folder / "attempt-2").mkdir()
    dump(folder / "attempt-2" / "result.json", {"retry_count": 2})
    return _edit_index(run, lambda v: v["attempts"].update({"2": "attempt-2"}))


def incomplete_publication_marker(run: Path) -> str:
    return _edit_index(run, lambda v: v.pop("ground_truth"))


def unsupported_task_schema(run: Path) -> str:
    return _edit_index(run, lambda v: v.update(schema_version="agentcompass.task.v1"))


def legacy_attempt_unclassifiable(run: Path) -> str:
    _edit_result(run, lambda v: v.update(error="Traceback: boom", status="run_error"))
    _edit_index(run, lambda v: v.update(schema_version="agentcompass.task.v2"))
    return rel(run, first_task(run) / "attempt-1" / "result.json")


def task_in_two_state_folders(run: Path) -> str:
    folder = first_task(run)
    copy = run / "details" / "error" / folder.name
    shutil.copytree(folder, copy)
    return rel(run, copy / "task.json")


def task_also_in_running(run: Path) -> str:
    folder = first_task(run)
    shutil.copytree(folder, run / "details" / "running" / folder.name)
    return rel(run, folder / "task.json")


def folder_name_mismatch(run: Path) -> str:
    folder = first_task(run)
    renamed = folder.with_name("renamed--" + "0" * 64)
    folder.rename(renamed)
    return rel(run, renamed / "task.json")


def attempt_symlinked_outside(run: Path) -> str:
    attempt = first_task(run) / "attempt-1"
    outside = run.parent.parent / "outside-attempt"
    shutil.move(attempt, outside)
    attempt.symlink_to(outside, target_is_directory=True)
    return rel(run, attempt)


def task_symlinked_outside(run: Path) -> str:
    folder = first_task(run)
    outside = run.parent.parent / "outside-task"
    shutil.move(folder, outside)
    folder.symlink_to(outside, target_is_directory=True)
    return rel(run, folder)


def result_symlinked_outside(run: Path) -> str:
    path = first_task(run) / "attempt-1" / "result.json"
    outside = run.parent.parent / "outside-result.json"
    shutil.move(path, outside)
    path.symlink_to(outside)
    return rel(run, path)


def result_json_missing(run: Path) -> str:
    path = first_task(run) / "attempt-1" / "result.json"
    path.unlink()
    return rel(run, path)


def index_not_published(run: Path) -> str:
    return _edit_index(
        run, lambda v: [v.pop(key) for key in ("category", "ground_truth", "attempt_plan")]
    )


def run_info_not_json(run: Path) -> str:
    (run / "run_info.json").write_text("{not json", encoding="utf-8")
    return "run_info.json"


def run_info_missing(run: Path) -> str:
    (run / "run_info.json").unlink()
    return "run_info.json"


def run_info_schema_v1(run: Path) -> str:
    value = load(run / "run_info.json")
    value["schema_version"] = "agentcompass.run_info.v1"
    dump(run / "run_info.json", value)
    return "run_info.json"


def run_info_without_request(run: Path) -> str:
    value = load(run / "run_info.json")
    value.pop("request")
    dump(run / "run_info.json", value)
    return "run_info.json"


def metrics_json_not_json(run: Path) -> str:
    (run / "metrics.json").write_bytes(b'{"series": [')
    return "metrics.json"


# name -> (defect, blocking, tasks that still load)
DEFECTS = {
    "truncated_task_json": (truncated_task_json, True, 9),
    "truncated_result_json": (truncated_result_json, True, 9),
    "zero_byte_result_json": (zero_byte_result_json, True, 9),
    "zero_byte_task_json": (zero_byte_task_json, True, 9),
    "non_utf8_result_json": (non_utf8_result_json, True, 9),
    "metrics_not_a_mapping": (metrics_not_a_mapping, True, 9),
    "metric_value_null": (metric_value_null, True, 9),
    "metric_value_text": (metric_value_text, True, 9),
    "metric_value_nan": (metric_value_nan, True, 9),
    "issues_null": (issues_null, True, 9),
    "issues_missing": (issues_missing, True, 9),
    "issue_severity_upper_case": (issue_severity_upper_case, True, 9),
    "issue_without_message": (issue_without_message, True, 9),
    "status_unknown": (status_unknown, True, 9),
    "error_key_in_v3_attempt": (error_key_in_v3_attempt, True, 9),
    "unknown_attempt_field": (unknown_attempt_field, True, 9),
    "meta_without_harness": (meta_without_harness, True, 9),
    "trajectory_a_list": (trajectory_a_list, True, 9),
    "retry_count_missing": (retry_count_missing, True, 9),
    "retry_count_bool": (retry_count_bool, True, 9),
    "attempt_plan_k_zero": (attempt_plan_k_zero, True, 9),
    "attempt_plan_extra_key": (attempt_plan_extra_key, True, 9),
    "attempt_plan_unknown_strategy": (attempt_plan_unknown_strategy, True, 9),
    "non_canonical_attempt_key": (non_canonical_attempt_key, True, 9),
    "attempt_index_above_k": (attempt_index_above_k, True, 9),
    "only_retry_only_attempts": (only_retry_only_attempts, True, 9),
    "retry_counts_above_k": (retry_counts_above_k, True, 9),
    "incomplete_publication_marker": (incomplete_publication_marker, True, 9),
    "unsupported_task_schema": (unsupported_task_schema, True, 9),
    "legacy_attempt_unclassifiable": (legacy_attempt_unclassifiable, True, 9),
    "task_in_two_state_folders": (task_in_two_state_folders, True, 10),
    "task_also_in_running": (task_also_in_running, True, 9),
    "folder_name_mismatch": (folder_name_mismatch, True, 9),
    "attempt_symlinked_outside": (attempt_symlinked_outside, True, 9),
    "task_symlinked_outside": (task_symlinked_outside, True, 9),
    "result_symlinked_outside": (result_symlinked_outside, True, 9),
    "result_json_missing": (result_json_missing, False, 9),
    "index_not_published": (index_not_published, False, 9),
    "run_info_not_json": (run_info_not_json, True, 10),
    "run_info_missing": (run_info_missing, True, 10),
    "run_info_schema_v1": (run_info_schema_v1, True, 10),
    "run_info_without_request": (run_info_without_request, True, 10),
    "metrics_json_not_json": (metrics_json_not_json, False, 10),
}


# What the JSON parsers' tests splice into real files: JSON's own characters, what
# json.loads accepts and msgspec does not (NaN, a lone surrogate), bytes that are not
# UTF-8, control characters and an integer one digit longer than json.loads converts.
ALPHABET = [
    b'"', b"\\", b"{", b"}", b"[", b"]", b",", b":", b" ", b"0", b"7", b"-", b".", b"e", b"+",
    b"null", b"true", b"NaN", b"\\u", b"\\ud800", b"\xff", b"\xc3\xa9", b"\xed\xa0\x80",
    b"\x01", b"\t", b"\n", b"a", b"7" * 4301, b"\x00",
]  # fmt: skip


def mutated(
    bases: list[bytes], seed: int, count: int, alphabet: list[bytes] = ALPHABET
) -> Iterator[bytes]:
    """``count`` seeded random edits of the files ``bases``: one to three insertions,
    deletions or overwrites of pieces of ``alphabet`` each."""
    rnd = random.Random(seed)
    for _ in range(count):
        data = bytearray(rnd.choice(bases))
        for _ in range(rnd.randint(1, 3)):
            at, fragment = rnd.randrange(len(data)), rnd.choice(alphabet)
            roll = rnd.random()
            if roll < 0.4:
                data[at:at] = fragment
            elif roll < 0.7:
                del data[at : at + rnd.randint(1, 4)]
            else:
                data[at : at + len(fragment)] = fragment
        yield bytes(data)
