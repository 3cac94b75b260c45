"""`inspector diff`: where B − A came from, in parts that sum to it (``decomposition``)."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.engine.decomposition import Decomposition, Part
from inspector.views.decomposition import decomposition_json, decomposition_sentence
from tests.conftest import conformance_run


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, _ = capsys.readouterr()
    return code, out


def _rows(capsys: pytest.CaptureFixture[str], run: Path, series: str) -> list[dict]:
    """Every task's row from `inspector tasks` (another command)."""
    _, out = _run(capsys, "tasks", str(run), "--series", series, "--format", "jsonl")
    return [json.loads(line) for line in out.splitlines()]


def test_what_if_k1_of_a_category_mean_run_splits_into_values_up_and_down(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Only values move (no state, no task, no category changes): category_mean is then
    linear in the task values, so each part must be Σ (B − A) / (tasks in the category ·
    categories) over its tasks — computed here from `inspector tasks` of each plan."""
    run = conformance_run("e2e_k3_avg_category_mean")
    code, out = _run(capsys, "diff", str(run), "--what-if", "k=1", "--format", "json")
    assert code == 1
    series = next(s for s in json.loads(out)["series"] if s["label"].startswith("correct.avg@3"))
    d = series["decomposition"]
    assert d["method"] == "Shapley over groups"
    a = {r["task_id"]: r for r in _rows(capsys, run, "correct.avg@3")}
    assert d["a"] == series["a"]["value"] and d["b"] == series["b"]["value"]
    changes = {c["task_id"]: c for c in series["changes"]}
    sizes = Counter(r["category"] for r in a.values())
    expected: dict[str, float] = {"up": 0.0, "down": 0.0}
    ids: dict[str, set[str]] = {"up": set(), "down": set()}
    for tid, c in changes.items():
        step = c["b"]["value"] - c["a"]["value"]
        group = "up" if step > 0 else "down"
        expected[group] += step / (sizes[a[tid]["category"]] * len(sizes))
        ids[group].add(tid)
    parts = {p["group"]: p for p in d["parts"]}
    assert set(parts) == {"up", "down"}
    for group in ("up", "down"):
        assert parts[group]["value"] == pytest.approx(expected[group], abs=1e-12)
        assert set(parts[group]["task_ids"]) == ids[group]
        assert parts[group]["tasks"] == len(ids[group])
    assert parts["up"]["name"] == "values up"  # A averages three attempts: not flips
    assert abs(math.fsum(p["value"] for p in d["parts"]) - (d["b"] - d["a"])) <= 1e-12
    _, text = _run(capsys, "diff", str(run), "--what-if", "k=1")
    assert "where B − A = −0.02778 came from (Shapley over groups; the parts sum to it):" in text
    assert "from 2 tasks with values up" in text and "from 4 tasks with values down" in text


def test_state_changes_say_which_way_the_tasks_went(capsys: pytest.CaptureFixture[str]) -> None:
    """passed.avg@3 → k=1 of syn_k3_avg_score_category_mean: 2 tasks error→evaluated and 3
    error→unavailable (`diff`'s own task table): the part says 2 became evaluated, not 5."""
    run = conformance_run("syn_k3_avg_score_category_mean")
    _, text = _run(capsys, "diff", str(run), "--what-if", "k=1")
    assert "passed.avg@3 ↔ passed.native@1: 7 tasks moved: 1 value down, 1 value up, " \
        "2 error→evaluated, 3 error→unavailable" in text  # fmt: skip
    assert "from 5 tasks whose state changed (2 now evaluated)" in text
    assert "from 5 tasks now evaluated" not in text


def test_two_runs_with_different_tasks_name_the_tasks_on_one_side(
    capsys: pytest.CaptureFixture[str],
) -> None:
    a, b = conformance_run("syn_k1_binary_aux_micro"), conformance_run("syn_k1_hierarchy")
    _, out = _run(capsys, "diff", str(a), str(b), "--format", "json")
    data = json.loads(out)
    assert data["only_a"] and data["only_b"]
    series = next(s for s in data["series"] if s["label"] == "correct.native@1")
    d = series["decomposition"]
    parts = {p["group"]: p for p in d["parts"]}
    assert parts["only_a"]["task_ids"] == data["only_a"]
    assert parts["only_b"]["task_ids"] == data["only_b"]
    assert parts["only_a"]["name"] == "tasks only in A"
    # micro in A, a hierarchy in B: the aggregation moved
    assert parts["weights"]["nodes"] == ["(aggregation)"]
    total = series["b"]["value"] - series["a"]["value"]
    assert abs(math.fsum(p["value"] for p in d["parts"]) - total) <= 1e-12
    # a series only one side has, or without a value, has none
    assert all(
        s["decomposition"] is None for s in data["series"] if s["a"] is None or s["b"] is None
    )


def test_task_ids_are_capped_with_a_count_and_the_sentence_leads_with_the_largest() -> None:
    ids = tuple(f"t{i}" for i in range(60))
    d = Decomposition(0.5, 0.459, (
        Part("down", -0.015, ids[:3]), Part("state", -0.030, ids[3:7]),
        Part("up", 0.004, ids[7:8]), Part("only_b", -0.0, ()), Part("only_a", -0.0, ids),
    ), binary=True)  # fmt: skip
    data = decomposition_json(d)
    assert data is not None
    only_a = next(p for p in data["parts"] if p["group"] == "only_a")
    assert (only_a["tasks"], len(only_a["task_ids"]), only_a["task_ids_left_off"]) == (60, 50, 10)
    assert decomposition_sentence(d) == (
        "−0.041: −0.03 from 4 tasks whose state changed, −0.015 from 3 flips down, "
        "+0.004 from 1 flip up (Shapley over groups)"
    )
