"""Every output written as JSON is JSON: no ``NaN`` or ``Infinity`` (issue 48).

Task values near the largest float (1e308) have a variance, a standard error and interval
bounds past it. Those statistics are ``null`` with the reason "values too large to sum"
(in the JSON and in the text), numpy prints no warning, and the JSON of ``stats`` (a run, a
root) and of the EEE export parses with a parser that refuses ``NaN`` and ``Infinity``.
"""

from __future__ import annotations

import json
import math
import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest

from inspector.cli.main import main
from inspector.engine import strict_json
from tests.conftest import FIXTURE_RUNS

TOO_LARGE = "no interval: values too large to sum"


def _refuse(constant: str) -> Any:
    raise AssertionError(f"{constant} is not JSON")


def strict_loads(text: str) -> Any:
    return json.loads(text, parse_constant=_refuse)


def huge_run(tmp_path: Path) -> Path:
    """``k1_micro`` with every reward at 1e308 or 1.7e308 (finite floats; their sums are not)."""
    run = tmp_path / "root" / "huge"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    for i, path in enumerate(sorted(run.glob("details/*/*/attempt-*/result.json"))):
        payload = json.loads(path.read_text(encoding="utf-8"))
        payload["metrics"]["reward"] = 1e308 if i % 2 else 1.7e308
        path.write_text(json.dumps(payload), encoding="utf-8")
    return run


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """The command with numpy's RuntimeWarnings (overflow, invalid) as errors."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_stats_json_of_huge_values_is_json_with_null_and_a_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = huge_run(tmp_path)
    code, out, err = _cli(capsys, "stats", str(run), "--format", "json")
    assert (code, err) == (0, "")
    data = strict_loads(out)
    (reward,) = [s for s in data["series"] if s["series_id"].startswith("reward")]
    assert reward["method"] == TOO_LARGE  # the series: a mean of 13 task values
    assert reward["se"] is None and reward["ci_low"] is None and reward["ci_high"] is None
    assert math.isfinite(reward["value"])  # the engine's value itself is a float
    for scope in [reward, *reward["categories"].values()]:  # parsed: no NaN, no Infinity
        assert all(scope[key] is None or math.isfinite(scope[key]) for key in ("se", "ci_low"))


def test_stats_text_says_why_there_is_no_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = huge_run(tmp_path)
    code, out, err = _cli(capsys, "stats", str(run))
    assert (code, err) == (0, "")
    reward = out[out.index("reward") :]
    assert TOO_LARGE in reward
    assert not any(word in reward.split() for word in ("inf", "-inf", "nan", "[nan,", "[-inf,"))


def test_stats_of_a_root_is_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = huge_run(tmp_path)
    code, out, err = _cli(capsys, "stats", str(run.parent), "--format", "json")
    assert (code, err) == (0, "")
    assert TOO_LARGE in json.dumps(strict_loads(out))


def test_the_eee_export_of_huge_values_is_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = huge_run(tmp_path)
    out_dir = tmp_path / "eee"
    code, _, err = _cli(capsys, "export", str(run), "--format", "eee", "--out", str(out_dir))
    assert code == 0, err
    files = sorted(p for p in out_dir.rglob("*") if p.suffix in (".json", ".jsonl"))
    assert files
    records = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines() if path.suffix == ".jsonl" else [text]
        records += [strict_loads(line) for line in lines if line]
    uncertainty = [
        result["score_details"]["uncertainty"]
        for record in records
        for result in record.get("evaluation_results", [])
        if result["evaluation_result_id"] == "reward.native@1"
    ]
    assert uncertainty == [{"num_samples": 13}]  # no interval: the evaluated count alone


def test_whatever_reaches_the_writer_is_written_as_null() -> None:
    """The safety net under every JSON output: a non-finite float is ``null``, not ``NaN``."""
    value = {"a": [1.0, math.inf, (-math.inf, math.nan)], "b": {"c": math.nan}, "d": "NaN"}
    text = strict_json.dumps(value, sort_keys=True)
    assert strict_loads(text) == {"a": [1.0, None, [None, None]], "b": {"c": None}, "d": "NaN"}
    assert strict_json.dumps({"x": 0.5}, indent=2) == json.dumps({"x": 0.5}, indent=2)
