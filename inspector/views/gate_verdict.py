"""The verdicts of the gate's rules that measure a change: PASS, FAIL or
INCONCLUSIVE. Pure (no I/O, no textual, no rich); :mod:`inspector.views.gate` judges with it.

The rules that measure a change (:data:`MEASURED_RULES`) judge the paired 95 %
interval [low, high] of the series delta B − A against a threshold t (``max_regression`` L:
t = −L, a drop of at most L allowed; ``min_improvement`` M: t = M): PASS when every value
of the interval is allowed (low ≥ t), FAIL when none is (high < t), INCONCLUSIVE when the
interval holds t (low < t ≤ high), and INCONCLUSIVE too when the comparison gives no interval
(fewer than 2 tasks evaluated on both sides, a side without an interval, a corpus formula),
saying why. The policy's ``inconclusive`` says what an INCONCLUSIVE verdict does: ``"warn"``
(the default: the rule is skipped, with a warning), ``"fail"`` or ``"pass"``. Each
:class:`~inspector.views.gate.RuleOutcome` keeps its ``status`` (pass / fail / skipped: what the exit code counts)
and its ``verdict`` (pass / fail / inconclusive; None when skipped).

``inconclusive = "fail"`` makes every verdict but PASS fail (docs/decisions/gate-verdicts.md
compares the verdicts with the earlier rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

PASS, FAIL, SKIP = "pass", "fail", "skipped"
INCONCLUSIVE = "inconclusive"
"""A measured rule's verdict when the interval holds its threshold (or there is none)."""
ON_INCONCLUSIVE = ("warn", "fail", "pass")
"""What the policy's ``inconclusive`` may say; the first is the default."""


MEASURED_RULES = frozenset(("max_regression", "min_improvement"))
"""Rules judging the paired interval of a series delta: PASS, FAIL or INCONCLUSIVE."""
INFRASTRUCTURE_RULES = frozenset((
    "max_error_rate", "max_unavailable_rate", "max_invalidated",
    "max_new_error_fingerprints", "max_fingerprint_growth",
))  # fmt: skip
"""Rules about tasks that did not run or errored (kept apart from measured regressions)."""


def rule_kind(rule: str) -> str:
    """``measured`` (a change judged by its interval), ``infrastructure`` (errors,
    unavailable or invalidated tasks, error fingerprints) or ``run`` (the rest)."""
    if rule in MEASURED_RULES:
        return "measured"
    return "infrastructure" if rule in INFRASTRUCTURE_RULES else "run"


@dataclass(frozen=True)
class Regression:
    """The comparison model's series delta B − A of one series pair (B this run, A the
    ``--against`` run) and its paired interval, as ``inspector diff`` gives them
    (:meth:`inspector.views.compare.Comparison.stats`: ``paired.series_delta``,
    ``ci_low``, ``ci_high``); ``low`` and ``high`` None: the comparison gives no interval
    (``no_interval`` says why), and the measured rules are INCONCLUSIVE."""

    delta: float | None
    low: float | None
    high: float | None
    tasks: int
    """Task ids of either side (the unit of resampling)."""
    against_series: str
    """The ``--against`` run's series paired with this one (``pair_series``)."""
    no_interval: str = ""
    """Why there is no interval (``low`` and ``high`` None)."""
    explained: str | None = None
    """Where the delta came from, in one sentence
    (:func:`inspector.views.decomposition.decomposition_sentence`), when it splits."""


def measured_verdict(low: float, high: float, threshold: float) -> str:
    """PASS when the whole interval [low, high] is at or above ``threshold`` (every value
    in it is an allowed change), FAIL when all of it is below, else INCONCLUSIVE."""
    if low >= threshold:
        return PASS
    return FAIL if high < threshold else INCONCLUSIVE


def regression_words(answer: Regression, threshold: float) -> str:
    """``change -0.021 [-0.06, +0.018] vs limit -0.05``: the change, its interval (the
    noise floor) and the threshold it is judged against."""
    change = "no change measured" if answer.delta is None else f"change {answer.delta:+.4g}"
    interval = (
        "" if answer.low is None or answer.high is None
        else f" [{answer.low:+.4g}, {answer.high:+.4g}]"
    )  # fmt: skip
    return f"{change}{interval} vs limit {threshold:+.4g}"


@dataclass(frozen=True)
class RuleOutcome:
    """One rule judged on one run (every series it names folded in)."""

    run: str
    rule: str
    status: str
    failures: tuple[str, ...] = ()
    """One line per failing series (or one for a run rule): series, rule, measured, limit."""
    detail: str = ""
    """What was measured, when it passed or was skipped."""
    verdict: str | None = None
    """pass, fail or inconclusive (a measured rule's interval holds its threshold); None:
    not judged (skipped)."""
    warnings: tuple[str, ...] = ()
    """One line per INCONCLUSIVE series the policy counts as a warning (``inconclusive =
    "warn"``): series, rule, the change, its interval, the threshold."""


def outcome(
    run: str,
    rule: str,
    failures: list[str],
    measured: list[str],
    unresolved: Sequence[str] = (),
    on_inconclusive: str = ON_INCONCLUSIVE[0],
) -> RuleOutcome:
    """The rule's outcome from its failing lines, what it measured and its INCONCLUSIVE
    lines (``unresolved``), which the policy's ``inconclusive`` counts as failures, passes
    or warnings (the rule skipped)."""
    detail = "; ".join(measured)
    warned = tuple(unresolved) if on_inconclusive == "warn" else ()
    failed_outright = bool(failures)
    if on_inconclusive == "fail":
        failures = failures + [f'{line}; counted as a failure (inconclusive = "fail")'
                               for line in unresolved]  # fmt: skip
    if failures:
        verdict = FAIL if failed_outright else INCONCLUSIVE
        return RuleOutcome(run, rule, FAIL, tuple(failures), verdict=verdict, warnings=warned)
    if unresolved:
        status = PASS if on_inconclusive == "pass" else SKIP
        return RuleOutcome(run, rule, status, detail=detail, verdict=INCONCLUSIVE, warnings=warned)
    if not measured:
        return RuleOutcome(run, rule, SKIP, detail="no series to judge")
    skipped = all(m.startswith("skipped") for m in measured)
    return RuleOutcome(run, rule, SKIP if skipped else PASS, detail=detail,
                       verdict=None if skipped else PASS)  # fmt: skip
