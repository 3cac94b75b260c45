"""Files the user hands the inspector (--contract, --hierarchy): read, checked, and every
problem one line naming the file and where in it."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from inspector.engine.errors import ContractError
from inspector.results.layout import RUN_FILE_MAX_BYTES
from inspector.user_files import UserFileError, contract_from_data, read_contract, read_hierarchy

DUMP: dict[str, Any] = {
    "metrics": {
        "correct": {"kind": "binary_success", "reducers": ["avg", "pass"], "primary": True,
                    "role": "success", "display": {"label": "Correct", "description": None,
                                                   "unit": None, "precision": None}},
        "reward": {"kind": "scalar", "reducers": ["avg"], "primary": False, "role": "component",
                   "display": {"label": "Reward", "description": None, "unit": "pt",
                               "precision": 2}},
    }
}  # fmt: skip


def _file(tmp_path: Path, data: object, name: str = "file.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), "utf-8")
    return str(path)


def test_an_agentcompass_dump_is_read_as_declared(tmp_path: Path) -> None:
    contract = read_contract(_file(tmp_path, DUMP))
    assert list(contract.metrics) == ["correct", "reward"]
    assert contract.primary_id == "correct"
    reward = contract.metrics["reward"]
    assert (reward.kind, reward.reducers, reward.role) == ("scalar", ("avg",), "component")
    assert reward.display is not None and (reward.display.unit, reward.display.precision) == (
        "pt",
        2,
    )
    assert contract.source.startswith("--contract ")


def test_make_metric_contract_arguments_are_read_too(tmp_path: Path) -> None:
    data = {"primary": "score", "scalar": ["score"], "binary": ["passed"],
            "display": {"score": {"label": "Score", "precision": 3}}}  # fmt: skip
    contract = read_contract(_file(tmp_path, data))
    assert list(contract.metrics) == ["score", "passed"]
    assert contract.metrics["score"].display is not None
    assert contract.metrics["score"].display.label == "Score"
    assert contract.metrics["score"].display.precision == 3


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["metrics"]["reward"].update(colour="red"), "metrics.reward.colour: unknown key"),
        (lambda d: d.update(extra=1), "extra: unknown key"),
        (lambda d: d["metrics"]["correct"].update(primary=1), "metrics.correct.primary: Input"),
        (lambda d: d["metrics"]["reward"]["display"].update(precision=True), "precision: Input"),
        (lambda d: d["metrics"]["reward"].pop("kind"), "metrics.reward.kind: missing key"),
        (lambda d: d["metrics"]["reward"].update(primary=True), "exactly one primary"),
        (lambda d: d["metrics"]["reward"].update(kind="ratio"), "unknown kind 'ratio'"),
        (lambda d: d["metrics"]["correct"]["display"].update(label=""), "label"),
    ],
)
def test_a_bad_dump_says_where(edit: Callable[[dict[str, Any]], object], message: str) -> None:
    data = copy.deepcopy(DUMP)
    edit(data)
    with pytest.raises(ContractError, match=message):
        contract_from_data(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"binary": ["x"]}, "contract file: primary: missing key"),
        ({"primary": "c", "binary": "c"}, "contract file: binary: Input should be a valid list"),
        ({"primary": "c", "binary": ["c"], "colour": 1}, "contract file: colour: unknown key"),
        ({"primary": "c", "binary": ["c"], "display": {"c": {"unit": 3}}}, "display.c.unit"),
        ({"primary": "c", "binary": ["d"]}, "the primary 'c' must be declared"),
        ([1, 2], "must hold a JSON object"),
    ],
)
def test_a_bad_contract_file_says_where(data: object, message: str) -> None:
    with pytest.raises(ContractError, match=message):
        contract_from_data(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "cannot read the contract file"),
        (json.dumps({"metrics": {"correct": {"kind": "binary_success"}}}), "invalid contract"),
    ],
)
def test_an_unusable_contract_file_is_one_line_naming_it(
    tmp_path: Path, text: str, message: str
) -> None:
    path = _file(tmp_path, text)
    with pytest.raises(UserFileError) as caught:
        read_contract(path)
    line = str(caught.value)
    assert line.startswith(f"{path}: ") and message in line and "\n" not in line


def test_a_missing_contract_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(UserFileError, match="No such file"):
        read_contract(str(tmp_path / "absent.json"))


def test_a_hierarchy_file_is_checked_as_agentcompass_checks_it(tmp_path: Path) -> None:
    good = {"overall": {"aggregation": "weighted", "children": {"a": {"weight": 1}, "b": {"weight": 2}}}}
    path = _file(tmp_path, good)
    assert read_hierarchy(path) == good
    for data, message in (
        ([good], "must hold a JSON object"),
        ({"top": {}}, "invalid hierarchy: category_hierarchy must contain exactly one 'overall'"),
    ):
        bad = _file(tmp_path, data, "bad.json")
        with pytest.raises(UserFileError) as caught:
            read_hierarchy(bad)
        assert str(caught.value).startswith(f"{bad}: ") and message in str(caught.value)


def _fifo(tmp_path: Path) -> str:
    path = tmp_path / "fifo.json"
    os.mkfifo(path)
    return str(path)


def _deep(tmp_path: Path) -> str:
    """A hierarchy 800 levels deep (1,601 levels of JSON): too deep for any JSON reader."""
    text = '{"aggregation": "leaf"}'
    for i in range(800):
        text = f'{{"aggregation": "unweighted", "children": {{"c{i}": {text}}}}}'
    return _file(tmp_path, f'{{"overall": {text}}}')


def _large(tmp_path: Path) -> str:
    path = tmp_path / "large.json"
    with path.open("wb") as handle:  # sparse: nothing written but its size
        handle.truncate(RUN_FILE_MAX_BYTES + 1)
    return str(path)


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda tmp: "/dev/zero", "zero is a character device, not a file"),
        (_fifo, "fifo.json is a FIFO, not a file"),
        (lambda tmp: str(tmp), "is a directory, not a file"),
        (_deep, "nested too deeply"),
        (_large, "larger than 256 MiB"),
    ],
    ids=["device", "fifo", "folder", "deep", "large"],
)
@pytest.mark.parametrize("option", ["--hierarchy", "--contract"])
def test_user_files_follow_the_run_files_rules(
    make: Callable[[Path], str],
    said: str,
    option: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 39: --hierarchy /dev/zero grew to gigabytes, a FIFO hung, a deep file gave a
    RecursionError naming the run: now one line naming the file, as for a run's files."""
    from inspector.cli.main import main
    from tests.conftest import FIXTURE_RUNS

    path = make(tmp_path)
    assert main(["report", str(FIXTURE_RUNS / "k1_micro"), option, path]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"inspector: {path}: ") and said in err, err
