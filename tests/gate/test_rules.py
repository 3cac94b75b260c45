"""Every rule of the publish gate (issue 42), passing at its limit and failing just past it,
on facts written here (what a run's check would find), judged by a policy parsed from TOML."""

from __future__ import annotations

import pytest

from inspector.gate_policy import parse_policy
from inspector.views.gate import FAIL, PASS, SKIP, Paired, Regression, RunFacts, SeriesFacts, judge

COUNTS = {"total": 20, "evaluated": 16, "error": 4, "unavailable": 3, "invalidated": 1}


def series(series_id: str = "correct.avg@3", *, headline: bool = True, **kw: object) -> SeriesFacts:
    fields: dict[str, object] = {"value": 0.5, "counts": COUNTS, "interval": (0.4, 0.65)}
    fields.update(kw)
    return SeriesFacts(series_id, headline, **fields)  # type: ignore[arg-type]


def facts(*many: SeriesFacts, **kw: object) -> RunFacts:
    fields: dict[str, object] = {
        "benchmark": "swebench",
        "model": "m",
        "status": "completed",
        "stored_equal": True,
    }
    fields.update(kw)
    return RunFacts("team/run", series=many or (series(),), **fields)  # type: ignore[arg-type]


def outcome(
    policy: str,
    run: RunFacts,
    against: RunFacts | None = None,
    rule: str | None = None,
    paired: Paired | None = None,
):
    gate = judge(run, parse_policy(policy, "p.toml"), against, paired)
    found = [o for o in gate.outcomes if rule is None or o.rule == rule]
    assert len(found) == 1, gate.outcomes
    return found[0]


# (rule, limit at which it passes, limit just past it where it fails, measured words)
AT_THE_LIMIT = [
    ("max_error_rate", 0.2, 0.19, "error rate 0.2 (4 of 20 tasks)"),
    ("max_unavailable_rate", 0.15, 0.14, "unavailable rate 0.15 (3 of 20 tasks)"),
    ("max_invalidated", 1, 0, "1 invalidated of 20 tasks"),
    ("min_evaluated", 16, 17, "16 evaluated of 20 tasks"),
    ("max_ci_width", 0.25, 0.24, "95% interval width 0.25 (0.4 to 0.65)"),
]


@pytest.mark.parametrize(("rule", "passes", "fails", "words"), AT_THE_LIMIT)
def test_a_series_rule_passes_at_its_limit_and_fails_past_it(
    rule: str, passes: float, fails: float, words: str
) -> None:
    ok = outcome(f"{rule} = {passes}", facts(), rule=rule)
    assert ok.status == PASS and words in ok.detail
    bad = outcome(f"{rule} = {fails}", facts(), rule=rule)
    assert bad.status == FAIL
    assert bad.failures == (f"team/run: correct.avg@3: {rule}: {words}; limit: {fails:g}",)


def test_a_series_without_an_interval_skips_max_ci_width_saying_why() -> None:
    run = facts(series(interval=None, no_interval="no interval: the value is a corpus formula"))
    got = outcome("max_ci_width = 0.1", run)
    assert got.status == SKIP and "corpus formula" in got.detail


def test_rates_of_a_series_without_tasks_are_skipped() -> None:
    run = facts(series(counts=dict.fromkeys(COUNTS, 0)))
    assert outcome("max_error_rate = 0.0", run).status == SKIP


@pytest.mark.parametrize(
    ("rule", "field", "good", "bad", "words"),
    [
        ("require_stored_equal", "stored_equal", True, False, "stored metrics.json differs"),
        ("require_finished", "status", "completed", "failed", "status failed; limit: completed"),
        ("forbid_derived_plan", "derived", None, "scored with a derived plan (k=1)",
         "scored with a derived plan (k=1); limit: the run's own plan"),
    ],
)  # fmt: skip
def test_a_run_rule_passes_and_fails(rule: str, field: str, good: object, bad: object, words: str):
    assert outcome(f"{rule} = true", facts(**{field: good})).status == PASS
    failed = outcome(f"{rule} = true", facts(**{field: bad, "differences": 2}))
    assert failed.status == FAIL
    assert failed.failures[0].startswith(f"team/run: run: {rule}: ")
    assert words in failed.failures[0]
    # Named false, the rule is judged and passes whatever the run is, saying what it found.
    judged = outcome(f"{rule} = false", facts(**{field: bad, "differences": 2}))
    assert judged.status == PASS
    assert judged.detail in ("stored metrics.json differs in 2 places", "status failed", bad)


def test_a_run_without_status_fails_require_finished_saying_so() -> None:
    got = outcome("require_finished = true", facts(status=None))
    assert got.failures == (
        "team/run: run: require_finished: no status recorded; limit: completed",
    )


def test_a_rule_the_policy_does_not_name_is_off() -> None:
    gate = judge(
        facts(series(counts={**COUNTS, "error": 20})), parse_policy("min_evaluated = 1", "p")
    )
    assert [o.rule for o in gate.outcomes] == ["min_evaluated"]


def test_series_rules_judge_the_series_the_glob_names() -> None:
    aux = series("cost.avg@3", headline=False, counts={**COUNTS, "error": 10})
    run = facts(series(), aux)
    # Default: the headline series only.
    assert outcome("max_error_rate = 0.2", run).status == PASS
    got = outcome('series = "*"\nmax_error_rate = 0.2', run)
    assert got.status == FAIL
    assert [f.split(":")[1].strip() for f in got.failures] == ["cost.avg@3"]


def test_a_series_glob_matching_nothing_fails_as_matched_nothing() -> None:
    """Issue 48: a typo in a series glob must not pass (it skipped every series rule)."""
    run = facts(series(), series("cost.avg@3", headline=False))
    got = outcome('series = "corect*"\nmax_error_rate = 0.5\nmin_evaluated = 1', run,
                  rule="max_error_rate")  # fmt: skip
    assert got.status == FAIL
    assert got.failures == (
        "team/run: series 'corect*': max_error_rate: matched nothing (the run's series: "
        "correct.avg@3, cost.avg@3); limit: 0.5",
    )
    # One scope matching nothing fails the rule even when another scope's glob matches.
    policy = 'series = "*"\nmax_error_rate = 0.5\n[[scope]]\nseries = "typo"\nmax_error_rate = 0.9'
    got = outcome(policy, run)
    assert got.status == FAIL and len(got.failures) == 1
    assert got.failures[0].startswith("team/run: series 'typo': max_error_rate: matched nothing")
    # A scope of another benchmark does not apply, whatever its glob; the headline is matched.
    policy = '[[scope]]\nbenchmark = "gaia"\nseries = "typo"\nmax_error_rate = 0.5'
    assert judge(run, parse_policy(policy, "p")).outcomes == ()
    assert outcome("max_error_rate = 0.5", run).status == PASS
    got = outcome("max_error_rate = 0.5", facts(series(headline=False)))
    assert got.failures == (
        "team/run: the headline series: max_error_rate: matched nothing (the run's series: "
        "correct.avg@3); limit: 0.5",
    )


def test_the_last_scope_covering_a_run_and_naming_a_rule_gives_its_limit() -> None:
    policy = """
max_error_rate = 0.1
[[scope]]
benchmark = "swe*"
max_error_rate = 0.2
[[scope]]
benchmark = "other"
max_error_rate = 0.0
"""
    assert outcome(policy, facts()).status == PASS  # swe*: 0.2
    assert outcome(policy, facts(benchmark="gaia")).status == FAIL  # the top level: 0.1
    assert outcome(policy, facts(benchmark="other")).status == FAIL


def test_a_scope_for_another_benchmark_does_not_apply_its_rules() -> None:
    policy = '[[scope]]\nbenchmark = "gaia"\nrequire_finished = true'
    gate = judge(facts(status="failed"), parse_policy(policy, "p"))
    assert gate.outcomes == ()


def drop(delta: float, low: float, high: float, against: str = "correct.avg@3") -> Paired:
    """The comparison model's analysis of the series (``inspector diff``'s numbers)."""
    return {"correct.avg@3": Regression(delta, low, high, 40, against)}


def test_max_regression_fails_a_drop_whose_interval_lies_below_minus_the_limit() -> None:
    paired = drop(-0.25, -0.4, -0.21)
    got = outcome("max_regression = 0.2", facts(), facts(), paired=paired)
    assert got.status == FAIL
    assert got.failures == (
        "team/run: correct.avg@3: max_regression: change -0.25 [-0.4, -0.21] vs limit -0.2: "
        "fail (95% paired interval, 40 tasks)",
    )
    # An interval holding −limit is INCONCLUSIVE (tests/gate/test_verdicts.py), one above passes.
    assert (
        outcome("max_regression = 0.25", facts(), facts(), paired=paired).verdict == "inconclusive"
    )
    assert outcome("max_regression = 0.4", facts(), facts(), paired=paired).status == PASS


def test_max_regression_names_the_counterpart_and_is_inconclusive_without_an_interval():
    got = outcome(
        "max_regression = 0.1", facts(), facts(), paired=drop(0.1, -0.1, 0.3, "correct.native@1")
    )
    assert (got.status, got.detail) == (
        PASS,
        "correct.avg@3: change +0.1 [-0.1, +0.3] vs limit -0.1: pass "
        "(95% paired interval, 40 tasks; against correct.native@1)",
    )
    why = "no interval: the series is not an aggregate of task values (corpus formula)"
    no_interval = {"correct.avg@3": Regression(0.1, None, None, 40, "correct.avg@3", why)}
    got = outcome("max_regression = 0.0", facts(), facts(), paired=no_interval)
    assert (got.status, got.verdict) == (SKIP, "inconclusive")
    assert got.detail == f"correct.avg@3: change +0.1 vs limit +0: inconclusive ({why})"
    got = outcome("max_regression = 0.0", facts(), facts(), paired={})
    assert (got.status, got.detail) == (
        SKIP,
        "skipped correct.avg@3: no such series in the --against run",
    )


def test_rules_that_compare_are_skipped_without_against() -> None:
    policy = "max_regression = 0.0\nmax_new_error_fingerprints = 0\nmax_fingerprint_growth = 0.0"
    gate = judge(facts(), parse_policy(policy + "\nmin_improvement = 0.1", "p"))
    assert {(o.rule, o.status, o.detail) for o in gate.outcomes} == {
        ("max_regression", SKIP, "needs --against"),
        ("min_improvement", SKIP, "needs --against"),
        ("max_new_error_fingerprints", SKIP, "needs --against"),
        ("max_fingerprint_growth", SKIP, "needs --against"),
    }


def test_max_new_error_fingerprints_at_the_limit() -> None:
    before = facts(fingerprints={"run/timeout: after <n>s": 3})
    now = facts(fingerprints={"run/timeout: after <n>s": 3, "run/oom: killed": 1, "eval/x: y": 2})
    assert outcome("max_new_error_fingerprints = 2", now, before).status == PASS
    got = outcome("max_new_error_fingerprints = 1", now, before)
    assert got.failures == (
        "team/run: run: max_new_error_fingerprints: 2 new error fingerprints "
        "(eval/x: y; run/oom: killed); limit: 1",
    )


def test_max_fingerprint_growth_is_the_largest_growth_of_a_fingerprint_in_both() -> None:
    before = facts(fingerprints={"a": 4, "b": 2, "gone": 9})
    now = facts(fingerprints={"a": 6, "b": 2, "new": 50})  # a: 4 → 6, growth 0.5
    assert outcome("max_fingerprint_growth = 0.5", now, before).status == PASS
    got = outcome("max_fingerprint_growth = 0.49", now, before)
    assert got.failures == (
        "team/run: run: max_fingerprint_growth: a: 4 → 6 attempts (growth 0.5); limit: 0.49",
    )


def test_fingerprint_rules_without_fingerprints_are_skipped() -> None:
    got = outcome("max_new_error_fingerprints = 0", facts(), facts())
    assert got.status == SKIP and got.detail == "error fingerprints not known for both runs"


def test_an_unusable_run_is_judged_by_no_rule() -> None:
    gate = judge(
        RunFacts("r", problem="r/run_info.json: not JSON"), parse_policy("min_evaluated = 1", "p")
    )
    assert gate.status == "unusable" and gate.outcomes == ()
