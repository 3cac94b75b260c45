"""``max_regression`` and ``min_improvement`` say PASS, FAIL or INCONCLUSIVE (issue 51 item 4):
the paired interval [low, high] of B − A judged against the threshold (−L; M), at and just
past each boundary, without an interval, and under each ``inconclusive =`` setting; on
facts written here (what ``inspector diff`` would give), judged by a policy parsed from TOML."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from inspector.gate_policy import PolicyError, parse_policy
from inspector.views.gate import FAIL, PASS, SKIP, Paired, Regression, RuleOutcome, judge
from inspector.views.gate_output import (
    as_json,
    exit_code,
    github_annotations,
    markdown,
    text_lines,
)
from inspector.views.runs_view import gate_words
from tests.gate.test_rules import facts, series

SERIES = "correct.avg@3"
INC = "inconclusive"  # the verdict as JSON says it


def paired(low: float | None, high: float | None, delta: float | None = None, **kw) -> Paired:
    """The comparison's analysis of the series: B − A ``delta`` (the middle by default)."""
    if delta is None and low is not None and high is not None:
        delta = (low + high) / 2
    return {SERIES: Regression(delta, low, high, 40, SERIES, **kw)}


def judged(policy: str, answer: Paired) -> RuleOutcome:
    (found,) = judge(facts(), parse_policy(policy, "p.toml"), facts(), answer).outcomes
    return found


# (limit, low, high, verdict): max_regression L allows B − A ≥ −L.
MAX_REGRESSION = [
    (0.05, -0.05, 0.02, PASS),  # low exactly at −L: every value allowed
    (0.05, -0.04, 0.10, PASS),
    (0.05, -0.0500001, 0.02, INC),  # just below −L: the interval holds −L
    (0.05, -0.06, 0.018, INC),
    (0.05, -0.20, -0.05, INC),  # high exactly at −L: −L is in the interval
    (0.05, -0.20, -0.0500001, FAIL),  # all of it below −L
    (0.0, 0.0, 0.1, PASS),
    (0.0, -0.1, 0.0, INC),
    (0.0, -0.1, -1e-9, FAIL),
]
# (limit, low, high, verdict): min_improvement M asks B − A ≥ M.
MIN_IMPROVEMENT = [
    (0.02, 0.02, 0.08, PASS),
    (0.02, 0.0199999, 0.08, INC),
    (0.02, -0.01, 0.02, INC),
    (0.02, -0.01, 0.0199999, FAIL),
    (0.0, 0.0, 0.3, PASS),
    (0.0, -0.3, -0.01, FAIL),
]


BOUNDARIES = [("max_regression", *case) for case in MAX_REGRESSION] + [
    ("min_improvement", *case) for case in MIN_IMPROVEMENT
]


@pytest.mark.parametrize(("rule", "limit", "low", "high", "verdict"), BOUNDARIES)
def test_the_measured_rules_at_and_past_their_boundaries(
    rule: str, limit: float, low: float, high: float, verdict: str
) -> None:
    got = judged(f"{rule} = {limit}", paired(low, high))
    assert got.verdict == verdict
    assert got.status == {PASS: PASS, FAIL: FAIL, INC: SKIP}[verdict]  # inconclusive: warn


def test_the_line_shows_the_change_its_interval_and_the_threshold() -> None:
    got = judged("max_regression = 0.05", paired(-0.06, 0.018, -0.021))
    assert got.warnings == (
        "team/run: correct.avg@3: max_regression: change -0.021 [-0.06, +0.018] vs limit "
        "-0.05: inconclusive (95% paired interval, 40 tasks)",
    )
    assert got.detail == (
        "correct.avg@3: change -0.021 [-0.06, +0.018] vs limit -0.05: inconclusive "
        "(95% paired interval, 40 tasks)"
    )
    got = judged("min_improvement = 0.02", paired(-0.01, 0.015, 0.004))
    assert got.failures == (
        "team/run: correct.avg@3: min_improvement: change +0.004 [-0.01, +0.015] vs limit "
        "+0.02: fail (95% paired interval, 40 tasks)",
    )
    # Limit 0: "+0", never "-0".
    got = judged("max_regression = 0", paired(-0.1, -0.01, -0.05))
    assert got.failures[0].endswith("vs limit +0: fail (95% paired interval, 40 tasks)")


def test_without_an_interval_the_verdict_is_inconclusive_saying_why() -> None:
    why = "no interval: 1 task evaluated on both sides; a paired interval needs 2"
    got = judged("max_regression = 0.05", paired(None, None, 0.6, no_interval=why))
    assert (got.status, got.verdict) == (SKIP, INC)
    assert got.warnings == (
        f"team/run: correct.avg@3: max_regression: change +0.6 vs limit -0.05: inconclusive ({why})",
    )
    got = judged("min_improvement = 0.0", paired(None, None, None, no_interval="no delta: x"))
    assert got.warnings[0].endswith(": min_improvement: no change measured vs limit +0: "
                                    "inconclusive (no delta: x)")  # fmt: skip
    # Nothing compared (no such series, no --against): skipped, as before, not inconclusive.
    got = judged("max_regression = 0.05", {})
    assert (got.status, got.verdict, got.warnings) == (SKIP, None, ())
    (alone,) = judge(facts(), parse_policy("min_improvement = 0.1", "p")).outcomes
    assert (alone.status, alone.verdict, alone.detail) == (SKIP, None, "needs --against")


@pytest.mark.parametrize(
    ("setting", "status", "code", "warned"),
    [("warn", SKIP, 0, True), ("fail", FAIL, 1, False), ("pass", PASS, 0, False)],
)
def test_what_inconclusive_does_is_the_policys(
    setting: str, status: str, code: int, warned: bool
) -> None:
    policy = parse_policy(f'max_regression = 0.05\ninconclusive = "{setting}"', "p.toml")
    gate = judge(facts(), policy, facts(), paired(-0.06, 0.018, -0.021))
    (got,) = gate.outcomes
    assert (got.status, got.verdict, exit_code([gate])) == (status, INC, code)
    line = (
        "team/run: correct.avg@3: max_regression: change -0.021 [-0.06, +0.018] vs limit -0.05: "
        "inconclusive (95% paired interval, 40 tasks)"
    )
    assert got.warnings == ((line,) if warned else ())
    assert got.failures == (
        (f'{line}; counted as a failure (inconclusive = "fail")',) if setting == "fail" else ()
    )
    annotations = github_annotations([gate])
    kinds = [a.split(" ", 1)[0] for a in annotations]
    assert kinds == {"warn": ["::warning"], "fail": ["::error"], "pass": []}[setting]
    lines = text_lines([gate], "p.toml")
    assert lines[0].startswith({"warn": "WARN ", "fail": "FAIL ", "pass": "pass "}[setting])
    assert lines[-1].endswith("1 with an inconclusive rule; policy: p.toml")


def test_the_default_is_warn_and_other_settings_are_refused() -> None:
    assert parse_policy("max_regression = 0.0", "p").inconclusive == "warn"
    with pytest.raises(
        PolicyError, match=r"^p: inconclusive: Input should be 'warn', 'fail' or 'pass'$"
    ):
        parse_policy('inconclusive = "maybe"', "p")
    with pytest.raises(PolicyError, match=r"^p: unknown key 'scope\[1\]\.inconclusive'"):
        parse_policy('[[scope]]\ninconclusive = "fail"', "p")
    with pytest.raises(
        PolicyError, match="min_improvement: Input should be greater than or equal to 0"
    ):
        parse_policy("min_improvement = -0.1", "p")


def test_a_series_failing_outright_keeps_the_rule_failing_beside_an_inconclusive_one() -> None:
    aux = "cost.avg@3"
    run = facts(series(), series(aux, headline=False))
    answer = {SERIES: Regression(-0.3, -0.4, -0.2, 40, SERIES),
              aux: Regression(0.0, -0.1, 0.1, 40, aux)}  # fmt: skip
    (got,) = judge(
        run, parse_policy('series = "*"\nmax_regression = 0.05', "p"), run, answer
    ).outcomes
    assert (got.status, got.verdict) == (FAIL, FAIL)
    assert [line.split(": ")[1] for line in got.failures] == [SERIES]
    assert [line.split(": ")[1] for line in got.warnings] == [aux]


def old_rule_failed(delta: float, high: float, limit: float) -> bool:
    """``max_regression`` before issue 51: the change below −L with its interval below 0."""
    return delta < -limit and high < 0


def test_at_limit_0_the_runs_that_fail_are_the_ones_the_old_rule_failed() -> None:
    """Backward compatibility: at L = 0 FAIL is exactly the old failure; at L > 0 every old
    failure is FAIL or INCONCLUSIVE (``inconclusive = "fail"`` fails them all), and every
    FAIL was an old failure."""
    rng = random.Random(51)
    for _ in range(2000):
        delta = rng.uniform(-0.3, 0.3)
        low, high = delta - rng.uniform(0, 0.2), delta + rng.uniform(0, 0.2)
        for limit in (0.0, 0.05, 0.1):
            got = judged(f"max_regression = {limit}", paired(low, high, delta)).verdict
            old = old_rule_failed(delta, high, limit)
            if limit == 0.0:
                assert (got == FAIL) == old, (delta, low, high)
            if old:
                assert got in (FAIL, INC), (delta, low, high, limit)
            if got == FAIL:
                assert old, (delta, low, high, limit)


def test_the_runs_screen_detail_line_names_inconclusive_rules() -> None:
    """``G``'s detail line (:func:`inspector.views.runs_view.gate_words`): a run passing with an
    INCONCLUSIVE rule says so; under ``inconclusive = "fail"`` it is a failure like any."""
    answer = paired(-0.06, 0.018, -0.021)
    for setting, words in [
        ("warn", "gate: pass: 1 passed, 0 failed, 1 skipped; inconclusive: max_regression"),
        ("pass", "gate: pass: 2 passed, 0 failed, 0 skipped; inconclusive: max_regression"),
        ("fail", "gate: FAIL (1 passed, 1 failed, 0 skipped) max_regression: correct.avg@3 "
                 "(change -0.021 [-0.06, +0.018]"),
    ]:
        policy = parse_policy(
            f'max_regression = 0.05\nmax_error_rate = 1\ninconclusive = "{setting}"', "p"
        )
        row = SimpleNamespace(gate=judge(facts(), policy, facts(), answer), gate_policy=None)
        said = gate_words(row)  # type: ignore[arg-type]
        assert said.startswith(words), said
        assert said.count("inconclusive: max_regression") == (setting != "fail")


def test_infrastructure_failures_are_kept_apart_from_measured_regressions() -> None:
    """Errors and unavailable tasks are one section, a measured drop another (Markdown), and
    each is its own line in the text, the measured ones after."""
    policy = parse_policy("max_regression = 0.05\nmax_error_rate = 0.1\nmin_evaluated = 17", "p")
    gate = judge(facts(), policy, facts(), paired(-0.4, -0.2))
    lines = text_lines([gate], "p")
    assert [line.split(": ")[2] for line in lines[:-1]] == [
        "max_error_rate", "min_evaluated", "max_regression",
    ]  # fmt: skip
    text = markdown([gate], "p")
    infrastructure = text.index("### Infrastructure failures")
    measured = text.index("### Measured regressions")
    other = text.index("### Failures")
    assert other < infrastructure < measured
    assert ": min_evaluated: " in text[other:infrastructure]
    assert ": max_error_rate: " in text[infrastructure:measured]
    assert ": max_regression: " in text[measured:] and ": max_regression: " not in text[:measured]
    kinds = {r["rule"]: r["kind"] for r in as_json([gate], "p")["runs"][0]["rules"]}
    assert kinds == {"max_error_rate": "infrastructure", "min_evaluated": "run",
                     "max_regression": "measured"}  # fmt: skip
