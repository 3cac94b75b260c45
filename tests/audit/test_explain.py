"""'Explain this number': formula, weights after re-normalisation, the task values that fed it.

Expected numbers are worked out by hand from the spec's rules (§7.1, §7.2) or read from
AgentCompass's own ``metrics.json``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.views.audit import Scope
from inspector.views.explain import explain

from .helpers import RUNS, SCORE, attempt, issue, load, rescore, scopes, session, task


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_every_value_recombines_from_its_inputs(run: Path) -> None:
    rec = session(run).recomputation
    stored = {s["series_id"]: s for s in load(run / "metrics.json")["series"]}
    for series in rec.report.series:
        for scope in scopes(series):
            e = explain(rec, series.series_id, scope)
            assert e.agrees, (series.series_id, scope, e.value, e.check)
            if scope == Scope():
                raw = stored[series.series_id]
                assert e.value == (
                    raw["value"] if raw["value"] is not None else raw["reference_value"]
                )


def _verified_example():
    """Spec §7.2's verified example: a(0.2, 0.4), b(1.0), c(0.5), d(error), zz(0.0)."""
    tasks = [
        task("a1", [attempt(1, {"score": 0.2})], "a"),
        task("a2", [attempt(1, {"score": 0.4})], "a"),
        task("b1", [attempt(1, {"score": 1.0})], "b"),
        task("c1", [attempt(1, {"score": 0.5})], "c"),
        task("d1", [attempt(1, {}, issue("error", "evaluate"))], "d"),
        task("z1", [attempt(1, {"score": 0.0})], "zz"),
    ]
    tree = {"overall": {"aggregation": "weighted", "children": {
        "g1": {"aggregation": "weighted_by_count", "weight": 2, "children": {"a": {}, "b": {}}},
        "g2": {"aggregation": "unweighted", "weight": 1, "children": {"c": {}, "d": {}}},
        "g3": {"aggregation": "unweighted", "weight": 5, "children": {"e": {}}},
    }}}  # fmt: skip
    return rescore(tasks, SCORE, hierarchy=tree)


def test_hierarchy_root_weights_are_renormalised_over_valued_children() -> None:
    rec = _verified_example()
    e = explain(rec, None)
    assert e.scope == Scope(node="overall")
    assert e.value == pytest.approx(0.52222, abs=1e-5)
    terms = {t.label: (t.value, t.weight) for t in e.terms}
    # g3 is null (e is absent): weights 2 and 1 over the valid children, divided by 2, → 2/3, 1/3
    assert set(terms) == {"g1", "g2"}
    assert terms["g1"][0] == pytest.approx((0.3 * 2 + 1.0 * 1) / 3)
    assert terms["g1"][1] == pytest.approx(2 / 3)
    assert terms["g2"] == (0.5, pytest.approx(1 / 3))
    assert any("g3" in note for note in e.notes)
    assert any("zz" in note for note in e.notes)  # outside the tree
    assert {t.task_id for t in e.tasks} == {"a1", "a2", "b1", "c1"}
    assert e.agrees


def test_weighted_by_count_node_and_leaf() -> None:
    rec = _verified_example()
    g1 = explain(rec, None, Scope(node="overall/g1"))
    assert {t.label: t.weight for t in g1.terms} == {
        "a": pytest.approx(2 / 3),
        "b": pytest.approx(1 / 3),
    }
    assert [t.detail for t in g1.terms] == ["aggregation_weight 2", "aggregation_weight 1"]
    leaf = explain(rec, None, Scope(node="overall/g1/a"))
    assert leaf.scope == Scope(category="a")
    assert [(t.label, t.value, t.weight) for t in leaf.terms] == [
        ("a1", 0.2, 0.5),
        ("a2", 0.4, 0.5),
    ]
    assert leaf.value == pytest.approx(0.3)
    empty = explain(rec, None, Scope(node="overall/g3/e"))
    assert empty.value is None and empty.terms == ()


def test_micro_and_category_mean() -> None:
    tasks = [
        task("x1", [attempt(1, {"score": 1.0})], "x"),
        task("x2", [attempt(1, {"score": 0.0})], "x"),
        task("y1", [attempt(1, {"score": 0.5})], "y"),
        task("n1", [attempt(1, {})], "n"),
    ]
    micro = explain(rescore(tasks, SCORE), None)
    assert micro.value == pytest.approx(0.5)  # (1 + 0 + 0.5) / 3
    assert [(t.label, t.weight) for t in micro.terms] == [
        ("x1", pytest.approx(1 / 3)), ("x2", pytest.approx(1 / 3)), ("y1", pytest.approx(1 / 3)),
    ]  # fmt: skip
    by_category = explain(rescore(tasks, SCORE, aggregation="category_mean"), None)
    assert by_category.value == pytest.approx(0.5)  # (0.5 + 0.5) / 2; n has no value
    assert [(t.label, t.value, t.kind) for t in by_category.terms] == [
        ("x", 0.5, "category"), ("y", 0.5, "category"),
    ]  # fmt: skip
    assert any("n" in note for note in by_category.notes)


def test_declared_weights_of_a_conformance_hierarchy() -> None:
    run = next(p for p in RUNS if p.name == "syn_k1_hierarchy")
    tree = load(run / "run_info.json")["request"]["benchmark"]["params"]["category_hierarchy"]
    declared = {n: c["weight"] for n, c in tree["overall"]["children"].items()}
    assert declared == {"apps": 1, "stem": 3, "zero_weight": 0}
    e = explain(session(run).recomputation, None)
    # all three have values; divided by the largest (3) and re-normalised: 1/4, 3/4, 0
    assert {t.label: t.weight for t in e.terms} == {"apps": 0.25, "stem": 0.75, "zero_weight": 0.0}


def test_reference_value_when_the_evaluation_failed() -> None:
    run = next(p for p in RUNS if p.name == "e2e_k1_fatal_evaluation_failed")
    stored = load(run / "metrics.json")["series"][0]
    e = explain(session(run).recomputation, None)
    assert e.is_reference and e.value == stored["reference_value"] == 0.4
    assert len(e.terms) == stored["counts"]["evaluated"] == 10
    assert "reference value" in e.notes[0]


def test_ratio_of_sums_category() -> None:
    run = next(p for p in RUNS if p.name == "syn_scicode_ratio_k1_category_mean")
    stored = {s["series_id"]: s for s in load(run / "metrics.json")["series"]}
    rec = session(run).recomputation
    ratio = stored["subproblem_correctness.native@1"]
    chemistry = explain(rec, "subproblem_correctness.native@1", Scope(category="Chemistry"))
    pairs = [(t.value, t.weight) for t in chemistry.terms]
    assert (
        sum(n for n, _ in pairs) / sum(d for _, d in pairs)
        == ratio["categories"]["Chemistry"]["value"]
    )
    assert (
        sum(d for _, d in pairs) == ratio["categories"]["Chemistry"]["aggregation_weight"] == 10.0
    )
    math_zero = explain(rec, "subproblem_correctness.native@1", Scope(category="Math"))
    assert math_zero.value == 0.0 and math_zero.check == 0.0  # 0/0 → 0.0
    whole = explain(rec, "subproblem_correctness.native@1")
    # category_mean respected: (0.9 + 0.0 + 5/11 + 1.0) / 4, the 0/0 category counting as 0.0
    assert whole.formula == "unweighted mean of the 4 category values that are not null"
    assert [t.label for t in whole.terms] == ["Chemistry", "Math", "Physics", "__uncategorized__"]
    assert whole.value == ratio["value"] == pytest.approx((0.9 + 0.0 + 5 / 11 + 1.0) / 4)
