"""`inspector items ROOT` on a root with planted defects (issue 41): exactly the planted
flags, counts that add up, and every number from the engine's per-run reductions."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from inspector.answers.items import root_items
from inspector.cli.main import main
from inspector.engine.model import Attempt, Issue, TaskRecord
from inspector.engine.reduction import Coverage, TaskReduction
from inspector.overrides import Overrides
from inspector.views.items import FLAGS, RunTasks, item_rows, task_outcome
from tests.items.planted import generator, make

KEYS = ["benchmark", "task_id", "runs", "models", "attempts", "solved", "failed", "errored",
        "unavailable", "mean", "flags"]  # fmt: skip


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make(tmp_path_factory.mktemp("planted") / "root")


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, object]]:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_finds_exactly_the_planted_flags(planted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = run_json(capsys, "items", str(planted), "--format", "json")
    flagged = {r["task_id"]: [f["flag"] for f in r["flags"]] for r in rows if r["flags"]}  # type: ignore[attr-defined]
    assert flagged == {task: [flag] for task, flag in generator().PLANTED.items()}
    assert all(list(r) == KEYS for r in rows)
    for row in rows:
        for flag in row["flags"]:  # type: ignore[attr-defined]
            assert flag["flag"] in FLAGS and flag["reason"] and "\n" not in flag["reason"]


def test_counts_add_up(planted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = generator()
    rows = run_json(capsys, "items", str(planted), "--format", "json")
    assert {r["task_id"] for r in rows} == set(module.TASKS)
    for row in rows:
        parts = sum(row[k] for k in ("solved", "failed", "errored", "unavailable"))  # type: ignore[misc]
        assert parts == row["attempts"] == len(module.MODELS) * 2 * module.K
        assert (row["runs"], row["models"]) == (6, 3)
    by_id = {r["task_id"]: r for r in rows}
    assert (by_id["flip"]["solved"], by_id["flip"]["failed"]) == (10, 2)
    assert by_id["always_error"]["errored"] == 12 and by_id["always_error"]["mean"] is None
    assert by_id["ok_03"]["errored"] == 1  # the new error class: one attempt of one run


def test_mean_is_the_engines_headline_value_over_the_runs(
    planted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each row from the per-run ledgers: `inspector tasks RUN --series all --format jsonl`."""
    values: dict[str, list[float]] = {}
    for run in sorted(planted.glob("*/run*")):
        assert main(["tasks", str(run), "--series", "correct.avg@2", "--format", "jsonl"]) == 0
        for line in capsys.readouterr().out.splitlines():
            record = json.loads(line)
            if record["state"] == "evaluated":
                values.setdefault(record["task_id"], []).append(record["value"])
    rows = run_json(capsys, "items", str(planted), "--format", "json")
    for row in rows:
        seen = values.get(row["task_id"], [])  # type: ignore[arg-type]
        assert row["mean"] == (pytest.approx(sum(seen) / len(seen)) if seen else None)


def test_never_solved_needs_the_configured_number_of_models(planted: Path) -> None:
    runs, skipped = root_items(str(planted), Overrides())
    assert not skipped
    four = {r.task_id: r for r in item_rows(runs, min_models=4)}
    assert not four["broken"].flags
    two_models = [r for r in runs if not r.model.endswith("c")]
    assert not {r.task_id: r for r in item_rows(two_models)}["broken"].flags


def test_one_model_only_and_benchmark_filter(planted: Path) -> None:
    runs, _ = root_items(str(planted), Overrides())
    assert item_rows(runs, benchmark="no-such") == []
    assert len(item_rows(runs, benchmark="hle")) == len(generator().TASKS)

    # The flip task seen only in model-a's solving run and in b's and c's runs made to fail.
    def failing(run: RunTasks) -> RunTasks:
        tasks = tuple(replace(t, solved=0, failed=t.solved + t.failed) for t in run.tasks)
        return replace(run, tasks=tasks)

    chosen = [r for r in runs if r.run == "model-a/run1"]
    chosen += [failing(r) for r in runs if r.model != "model-a"]
    rows = {r.task_id: r for r in item_rows(chosen)}
    assert [f.flag for f in rows["ok_00"].flags] == ["one_model_only"]
    assert "model-a" in rows["ok_00"].flags[0].reason


def test_table_and_csv(planted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["items", str(planted)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "10 tasks, 4 flagged"
    assert "    never_solved: evaluated by 3 models" in out
    assert main(["items", str(planted), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ",".join(KEYS) + ",reasons"
    assert any(line.startswith("hle,broken,6,3,12,0,12,0,0,0.0,never_solved,") for line in lines)


@pytest.mark.parametrize("command", ["items", "errors"])
def test_a_missing_or_empty_root_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    assert main([command, str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope" in err
    assert main([command, str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no runs here" in err


def test_one_model_only_needs_two_models_with_scored_attempts(planted: Path) -> None:
    runs, _ = root_items(str(planted), Overrides())
    only_a = {r.task_id: r for r in item_rows([r for r in runs if r.model == "model-a"])}
    assert only_a["ok_00"].flags == ()


def test_each_attempt_ends_in_exactly_one_way() -> None:
    def attempt(index: int, metrics: dict[str, object], *issues: Issue) -> Attempt:
        return Attempt(index, "completed", metrics, issues)  # type: ignore[arg-type]

    error = Issue("error", "run", "x", "boom")
    task = TaskRecord("t", None, 6, "avg", {
        1: attempt(1, {"correct": True}),
        2: attempt(2, {"correct": False}),
        3: attempt(3, {}),  # recorded without the primary metric, no error: unavailable
        4: attempt(4, {"correct": True}, error),  # an error issue: errored, even with a value
        5: attempt(5, {"correct": False}, Issue("warning", "evaluate", "w", "note 3")),
    })  # fmt: skip
    reduction = TaskReduction("t", "correct.avg@6", None, "error", True, Coverage(6, 4, 4, 1),
                              missing_attempts=1, invalidated=False, early_stopped=False)  # fmt: skip
    outcome = task_outcome(task, reduction, "correct", binary=True)
    assert (outcome.solved, outcome.failed, outcome.errored, outcome.unavailable) == (1, 2, 1, 2)
    assert outcome.attempts == 6
    assert outcome.verifier == ("", "", "", "", "evaluate/w: note <n>")
    scalar = TaskRecord(
        "s", None, 2, "avg", {1: attempt(1, {"score": 0.0}), 2: attempt(2, {"score": 0.5})}
    )
    reduction = replace(reduction, missing_attempts=0)
    got = task_outcome(scalar, reduction, "score", binary=False)
    assert (got.solved, got.failed) == (1, 1)
