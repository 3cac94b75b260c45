"""``inspector.api`` (issue 52 item 2): the recomputed report, tasks and attempts as objects
and DataFrames, equal to what the command line prints on every conformance run."""

from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import inspector.api as api
import inspector.cli.tasks as tasks_command
from inspector.api import InspectorError, open_root, open_run
from inspector.cli.main import main
from inspector.engine.errors import HierarchyError
from tests.conftest import conformance_runs

RUNS = conformance_runs()
IDS = [run.name for run in RUNS]


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def _same(a: Any, b: Any) -> bool:
    """Equal, NaN (a DataFrame's missing float) standing for None."""
    if isinstance(a, float) and math.isnan(a):
        a = None
    if isinstance(b, float) and math.isnan(b):
        b = None
    return bool(a == b)


@pytest.mark.parametrize("run", RUNS, ids=IDS)
def test_the_series_table_is_report_json(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every series, category and hierarchy node of ``report --json``: value, reference
    value and the five counts; the intervals are ``stats --format json``'s."""
    report = json.loads(_cli(capsys, "report", str(run), "--json"))
    stats = json.loads(_cli(capsys, "stats", str(run), "--format", "json"))
    opened = open_run(run)
    assert opened.report == report
    rows = {(r.series_id, r.scope, r.key): r for r in opened.series}
    expected = 0
    for series, stat in zip(report["series"], stats["series"], strict=True):
        sid = series["series_id"]
        scopes = [("series", None, series, stat)]
        scopes += [
            ("category", k, v, stat["categories"][k]) for k, v in series["categories"].items()
        ]
        scopes += [
            ("hierarchy", k, v, stat["hierarchy"][k]) for k, v in series["hierarchy"].items()
        ]
        for scope, key, part, interval in scopes:
            row = rows[(sid, scope, key)]
            expected += 1
            assert (row.value, row.reference_value) == (part["value"], part["reference_value"])
            counts = part["counts"]
            assert (row.total, row.evaluated, row.error, row.unavailable, row.invalidated) == (
                counts["total"], counts["evaluated"], counts["error"], counts["unavailable"],
                counts["invalidated"])  # fmt: skip
            assert (row.estimate, row.ci_low, row.ci_high, row.se, row.n) == (
                interval["estimate"], interval["ci_low"], interval["ci_high"], interval["se"],
                interval["n"])  # fmt: skip
            assert row.interval_method == interval["method"]
            if scope == "series":
                assert (row.kind, row.role, row.k) == (series["kind"], series["role"], series["k"])
    assert len(opened.series) == expected
    headline = next(s for s in report["series"] if s["role"] == "headline")
    assert opened.run.headline_series_id == headline["series_id"]
    assert opened.run.headline_value == headline["value"]
    assert opened.run.k == report["k"]


@pytest.mark.parametrize("run", RUNS, ids=IDS)
def test_tasks_frames_equal_the_ledger(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every value of ``tasks.to_frame()`` (pandas and polars) is the ledger's
    (``tasks --series all --format jsonl``), row for row."""
    ledger = [json.loads(line) for line in _cli(
        capsys, "tasks", str(run), "--series", "all", "--format", "jsonl").splitlines()]  # fmt: skip
    opened = open_run(run)
    pandas_rows = opened.tasks.to_frame().to_dict("records")
    polars_rows = opened.tasks.to_frame(kind="polars").to_dicts()
    assert len(pandas_rows) == len(polars_rows) == len(ledger) > 0
    for frame_rows in (pandas_rows, polars_rows):
        for row, task in zip(frame_rows, ledger, strict=True):
            coverage = task["coverage"]
            expected = {
                "series_id": task["series_id"], "task_id": task["task_id"],
                "category": task["category"], "state": task["state"],
                "has_error": task["has_error"], "value": task["value"],
                "requested": coverage["requested"], "observed": coverage["observed"],
                "valid": coverage["valid"], "error_attempts": coverage["error"],
                "missing_attempts": task["missing_attempts"],
                "invalidated": task["invalidated"], "early_stopped": task["early_stopped"],
                "reasons": "; ".join(reason["text"] for reason in task["reasons"]),
                "path": ".",
            }  # fmt: skip
            for column, value in expected.items():
                assert _same(row[column], value), (column, row[column], value)
            assert list(row["reason_codes"]) == [reason["code"] for reason in task["reasons"]]


@pytest.mark.parametrize("run", RUNS, ids=IDS)
def test_the_api_tables_are_the_parquet_export(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The tables, as objects, are the rows of the exported Parquet files (all six)."""
    paths = [Path(line) for line in _cli(
        capsys, "export", str(run), "--format", "parquet", "--out", str(tmp_path)).splitlines()]  # fmt: skip
    opened = open_run(run)
    assert len(paths) == 6
    for path in paths:
        name = path.name.rsplit(".", 2)[1]
        table = getattr(opened, name)
        assert table.to_arrow().to_pylist() == pq.read_table(path).to_pylist(), name
        assert len(table) == pq.read_metadata(path).num_rows


def test_attempts_and_issues_say_what_the_files_say(tmp_path: Path) -> None:
    """An attempt's issues in ``issues`` are its result.json's (severity, phase, code,
    message as written), and ``attempts`` has one row per terminal attempt."""
    run = next(r for r in RUNS if r.name == "e2e_k1_fatal_evaluation_failed")
    opened = open_run(run)
    on_disk = []
    for result in sorted(run.glob("details/*/*/attempt-*/result.json")):
        payload = json.loads(result.read_text(encoding="utf-8"))
        task = json.loads((result.parent.parent / "task.json").read_text(encoding="utf-8"))
        attempt = int(result.parent.name.split("-")[1])
        for issue in payload.get("issues") or ():
            on_disk.append((task["task_id"], attempt, issue["severity"], issue["phase"],
                            issue["code"], issue["message"]))  # fmt: skip
    got = [(i.task_id, i.attempt, i.severity, i.phase, i.code, i.message) for i in opened.issues]
    assert on_disk and sorted(got) == sorted(on_disk)


def test_open_root_opens_every_run_and_names_the_unusable_one(tmp_path: Path) -> None:
    root = tmp_path / "root"
    for run in RUNS[:3]:
        shutil.copytree(run, root / "good" / run.name)
    broken = root / "bad" / "cut"
    shutil.copytree(RUNS[0], broken)
    (broken / "run_info.json").write_text('{"run_id": ', encoding="utf-8")
    opened = open_root(root)
    assert [r.path for r in opened.runs] == [f"good/{run.name}" for run in RUNS[:3]]
    (problem,) = opened.problems
    assert problem.startswith("bad/cut/run_info.json: ") and "\n" not in problem
    assert len(opened.tasks) == sum(len(open_run(run).tasks) for run in RUNS[:3])
    assert {t.path for t in opened.tasks} == {r.path for r in opened.runs}
    assert opened.runs.to_frame()["path"].tolist() == [r.path for r in opened.runs]


def test_an_unusable_run_raises_the_command_lines_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    shutil.copytree(RUNS[0], run)
    (run / "run_info.json").write_text("[1, 2", encoding="utf-8")
    assert main(["report", str(run)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    with pytest.raises(InspectorError) as caught:
        open_run(run)
    assert f"inspector: {caught.value}" == line
    with pytest.raises(InspectorError, match="no runs here"):
        open_root(tmp_path / "run" / "details")
    with pytest.raises(InspectorError, match="no-such"):
        open_root(tmp_path / "no-such")


def test_to_frame_without_pandas_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    opened = open_run(RUNS[0])
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(InspectorError) as caught:
        opened.tasks.to_frame()
    assert str(caught.value) == (
        "to_frame needs pandas: pip install 'agentcompass-inspector[frames]'"
    )
    with pytest.raises(ValueError, match="kind"):
        opened.tasks.to_frame(kind="spark")  # type: ignore[arg-type]


def test_rows_are_frozen() -> None:
    row = open_run(RUNS[0]).tasks[0]
    with pytest.raises(AttributeError):
        row.value = 0.0  # type: ignore[misc]


@pytest.mark.parametrize("run", RUNS, ids=IDS)
def test_pass_curves_are_stats_json(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """pass@j and pass^j with their intervals: ``stats --format json``'s points."""
    stats = json.loads(_cli(capsys, "stats", str(run), "--format", "json"))
    expected = []
    for curve, key in (("pass@", "pass_at"), ("pass^", "pass_hat")):
        for metric_id, item in (stats[key] or {}).items():
            for point in item["points"]:
                expected.append((metric_id, curve, point["j"], item["k"], item["tasks"],
                                 point["estimate"], point["ci_low"], point["ci_high"],
                                 point["se"], point["n"], point["method"]))  # fmt: skip
    got = [(p.metric_id, p.curve, p.j, p.k, p.tasks, p.estimate, p.ci_low, p.ci_high, p.se,
            p.n, p.interval_method) for p in open_run(run).pass_curves]  # fmt: skip
    assert sorted(got, key=repr) == sorted(expected, key=repr)
    if run.name == "e2e_k3_avg_category_mean":
        assert len(got) == 6  # k = 3: pass@1..3 and pass^1..3 of `correct`


@pytest.mark.parametrize(
    ("raised", "line"),
    [
        (HierarchyError("node 'x' has no children"), "node 'x' has no children"),
        (ValueError("boom"), "ValueError: boom"),
    ],
)
def test_unforeseen_failures_are_one_line_as_the_command_line_says_them(
    raised: Exception,
    line: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """What the loader does not foresee is worded as the command line's last-resort handler
    words it (``inspector: PATH: …``), never a traceback."""
    run = str(RUNS[0])

    def fail(*_: object, **__: object) -> None:
        raise raised

    monkeypatch.setattr(api, "run_tables", fail)
    with pytest.raises(InspectorError) as caught:
        open_run(run)
    assert str(caught.value) == f"{run}: {line}"
    monkeypatch.setattr(tasks_command, "task_filter", fail)
    assert main(["tasks", run]) == 2
    assert capsys.readouterr().err == f"inspector: {caught.value}\n"


def test_a_url_is_opened_as_the_command_line_opens_it(tmp_path: Path) -> None:
    """A URL (here ``file://``) goes through the command line's mirror; the run keeps the
    URL as its path and its tables are the local copy's."""
    run = RUNS[0]
    url = run.resolve().as_uri()
    opened = open_run(url)
    assert opened.path == url
    assert opened.tasks.rows == open_run(run).tasks.rows
    with pytest.raises(InspectorError) as caught:
        open_run((tmp_path / "none").as_uri())
    assert "none" in str(caught.value) and "\n" not in str(caught.value)
