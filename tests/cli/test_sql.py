"""``inspector sql ROOT QUERY`` (issue 52 item 3): DuckDB over the recomputed tables of a root,
the same tables as the exported Parquet dataset (read back with Hive partitioning)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from inspector.api import open_root
from inspector.cli.main import main
from tests.conftest import CONFORMANCE, ROOT
from tests.items.planted import generator, make

EVERY_MODEL_FAILS = """
select task_id
from tasks
where series_id = 'correct.avg@2'
group by task_id
having count(distinct model) = (select count(distinct model) from runs)
   and max(coalesce(value, 0)) = 0
order by task_id
"""
"""A model fails a task when no run of it scores the task above 0 (an error scores nothing)."""
TABLES = ("runs", "series", "tasks", "attempts", "issues", "pass_curves")


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make(tmp_path_factory.mktemp("planted") / "root")


def _sql(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["sql", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_which_tasks_every_model_fails_on_the_planted_root(
    planted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _sql(capsys, str(planted), EVERY_MODEL_FAILS, "--format", "json")
    assert (code, err) == (0, "")
    # planted: `broken` fails every attempt, `always_error` errors on every attempt
    plant = generator().PLANTED
    expected = sorted(t for t, flag in plant.items() if flag in ("never_solved", "always_errors"))
    assert [row["task_id"] for row in json.loads(out)] == expected == ["always_error", "broken"]
    code, out, _ = _sql(capsys, str(planted), EVERY_MODEL_FAILS)
    assert out.splitlines() == ["task_id", "------------", "always_error", "broken"]


def test_the_views_are_the_recomputation_not_metrics_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "root" / "run"
    shutil.copytree(CONFORMANCE / "e2e_k1_micro", run)
    metrics = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    headline = next(s for s in metrics["series"] if s["role"] == "headline")
    recomputed = headline["value"]
    headline["value"] = 0.123456  # tampered: the views must not see it
    (run / "metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
    query = "select headline_value, value from runs join series using (path) " \
        "where scope = 'series' and role = 'headline'"  # fmt: skip
    code, out, _ = _sql(capsys, str(tmp_path / "root"), query, "--format", "json")
    assert code == 0
    assert json.loads(out) == [{"headline_value": recomputed, "value": recomputed}]


def test_csv_goes_through_the_shared_writer(
    planted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    query = "select '=HYPERLINK(\"x\")' as cell, -0.5 as number, null as nothing, [1, 2] as list"
    code, out, _ = _sql(capsys, str(planted), query, "--format", "csv")
    assert code == 0
    assert list(csv.reader(io.StringIO(out))) == [
        ["cell", "number", "nothing", "list"], ["'=HYPERLINK(\"x\")", "-0.5", "", "[1, 2]"]
    ]  # fmt: skip


def test_a_query_cannot_write_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "root"
    shutil.copytree(CONFORMANCE / "e2e_k1_micro", root / "run")
    target = root / "run" / "written.csv"
    code, out, err = _sql(capsys, str(root), f"copy tasks to '{target}'")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("inspector: sql: Permission Error")
    assert not target.exists()
    code, _, err = _sql(capsys, str(root), "select * from no_such_view")
    assert code == 2 and err.count("\n") == 1 and "no_such_view" in err


def test_a_run_that_cannot_be_recomputed_is_named_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "root"
    shutil.copytree(CONFORMANCE / "e2e_k1_micro", root / "good")
    shutil.copytree(CONFORMANCE / "e2e_k1_micro", root / "bad")
    (root / "bad" / "run_info.json").write_text("{", encoding="utf-8")
    code, out, err = _sql(capsys, str(root), "select path from runs", "--format", "csv")
    assert code == 2
    assert out == "path\ngood\n"
    (line,) = err.splitlines()
    assert line.startswith("inspector: bad/run_info.json: ")


def test_without_duckdb_one_line_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "duckdb", None)
    code, out, err = _sql(capsys, str(CONFORMANCE), "select 1")
    assert (code, out) == (2, "")
    assert err == "inspector: sql needs duckdb: pip install 'agentcompass-inspector[sql]'\n"


def test_in_a_github_actions_log_the_answer_is_inside_a_stop_commands_block(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    shutil.copytree(CONFORMANCE / "e2e_k1_micro", root / "run")
    query = "select '::error::planted' as line"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GITHUB_ACTIONS": "true"}
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "sql", str(root), query, "--format", "csv"],
        env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("::stop-commands::")
    token = lines[0].removeprefix("::stop-commands::")
    assert lines[1:] == ["line", "::error::planted", f"::{token}::"]


def _model(run: Path, model: str) -> None:
    info_path = run / "run_info.json"
    info = json.loads(info_path.read_text(encoding="utf-8"))
    info["request"]["model"]["id"] = model
    info_path.write_text(json.dumps(info), encoding="utf-8")
    (run / "metrics.json").unlink()  # AgentCompass's would name the old model


def test_the_parquet_dataset_read_back_with_hive_partitioning_is_the_sql_views(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``export ROOT --format parquet --dataset``: ``<table>/benchmark=…/model=…/``; DuckDB's
    hive_partitioning gives back every view's rows, a model id with ``/``, ``=`` and a
    space included."""
    root = tmp_path / "root"
    for run in sorted(CONFORMANCE.iterdir()):
        if run.is_dir():
            shutil.copytree(run, root / run.name)
    _model(root / "e2e_k1_micro", "org/model=1 x")
    out = tmp_path / "dataset"
    assert main(["export", str(root), "--format", "parquet", "--dataset", "--out", str(out)]) == 0
    written = [Path(line) for line in capsys.readouterr().out.splitlines()]
    opened = open_root(root)
    assert len(written) == len(TABLES) * len(opened.runs) and not opened.problems
    parts = {p.relative_to(out).parts[:3] for p in written}
    assert ("tasks", "benchmark=special_pattern_check", "model=org%2Fmodel%3D1%20x") in parts
    for table in TABLES:
        view = getattr(opened, table).to_arrow()
        back = duckdb.sql(
            f"select * from read_parquet('{out}/{table}/*/*/*.parquet', "
            "hive_partitioning = true, hive_types_autocast = false)"
        )
        assert sorted(back.columns) == sorted(view.column_names), table
        got = back.select(*(f'"{c}"' for c in view.column_names)).fetchall()
        expected = duckdb.sql("select * from view").fetchall()
        assert sorted(got, key=repr) == sorted(expected, key=repr), table
    models = duckdb.sql(
        f"select distinct model from read_parquet('{out}/runs/*/*/*.parquet', "
        "hive_partitioning = true, hive_types_autocast = false) order by model"
    ).fetchall()
    assert ("org/model=1 x",) in models


def test_the_single_run_layout_is_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = CONFORMANCE / "e2e_k1_micro"
    assert main(["export", str(run), "--format", "parquet", "--out", str(tmp_path)]) == 0
    names = sorted(Path(line).name for line in capsys.readouterr().out.splitlines())
    assert names == sorted(f"run1.{t}.parquet" for t in TABLES)
    assert main(["export", str(run), "--format", "csv", "--dataset", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_query_runs_unchanged_on_the_exported_dataset(
    planted: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/commands.md's recipe: the dataset's tables as views of ``read_parquet(…)`` with Hive
    partitioning answer the query ``inspector sql`` answers, with the same rows."""
    out = tmp_path / "dataset"
    argv = ["export", str(planted), "--format", "parquet", "--dataset", "--out", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    connection = duckdb.connect()
    for table in TABLES:
        connection.sql(
            f"create view {table} as select * from read_parquet('{out}/{table}/*/*/*.parquet', "
            "hive_partitioning = true, hive_types_autocast = false)"
        )
    from_files = connection.sql(EVERY_MODEL_FAILS).fetchall()
    code, text, _ = _sql(capsys, str(planted), EVERY_MODEL_FAILS, "--format", "json")
    assert code == 0
    assert from_files == [(row["task_id"],) for row in json.loads(text)]
    everything = "select * exclude (benchmark, model), benchmark, model from attempts order by all"
    code, text, _ = _sql(capsys, str(planted), everything, "--format", "json")
    on_disk = connection.sql(everything)
    assert [dict(zip(on_disk.columns, row, strict=True)) for row in on_disk.fetchall()] == (
        json.loads(text)
    )


def test_json_is_json_whatever_the_query_computes(
    planted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    query = "select 'nan'::double as a, 'inf'::double as b, 0.5 as c"
    code, out, _ = _sql(capsys, str(planted), query, "--format", "json")
    assert code == 0
    assert json.loads(out, parse_constant=lambda c: pytest.fail(c)) == [
        {"a": None, "b": None, "c": 0.5}
    ]


def test_json_numbers_are_numbers(planted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A DECIMAL (``0.5`` in SQL) is a JSON number; a date is its text."""
    query = "select 0.5 as c, avg(value) > 0 as d, date '2026-01-02' as e from tasks"
    code, out, _ = _sql(capsys, str(planted), query, "--format", "json")
    assert code == 0
    assert json.loads(out) == [{"c": 0.5, "d": True, "e": "2026-01-02"}]
