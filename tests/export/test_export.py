"""`inspector export`: EEE records valid against EEE's published schema, Parquet that reads
back to the `tasks --series all` rows, CSV / JSONL files equal to `tasks` output, and never a
byte inside a result directory.

The schemas in `eee_schema/` are EEE's own files (see its README for source and commit).
Expected values come from outside the exporter: the `metrics.json` AgentCompass wrote, the
attempt folders on disk, and the `inspector tasks` command's output.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import jsonschema
import pyarrow.parquet as pq
import pytest

from inspector.cli.main import main
from tests.conftest import FIXTURE_RUNS, conformance_runs

SCHEMAS = Path(__file__).parent / "eee_schema"
RUNS = sorted(path for path in FIXTURE_RUNS.iterdir() if path.is_dir())
# The sample runs and the runs AgentCompass itself wrote (fixtures/conformance, and any
# found only in ../shared/conformance).
ALL_RUNS = RUNS + conformance_runs()


def _validator(name: str) -> jsonschema.Draft7Validator:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())


AGGREGATE = _validator("eval.schema.json")
INSTANCE = _validator("instance_level_eval.schema.json")


def _export(run: Path, fmt: str, out: Path, capsys: pytest.CaptureFixture[str]) -> list[Path]:
    code = main(["export", str(run), "--format", fmt, "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return [Path(line) for line in captured.out.splitlines()]


def _parquet(paths: list[Path]) -> tuple[Path, Path]:
    """The tasks and attempts files among the six a Parquet export writes."""
    by_table = {path.name.rsplit(".", 2)[1]: path for path in paths}
    assert sorted(by_table) == ["attempts", "issues", "pass_curves", "runs", "series", "tasks"]
    return by_table["tasks"], by_table["attempts"]


def _tasks_output(run: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["tasks", str(run), "--series", "all", "--format", fmt]) == 0
    return capsys.readouterr().out


def test_the_schemas_are_eee_0_3_0() -> None:
    for name in ("eval.schema.json", "instance_level_eval.schema.json"):
        schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
        assert schema["version"] == "0.3.0"
        assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"


def _attempt_numbers_on_disk(run: Path) -> dict[str, set[int]]:
    """task id -> attempt numbers with a terminal result.json that holds a status."""
    found: dict[str, set[int]] = {}
    # the state folders, and the legacy layout without them (syn_legacy_v2_layout)
    indexes = [*run.glob("details/*/*/task.json"), *run.glob("details/*/task.json")]
    for task_json in indexes:
        if task_json.parts[-3] == "running":
            continue
        task_id = json.loads(task_json.read_text(encoding="utf-8"))["task_id"]
        for result in task_json.parent.glob("attempt-*/result.json"):
            try:
                payload = json.loads(result.read_text(encoding="utf-8"))
            except ValueError:
                continue
            if isinstance(payload, dict) and "status" in payload:
                found.setdefault(task_id, set()).add(int(result.parent.name.split("-")[1]))
    return found


@pytest.mark.parametrize("run", ALL_RUNS, ids=[run.name for run in ALL_RUNS])
def test_eee_records_are_valid_and_carry_the_reports_values(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    aggregate_path, samples_path = _export(run, "eee", tmp_path, capsys)
    record = json.loads(aggregate_path.read_text(encoding="utf-8"))
    errors = [f"{list(e.path)}: {e.message}" for e in AGGREGATE.iter_errors(record)]
    assert not errors, errors[:5]
    # EEE's datastore layout: data/<benchmark>/<developer>/<model>/<uuid4>.json
    relative = aggregate_path.relative_to(tmp_path).as_posix()
    assert re.fullmatch(r"data/[^/]+/[^/]+/[^/]+/[0-9a-f-]{36}\.json", relative), relative

    stored = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    expected = {
        s["series_id"]: s["value"] if s["value"] is not None else s["reference_value"]
        for s in stored["series"]
        if s["value"] is not None or s["reference_value"] is not None
    }
    scores = {r["evaluation_result_id"]: r["score_details"]["score"]
              for r in record["evaluation_results"]}  # fmt: skip
    assert scores == expected
    for result in record["evaluation_results"]:
        counts = next(s["counts"] for s in stored["series"]
                      if s["series_id"] == result["evaluation_result_id"])  # fmt: skip
        uncertainty = result["score_details"]["uncertainty"]
        if "standard_error" in uncertainty:  # the task values the interval was computed from
            assert 2 <= uncertainty["num_samples"] <= counts["evaluated"]
        else:
            assert uncertainty["num_samples"] == counts["evaluated"]
        assert result["score_details"]["details"]["total"] == str(counts["total"])

    detail = record["detailed_evaluation_results"]
    data = samples_path.read_bytes()
    assert detail["file_path"] == samples_path.relative_to(tmp_path).as_posix()
    assert detail["checksum"] == hashlib.sha256(data).hexdigest()
    lines = [json.loads(line) for line in data.decode("utf-8").splitlines()]
    assert detail["total_rows"] == len(lines)
    epochs: dict[str, set[int]] = {}
    for line in lines:
        errors = [f"{list(e.path)}: {e.message}" for e in INSTANCE.iter_errors(line)]
        assert not errors, (line["sample_id"], errors[:5])
        assert line["evaluation_id"] == record["evaluation_id"]
        epochs.setdefault(line["sample_id"], set()).add(int(line["metadata"]["epoch"]))
    # Every published attempt is one line with its attempt number as the epoch; tasks that
    # AgentCompass skips (load_problems' chat_v3_8) have none.
    on_disk = _attempt_numbers_on_disk(run)
    for task_id, numbers in epochs.items():
        assert numbers <= on_disk[task_id], task_id
    assert sum(map(len, epochs.values())) == len(lines)
    assert len(epochs) <= stored["series"][0]["counts"]["total"]


def test_eee_instance_rows_follow_the_attempts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """k3_pass: early stops leave later attempts out; every attempt folder is one epoch."""
    run = FIXTURE_RUNS / "k3_pass"
    _, samples_path = _export(run, "eee", tmp_path, capsys)
    lines = [json.loads(line) for line in samples_path.read_text(encoding="utf-8").splitlines()]
    epochs: dict[str, set[int]] = {}
    for line in lines:
        epochs.setdefault(line["sample_id"], set()).add(int(line["metadata"]["epoch"]))
    assert epochs == _attempt_numbers_on_disk(run)
    assert any(len(numbers) == 1 for numbers in epochs.values())  # a success at attempt 1
    assert any(len(numbers) == 3 for numbers in epochs.values())


def test_eee_messages_come_from_the_trajectory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = FIXTURE_RUNS / "k3_avg_hierarchy"
    _, samples_path = _export(run, "eee", tmp_path, capsys)
    line = json.loads(samples_path.read_text(encoding="utf-8").splitlines()[0])
    task_dir = next(p.parent for p in run.glob("details/*/*/task.json")
                    if json.loads(p.read_text())["task_id"] == line["sample_id"])  # fmt: skip
    payload = json.loads((task_dir / f"attempt-{line['metadata']['epoch']}" / "result.json")
                         .read_text(encoding="utf-8"))  # fmt: skip
    steps = payload["trajectory"]["steps"]
    assistant = [m for m in line["messages"] if m["role"] == "assistant"]
    assert [m["content"] for m in assistant] == [s["assistant_content"]["content"] for s in steps]
    assert line["input"]["raw"] == steps[0]["user_content"]
    assert line["answer_attribution"][0]["extracted_value"] == payload["final_answer"]
    assert "api_key" not in samples_path.read_text(encoding="utf-8")


@pytest.mark.parametrize("run", ALL_RUNS, ids=[run.name for run in ALL_RUNS])
def test_parquet_reads_back_to_the_tasks_rows(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks_path, attempts_path = _parquet(_export(run, "parquet", tmp_path, capsys))
    expected = [json.loads(line) for line in _tasks_output(run, "jsonl", capsys).splitlines()]
    table = pq.read_table(tasks_path).to_pylist()
    assert len(table) == len(expected)
    for row, task in zip(table, expected, strict=True):
        assert (row["series_id"], row["task_id"], row["category"]) == (
            task["series_id"], task["task_id"], task["category"])  # fmt: skip
        assert (row["state"], row["has_error"], row["value"]) == (
            task["state"], task["has_error"], task["value"])  # fmt: skip
        coverage = task["coverage"]
        assert (row["requested"], row["observed"], row["valid"], row["error_attempts"]) == (
            coverage["requested"],
            coverage["observed"],
            coverage["valid"],
            coverage["error"],
        )
        assert row["reason_codes"] == [reason["code"] for reason in task["reasons"]]
    attempts = pq.read_table(attempts_path).to_pylist()
    on_disk = _attempt_numbers_on_disk(run)
    for row in attempts:
        assert row["attempt"] in on_disk[row["task_id"]]


@pytest.mark.parametrize("run", ALL_RUNS, ids=[run.name for run in ALL_RUNS])
def test_duckdb_reads_the_parquet(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import duckdb  # a test dependency (pyproject's [test] extra)

    tasks_path, attempts_path = _parquet(_export(run, "parquet", tmp_path, capsys))
    expected = [json.loads(line) for line in _tasks_output(run, "jsonl", capsys).splitlines()]
    got = duckdb.sql(
        f"select series_id, task_id, state, value from read_parquet('{tasks_path}')"
    ).fetchall()
    assert got == [(t["series_id"], t["task_id"], t["state"], t["value"]) for t in expected]
    ((count,),) = duckdb.sql(f"select count(*) from read_parquet('{attempts_path}')").fetchall()
    assert count == sum(map(len, _attempt_numbers_on_disk(run).values()))


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_csv_and_jsonl_files_are_the_tasks_output(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = FIXTURE_RUNS / "hostile"
    (path,) = _export(run, fmt, tmp_path, capsys)
    assert path.read_bytes().decode("utf-8") == _tasks_output(run, fmt, capsys)


def _tree(path: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("inside", ["", "details", "new/folder"])
def test_never_writes_into_a_result_directory(
    inside: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    run = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    before = _tree(run)
    code = main(["export", str(run), "--format", "eee", "--out", str(run / inside)])
    err = capsys.readouterr().err
    assert code == 2 and "never writes there" in err
    assert _tree(run) == before
    # a root: nothing under it either
    code = main(["export", str(tmp_path), "--format", "csv", "--out", str(tmp_path / "x")])
    assert code == 2 and not (tmp_path / "x").exists()


def test_a_root_exports_every_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    written = _export(FIXTURE_RUNS, "csv", tmp_path / "out", capsys)
    assert sorted(p.parent.name for p in written) == [run.name for run in RUNS]
    records = _export(FIXTURE_RUNS, "eee", tmp_path / "eee", capsys)
    assert len({p for p in records if p.suffix == ".json"}) == len(RUNS)
