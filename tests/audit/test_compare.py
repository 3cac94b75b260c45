"""Plan vs plan and run vs run: equal reports, exactly the built-in flips, honest notes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.answers.run import load_session
from inspector.engine.report import dumps_metrics_json
from inspector.engine.whatif import derived
from inspector.resolve import Overrides
from inspector.views.compare import compare, compare_plans, pair_series
from inspector.views.compare_warnings import run_facts

from .helpers import (
    CONFORMANCE,
    FIXTURE_RUNS,
    RUNS,
    drop_task,
    dump,
    edit_attempt,
    first_attempt_copy,
    load,
    run_cli,
    session,
)

K3_AVG = CONFORMANCE / "e2e_k3_avg_category_mean"
K3_AVG_SCORE = CONFORMANCE / "syn_k3_avg_score_category_mean"


def _unlabelled(report: str) -> str:
    """A derived plan's metrics.json without its label (``extra.inspector_derived_plan``)."""
    data = json.loads(report)
    assert data["extra"].pop("inspector_derived_plan")["plan"] == "k=1"
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def test_k1_of_a_k3_avg_run_equals_the_genuine_first_attempt_run(tmp_path: Path) -> None:
    genuine = first_attempt_copy(K3_AVG, tmp_path / "k1")
    code_a, derived_report, _ = run_cli("report", str(K3_AVG), "--k", "1")
    code_b, genuine_report, _ = run_cli("report", str(genuine))
    assert code_a == code_b == 0
    assert json.loads(genuine_report)["k"] == 1
    assert _unlabelled(derived_report) == genuine_report
    # every task reduction of every series, too (task order differs: folders moved state)
    _, derived_tasks, _ = run_cli(
        "tasks", str(K3_AVG), "--k", "1", "--series", "all", "--format", "jsonl"
    )
    _, genuine_tasks, _ = run_cli("tasks", str(genuine), "--series", "all", "--format", "jsonl")
    assert sorted(derived_tasks.splitlines()) == sorted(genuine_tasks.splitlines())
    assert len(derived_tasks.splitlines()) == 10


def test_k1_of_a_scalar_k3_run_with_missing_attempts(tmp_path: Path) -> None:
    """Missing attempts and a retry-only attempt folder; the contract is the run's own."""
    rec = session(K3_AVG_SCORE).recomputation
    genuine_dir = first_attempt_copy(K3_AVG_SCORE, tmp_path / "k1")
    genuine = load_session(str(genuine_dir), Overrides(contract=rec.plan.contract)).recomputation
    what_if, derivation = derived(rec, k=1)
    assert derivation.equivalent and what_if.plan.derived == derivation.description
    assert dumps_metrics_json(what_if.report) == dumps_metrics_json(genuine.report)
    assert compare(what_if, genuine).equal


def test_fixture_k3_avg_as_k1_equals_its_first_attempt_run() -> None:
    code_a, derived_report, _ = run_cli(
        "report", str(FIXTURE_RUNS / "k3_avg_hierarchy"), "--k", "1"
    )
    code_b, genuine_report, _ = run_cli("report", str(FIXTURE_RUNS / "k3_avg_first_attempt"))
    assert code_a == code_b == 0
    assert _unlabelled(derived_report) == genuine_report


def test_plans_side_by_side() -> None:
    rec = session(K3_AVG).recomputation
    c = compare_plans(rec, k=1)
    assert (c.label_a, c.label_b, c.kind) == ("avg@3", "k=1 (derived)", "plans")
    assert [p.label for p in c.series] == ["correct.avg@3 ↔ correct.native@1", "correct.pass@3"]
    assert c.warnings == ()
    assert "B is a derived plan: k=1 on attempt 1 of an avg@3 run" in c.notes
    # every aligned task: the avg@3 value against attempt 1's value
    changes = {ch.task_id: (ch.value_a, ch.value_b) for ch in c.changes()}
    for tid, (avg, first) in changes.items():
        assert avg != first and first in (0.0, 1.0), tid
    assert not c.equal


def test_pass_run_derived_as_avg_is_not_equivalent() -> None:
    rec = session(CONFORMANCE / "syn_k3_pass_early_stop").recomputation
    c = compare_plans(rec, k=3, strategy="avg")
    assert "B is not equivalent to having run that plan" in c.notes
    assert "B is a derived plan: avg@3 on attempts 1..3 of a pass@3 run" in c.notes  # "a", not "an"
    assert any("never run" in note for note in c.notes)
    # the early-stopped successes keep their pass@3 value but now count as error (missing)
    gained = {
        ch.task_id for ch in c.changes(c.pair("correct.pass@3")) if ch.kind == "has_error gained"
    }
    assert gained and all(
        ch.value_a == ch.value_b == 1.0
        for ch in c.tasks(c.pair("correct.pass@3"))
        if ch.task_id in gained
    )


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_diff_of_a_run_with_itself(run: Path) -> None:
    code, out, err = run_cli("diff", str(run), str(run))
    assert code == 0, err
    assert out.rstrip().endswith("result: equal")
    code, out, _ = run_cli("diff", str(run), str(run), "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["equal"] is True
    assert all(s["changes"] == [] for s in data["series"])
    assert data["only_a"] == data["only_b"] == data["report_differences"] == []


def _built_b(tmp_path: Path) -> Path:
    """e2e_k1_micro with four known edits (A is the conformance run itself)."""
    b = tmp_path / "b"
    shutil.copytree(CONFORMANCE / "e2e_k1_micro", b)

    def set_correct(value: bool):
        return lambda payload: payload["metrics"].__setitem__("correct", value)

    edit_attempt(b, "math_v1_1", 1, set_correct(True))  # 0 → 1
    edit_attempt(b, "code_v1_4", 1, set_correct(False))  # 1 → 0
    edit_attempt(
        b, "math_v1_2", 1, lambda p: p["metrics"].pop("correct")
    )  # evaluated → unavailable
    drop_task(b, "_v1_9")  # only in A
    return b


def test_diff_of_two_runs_finds_exactly_the_built_flips(tmp_path: Path) -> None:
    a = CONFORMANCE / "e2e_k1_micro"
    b = _built_b(tmp_path)
    code, out, err = run_cli("diff", str(a), str(b), "--format", "json")
    assert code == 1, err
    data = json.loads(out)
    assert data["equal"] is False
    assert data["only_a"] == ["_v1_9"] and data["only_b"] == []
    [series] = data["series"]
    changes = {c["task_id"]: c["kind"] for c in series["changes"]}
    assert changes == {
        "math_v1_1": "flip 0→1",
        "code_v1_4": "flip 1→0",
        "math_v1_2": "evaluated→unavailable",
    }
    assert series["moved"] == {"flip 0→1": 1, "flip 1→0": 1, "evaluated→unavailable": 1}
    # 8 tasks evaluated on both sides with 0/1 values; one discordant pair each way
    assert (series["mcnemar"]["n"], series["mcnemar"]["b"], series["mcnemar"]["c"]) == (8, 1, 1)
    assert series["mcnemar"]["p_value"] == 1.0  # 2 · (C(2,0) + C(2,1)) / 4, capped
    # the resampling unit is every task id of either side; 8 are evaluated on both
    assert series["paired"]["n"] == series["bootstrap"]["n"] == 10
    assert series["paired"]["evaluated_on_both"] == 8
    assert data["warnings"] == [
        "different task sets: 1 task only in A, 0 only in B, 9 in both — "
        "the values are over different tasks"
    ]
    code, table, _ = run_cli("diff", str(a), str(b))
    assert code == 1
    assert "3 tasks moved: 1 flip 1→0, 1 flip 0→1, 1 evaluated→unavailable" in table
    assert "1 task only in A: _v1_9" in table
    code, markdown, _ = run_cli("diff", str(a), str(b), "--format", "markdown")
    assert code == 1 and "| math_v1_1 | flip 0→1 |" in markdown


def test_diff_warns_when_model_or_benchmark_params_differ(tmp_path: Path) -> None:
    a = CONFORMANCE / "e2e_k1_micro"
    b = tmp_path / "b"
    shutil.copytree(a, b)
    info = load(b / "run_info.json")
    info["request"]["model"]["id"] = "other-model"
    info["request"]["benchmark"]["params"]["version"] = "v9"
    dump(b / "run_info.json", info)
    code, out, _ = run_cli("diff", str(a), str(b), "--format", "json")
    data = json.loads(out)
    assert "compared: model differs: stub-model vs other-model" in data["notes"]
    assert data["warnings"] == ["different benchmark params: version is “v1” in A, “v9” in B"]
    # the warnings do not make the runs differ: the reports and tasks are equal
    assert code == 0 and data["equal"] is True


def test_diff_of_an_unusable_run(tmp_path: Path) -> None:
    code, _, err = run_cli("diff", str(CONFORMANCE / "e2e_k1_micro"), str(tmp_path / "nothing"))
    assert code == 2 and "nothing" in err


def test_series_pairing_prefers_ids_then_reducers() -> None:
    a = session(K3_AVG).recomputation.report.series
    b = session(CONFORMANCE / "e2e_k1_micro").recomputation.report.series
    pairs = pair_series(a, b)
    assert [(p.a and p.a.series_id, p.b and p.b.series_id) for p in pairs] == [
        ("correct.avg@3", "correct.native@1"),
        ("correct.pass@3", None),
    ]


def test_fixture_runs_differ_in_exactly_the_designed_tasks() -> None:
    expected = load(FIXTURE_RUNS / "compare_expected.json")
    a, b = FIXTURE_RUNS / expected["a"], FIXTURE_RUNS / expected["b"]
    code, out, _ = run_cli("diff", str(a), str(b), "--format", "json")
    assert code == 1
    data = json.loads(out)
    [series] = [s for s in data["series"] if s["label"] == expected["series"]]
    kinds: dict[str, list[str]] = {}
    for change in series["changes"]:
        kinds.setdefault(change["kind"], []).append(change["task_id"])
    flips = expected["flips"]
    assert sorted(kinds.pop("flip 0→1", [])) == sorted(flips["0_to_1"])
    assert sorted(kinds.pop("flip 1→0", [])) == sorted(flips["1_to_0"])
    assert sorted(kinds.pop("error→evaluated", [])) == sorted(flips["error_to_evaluated"])
    assert sorted(kinds.pop("evaluated→error", [])) == sorted(flips["evaluated_to_error"])
    assert kinds == {}  # nothing else changed in that series
    changed = {c["task_id"] for c in series["changes"]}
    assert not changed & set(expected["unchanged"])
    for change in series["changes"]:
        want = expected["tasks"][change["task_id"]]
        for side in ("a", "b"):
            assert change[side]["state"] == want[side]["state"]
            assert change[side]["value"] == want[side]["correct"]


def test_legacy_run_against_a_k1_run_warns_in_words_and_puts_tasks_on_their_side() -> None:
    """Issue 37: the 10 tasks of B were listed as "only in A" on the compare screen."""
    a = session(CONFORMANCE / "syn_legacy_v2_layout")
    b = session(CONFORMANCE / "syn_k1_binary_aux_micro")
    c = compare(a.recomputation, b.recomputation,
                facts=(run_facts(a.run), run_facts(b.run)))  # fmt: skip
    ids_a = {t.task_id for t in a.recomputation.tasks}
    ids_b = {t.task_id for t in b.recomputation.tasks}
    for pair in c.series:
        sides = {ch.task_id: ch.kind for ch in c.tasks(pair)}
        assert {t for t, k in sides.items() if k == "only in A"} == ids_a - ids_b
        assert {t for t, k in sides.items() if k == "only in B"} == ids_b - ids_a
    assert c.warnings == (
        "different task sets: 4 tasks only in A, 10 only in B, 0 in both — the values are "
        "over different tasks",
        "written by different AgentCompass versions: run_info schema "
        "agentcompass.run_info.v2 in A, agentcompass.run_info.v3 in B",
    )
    plans = compare_plans(session(K3_AVG).recomputation, k=1)
    for text in (*c.warnings, *c.notes, *plans.notes, *plans.config_differences):
        assert "[" not in text and "..." not in text, text  # no Python list, nothing cut
