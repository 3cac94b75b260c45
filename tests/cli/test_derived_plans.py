"""Derived plans are labelled in every output; guessed contracts warn; `--contract` takes
AgentCompass's own MetricContract dump."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.engine.errors import ContractError
from inspector.engine.report import validate_report
from inspector.engine.serialize import report_from_json
from inspector.session import DERIVED_KEY
from inspector.user_files import contract_from_data
from tests.conftest import FIXTURE_RUNS

K3 = FIXTURE_RUNS / "k3_avg_hierarchy"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_derived_report_json_is_labelled_and_still_a_metric_report(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _run(capsys, "report", str(K3), "--k", "1")
    assert code == 0
    assert "derived plan: k=1 on attempt 1 of an avg@3 run" in err
    data = json.loads(out)
    label = data["extra"][DERIVED_KEY]
    assert label["derived"] == "k=1 on attempt 1 of an avg@3 run" and label["plan"] == "k=1"
    validate_report(report_from_json(data))  # every invariant of AgentCompass's models
    # apart from the label, the genuine k=1 run's metrics.json, byte for byte
    del data["extra"][DERIVED_KEY]
    text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    assert text == (FIXTURE_RUNS / "k3_avg_first_attempt" / "metrics.json").read_text("utf-8")


def test_derived_markdown_has_a_heading_and_the_run_plan_has_none(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, err = _run(capsys, "report", str(K3), "--k", "1", "--markdown")
    lines = out.splitlines()
    assert lines[0] == "# TERMINAL_BENCH_2 Evaluation Results"
    assert lines[2] == "## Derived plan: k=1 on attempt 1 of an avg@3 run"
    assert "derived plan" in err
    _, plain, err = _run(capsys, "report", str(K3), "--markdown")
    assert "Derived plan" not in plain and "derived plan" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ("tasks", "--k", "1"),
        ("stats", "--k", "1"),
        ("stats", "--k", "1", "--format", "markdown"),
        ("check", "--k", "1"),
        ("report", "--k", "2", "--strategy", "pass"),
    ],
)
def test_every_derived_output_notes_it_on_stderr(
    argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, err = _run(capsys, argv[0], str(K3), *argv[1:])
    assert "inspector: note: derived plan:" in err and f"extra.{DERIVED_KEY}" in err
    if "markdown" in argv:
        assert out.startswith("## derived plan: k=1 on attempt 1")


def _unknown_benchmark(tmp_path: Path, source: Path) -> Path:
    run = tmp_path / source.name
    shutil.copytree(source, run)
    info = json.loads((run / "run_info.json").read_text("utf-8"))
    info["request"]["benchmark"]["id"] = "not_shipped_bench"
    (run / "run_info.json").write_text(json.dumps(info, indent=2, sort_keys=True) + "\n", "utf-8")
    return run


def test_a_contract_guessed_from_observations_warns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _unknown_benchmark(tmp_path, FIXTURE_RUNS / "k1_micro")
    (run / "metrics.json").unlink()
    for argv in (("report",), ("stats",), ("report", "--markdown")):
        code, _, err = _run(capsys, argv[0], str(run), *argv[1:])
        assert code == 0
        assert "inspector: warning: contract:" in err and "guessed" in err, err
        assert "--contract" in err
    # a stored metrics.json of a k=1 run lists every metric: nothing is guessed
    quiet = _unknown_benchmark(tmp_path / "b", FIXTURE_RUNS / "k1_micro")
    assert "warning: contract" not in _run(capsys, "report", str(quiet))[2]


DUMP = {
    "metrics": {
        "correct": {"kind": "binary_success", "reducers": ["avg", "pass"], "primary": True,
                    "role": "success", "display": {"label": "Correct", "description": None,
                                                   "unit": None, "precision": None}},
        "reward": {"kind": "scalar", "reducers": ["avg"], "primary": False, "role": "component",
                   "display": {"label": "Reward", "description": None, "unit": None,
                               "precision": None}},
    }
}  # fmt: skip


def test_contract_accepts_agentcompass_metric_contract_dump(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "contract.json"
    file.write_text(json.dumps(DUMP), "utf-8")
    run = FIXTURE_RUNS / "k1_micro"
    code, out, err = _run(capsys, "report", str(run), "--contract", str(file))
    assert code == 0, err
    assert out == (run / "metrics.json").read_text("utf-8")
    contract = contract_from_data(DUMP)
    assert list(contract.metrics) == ["correct", "reward"]
    assert contract.metrics["reward"].reducers == ("avg",)
    assert contract.primary_id == "correct"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["metrics"]["reward"].update(primary=True), "exactly one primary"),
        (lambda d: d["metrics"]["reward"].update(reducers=["native"]), "native"),
        (lambda d: d["metrics"]["reward"].update(kind="ratio"), "unknown kind"),
        (lambda d: d["metrics"]["reward"].update(colour="red"), "metrics.reward.colour: unknown key"),
        (lambda d: d.update(extra=1), "extra: unknown key"),
        (lambda d: d["metrics"]["correct"]["display"].update(label=""), "label"),
    ],
)
def test_a_bad_dump_is_refused(edit, message: str) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(json.dumps(DUMP))
    edit(data)
    with pytest.raises(ContractError, match=message):
        contract_from_data(data)


def test_a_bad_contract_file_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "contract.json"
    file.write_text(json.dumps({"metrics": {"correct": {"kind": "binary_success"}}}), "utf-8")
    code, out, err = _run(capsys, "report", str(FIXTURE_RUNS / "k1_micro"), "--contract", str(file))
    assert code == 2 and out == "" and str(file) in err and len(err.strip().splitlines()) == 1


def test_a_what_if_that_lists_auxiliaries_warns_when_a_stored_pass_report_hid_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 39: a pass@3 run with no tasks (its contract rebuilt from metrics.json, which
    lists only correct.pass@3) declares format_ok too; ``--k 1`` lists every metric, so
    the missing one gets the "contract guessed" warning. Its own plan needs none."""
    from tests.conftest import conformance_run

    run = tmp_path / "run"
    shutil.copytree(conformance_run("syn_k3_pass_early_stop"), run)
    (run / "oracle_case.json").unlink()
    for folder in (run / "details").iterdir():
        shutil.rmtree(folder)
    code, out, err = _run(capsys, "report", str(run), "--k", "1")
    assert code == 0 and [s["series_id"] for s in json.loads(out)["series"]] == ["correct.native@1"]
    assert "warning: contract:" in err and "a metric no attempt observed is missing" in err
    code, _, err = _run(capsys, "report", str(run))
    assert code == 0 and "warning" not in err


def _without_attempt_1(tmp_path: Path, names: list[str]) -> Path:
    """``k3_avg_hierarchy`` with attempt 1 of the tasks in folders ``names`` gone (folder
    and index entry): published tasks with attempts 2 and 3 only."""
    run = tmp_path / "run"
    shutil.copytree(K3, run)
    for name in names:
        (folder,) = run.glob(f"details/*/{name}--*")
        shutil.rmtree(folder / "attempt-1")
        index = json.loads((folder / "task.json").read_text("utf-8"))
        del index["attempts"]["1"]
        (folder / "task.json").write_text(json.dumps(index, indent=2), "utf-8")
    return run


def test_k1_of_a_task_without_attempt_1_warns_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """At k=1 the task is kept as an error, where AgentCompass refuses such a run: the
    what-if says so, naming the tasks, and no longer claims to be equivalent."""
    run = _without_attempt_1(tmp_path, ["build-cython-ext", "chess-best-move"])
    code, out, err = _run(capsys, "report", str(run), "--k", "1", "--json")
    assert code == 0 and json.loads(out)["extra"][DERIVED_KEY]["plan"] == "k=1"
    (warning,) = [line for line in err.splitlines() if "no attempt 1" in line]
    assert warning.startswith(f"inspector: warning: {run}: 2 tasks have no attempt 1")
    assert "AgentCompass refuses" in warning
    assert "build-cython-ext" in warning and "chess-best-move" in warning
    assert "(NOT equivalent to having run it)" in err
    _, _, plain = _run(capsys, "report", str(run), "--k", "2", "--json")
    assert "no attempt" not in plain  # attempt 2 is in 1..2: nothing guessed
    _, _, own = _run(capsys, "report", str(K3), "--k", "1", "--json")
    assert "no attempt" not in own and "(equivalent to having run it)" in own
