"""What ``inspector gate`` writes: text lines, JSON, Markdown, JUnit XML, and
GitHub Actions' ``::error`` / ``::warning`` workflow commands. An INCONCLUSIVE rule the policy
counts as a warning is a ``WARN`` line, a ``::warning`` annotation and a skipped
JUnit testcase with the reason; failures of the infrastructure rules (errors, unavailable or
invalidated tasks, error fingerprints) are kept apart from measured regressions. Pure (no I/O, no textual, no rich): each
function returns the text; text from result files (run names, series ids, messages) is
made visible (:func:`~inspector.views.visible.visible`), so that every string JSON can hold
survives, XML included.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from inspector.engine.vocabulary import plural
from inspector.views.gate import FAIL, PASS, SKIP, RunGate
from inspector.views.gate_verdict import rule_kind
from inspector.views.visible import markdown_literal, visible

EXIT_PASS, EXIT_FAILED, EXIT_UNUSABLE = 0, 1, 2


def exit_code(gates: Sequence[RunGate]) -> int:
    """2 when a run is unusable, else 1 when a rule failed, else 0."""
    if any(g.problem is not None for g in gates):
        return EXIT_UNUSABLE
    return EXIT_FAILED if any(g.failed for g in gates) else EXIT_PASS


def _one(text: str) -> str:
    return visible(text, one_line=True)


def rule_counts(gate: RunGate, *, names: bool = False) -> str:
    """``8 passed, 0 failed, 3 skipped``: the run's rules by outcome, then how many rules
    were INCONCLUSIVE (``names``: which, where not already counted as a failure)."""
    passed = sum(o.status == PASS for o in gate.outcomes)
    skipped = sum(o.status == SKIP for o in gate.outcomes)
    counts = f"{passed} passed, {len(gate.failed)} failed, {skipped} skipped"
    if names:
        unresolved = [o.rule for o in gate.inconclusive if o.status != FAIL]
        return counts + (f"; inconclusive: {', '.join(unresolved)}" if unresolved else "")
    return counts + (f"; {len(gate.inconclusive)} inconclusive" if gate.inconclusive else "")


def summary_line(gates: Sequence[RunGate], source: str) -> str:
    """``N runs: a pass, b fail, c unusable; policy: …`` (with the runs that have an
    INCONCLUSIVE rule, when some have)."""
    states = [g.status for g in gates]
    unresolved = sum(bool(g.inconclusive) for g in gates)
    return _one(
        f"{plural(len(gates), 'run')}: {states.count(PASS)} pass, {states.count(FAIL)} fail, "
        f"{states.count('unusable')} unusable"
        + (f", {unresolved} with an inconclusive rule" if unresolved else "")
        + f"; policy: {source}"
    )


def _failures(gate: RunGate, kinds: Sequence[str]) -> list[str]:
    return [f for o in gate.failed if rule_kind(o.rule) in kinds for f in o.failures]


def _warnings(gate: RunGate) -> list[str]:
    return [w for o in gate.outcomes for w in o.warnings]


def text_lines(gates: Sequence[RunGate], source: str) -> list[str]:
    """One line per failure (run, series, rule, measured, limit): a run's own and its
    infrastructure failures (errors, unavailable tasks) first, its measured regressions
    after; one ``WARN`` line per INCONCLUSIVE series the policy warns of; one line per run
    that passed or is unusable; then the summary."""
    lines = []
    for gate in gates:
        if gate.problem is not None:
            lines.append(_one(f"unusable: {gate.problem}"))
            continue
        for kinds in (("run", "infrastructure"), ("measured",)):
            lines.extend(_one(f"FAIL {failure}") for failure in _failures(gate, kinds))
        lines.extend(_one(f"WARN {warning}") for warning in _warnings(gate))
        if not gate.failed:
            lines.append(_one(f"pass {gate.run}: {rule_counts(gate)}"))
    lines.append(summary_line(gates, source))
    return lines


def as_json(gates: Sequence[RunGate], source: str) -> dict[str, Any]:
    """``gate --format json``: the policy's source, the exit code, and per run its status,
    problem and every rule's outcome: its status (what the exit code counts), its
    ``verdict`` (pass, fail, inconclusive; null when skipped), its ``kind`` (run,
    infrastructure, measured) and its ``warnings``."""
    return {
        "policy": source,
        "exit_code": exit_code(gates),
        "runs": [
            {
                "run": g.run,
                "status": g.status,
                "problem": g.problem,
                "rules": [
                    {"rule": o.rule, "status": o.status, "failures": list(o.failures),
                     "detail": o.detail, "verdict": o.verdict, "kind": rule_kind(o.rule),
                     "warnings": list(o.warnings)}
                    for o in g.outcomes
                ],
            }
            for g in gates
        ],
    }  # fmt: skip


def markdown(gates: Sequence[RunGate], source: str) -> str:
    """A heading, one table row per run (its failed rules), and each failure as a bullet."""
    rows = ["## inspector gate", "", f"Policy: {markdown_literal(source)}", "",
            "| run | result | rules | failed |", "|---|---|---|---|"]  # fmt: skip
    for gate in gates:
        failed = ", ".join(o.rule for o in gate.failed) or "—"
        rules = gate.problem or rule_counts(gate)
        rows.append(
            f"| {markdown_literal(gate.run)} | {gate.status} | {markdown_literal(rules)} "
            f"| {markdown_literal(failed)} |"
        )
    sections = [
        ("Failures", [f for g in gates for f in _failures(g, ("run",))]),
        ("Infrastructure failures (errors, unavailable or invalidated tasks)",
         [f for g in gates for f in _failures(g, ("infrastructure",))]),
        ("Measured regressions", [f for g in gates for f in _failures(g, ("measured",))]),
        ("Inconclusive (warnings)", [w for g in gates for w in _warnings(g)]),
    ]  # fmt: skip
    for heading, lines in sections:
        if lines:
            rows += ["", f"### {heading}", ""] + [f"- {markdown_literal(f)}" for f in lines]
    rows += ["", markdown_literal(summary_line(gates, source))]
    return "\n".join(rows) + "\n"


def junit_xml(gates: Sequence[RunGate], source: str) -> str:
    """JUnit XML: one ``testsuite`` per run, one ``testcase`` per rule (``classname`` the
    run, ``name`` the rule) with a ``failure`` (each failing series one line) or
    ``skipped`` (an INCONCLUSIVE rule the policy warns of: skipped, its message the first
    INCONCLUSIVE line, each one a line of its text); an unusable run is one testcase
    ``usable`` with an ``error``."""
    suites = ET.Element("testsuites", name="inspector gate")
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for gate in gates:
        suite = ET.SubElement(suites, "testsuite", name=_one(gate.run))
        counts = dict.fromkeys(totals, 0)
        if gate.problem is not None:
            case = ET.SubElement(suite, "testcase", classname=_one(gate.run), name="usable")
            ET.SubElement(case, "error", message=_one(gate.problem), type="unusable")
            counts["tests"] = counts["errors"] = 1
        for outcome in gate.outcomes:
            case = ET.SubElement(suite, "testcase", classname=_one(gate.run), name=outcome.rule)
            counts["tests"] += 1
            if outcome.status == FAIL:
                failure = ET.SubElement(
                    case, "failure", message=_one(outcome.failures[0]), type=outcome.rule
                )
                failure.text = "\n".join(_one(f) for f in outcome.failures)
                counts["failures"] += 1
            elif outcome.status == SKIP and outcome.warnings:
                skipped = ET.SubElement(case, "skipped", message=_one(outcome.warnings[0]))
                skipped.text = "\n".join(_one(w) for w in outcome.warnings)
                counts["skipped"] += 1
            elif outcome.status == SKIP:
                ET.SubElement(case, "skipped", message=_one(outcome.detail))
                counts["skipped"] += 1
            elif outcome.detail:
                ET.SubElement(case, "system-out").text = _one(outcome.detail)
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():  # junit-10.xsd has no skipped on testsuites
        if key != "skipped":
            suites.set(key, str(value))
    for suite in suites:  # the policy in each suite (the schema has properties per suite)
        properties = ET.Element("properties")
        ET.SubElement(properties, "property", name="policy", value=_one(source))
        suite.insert(0, properties)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, "unicode") + "\n"


def _command_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's toolkit escapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _command_property(text: str) -> str:
    return _command_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(gates: Sequence[RunGate]) -> list[str]:
    """``::error title=…::…`` for every failure and every unusable run, ``::warning
    title=…::…`` for every INCONCLUSIVE series the policy warns of."""
    lines = []
    for gate in gates:
        if gate.problem is not None:
            title = _command_property(_one(f"inspector gate: {gate.run} unusable"))
            lines.append(f"::error title={title}::{_command_data(_one(gate.problem))}")
        for outcome in gate.failed:
            title = _command_property(_one(f"inspector gate: {outcome.rule}"))
            lines.extend(
                f"::error title={title}::{_command_data(_one(f))}" for f in outcome.failures
            )
        for outcome in gate.outcomes:
            title = _command_property(_one(f"inspector gate: {outcome.rule} inconclusive"))
            lines.extend(
                f"::warning title={title}::{_command_data(_one(w))}" for w in outcome.warnings
            )
    return lines
