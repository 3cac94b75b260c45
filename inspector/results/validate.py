"""Strict validation of a persisted task detail (spec §1.5, §2.1, §2.2, §3).

The rules and their order follow AgentCompass 1.0.1 ``runtime/results/detail.py:
build_detail_record(strict=True)``, ``runtime/issues.py: parse_issues`` and
``ExecutionIssue``; whatever AgentCompass rejects raises :class:`DetailError` here, with
AgentCompass's wording where it has one. Only the scoring part of an attempt is kept.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from sys import intern
from typing import Any

from inspector.engine.model import PHASES, SEVERITIES, STATUSES, Attempt, Issue
from inspector.results.layout import TASK_SCHEMAS, is_canonical_attempt_key, is_empty_optional
from inspector.results.problems import (
    RULE_ATTEMPT,
    RULE_ATTEMPT_ERROR,
    RULE_ATTEMPT_PLAN,
    RULE_DETAIL,
    RULE_ISSUE,
    RULE_ISSUES,
    RULE_METRICS,
    RULE_STATUS,
    RULE_TASK_INDEX,
)

BUILTIN_STRATEGIES = ("avg", "pass")
ATTEMPT_FIELDS = frozenset(
    {"status", "metrics", "final_answer", "trajectory", "issues", "artifacts", "meta", "analysis_result"}
)
ISSUE_FIELDS = ("severity", "phase", "code", "message")
META_NAMESPACES = frozenset({"benchmark", "harness"})
PLAN_FIELDS = frozenset({"k", "strategy"})
# Each status as one string object: a large run's attempts then share it.
STATUS_OBJECTS = {status: status for status in STATUSES}
"""Each known status as one string object (an attempt's status is looked up in it)."""
# Benchmark values some corpus formulas read from artifacts (gdpval_ac's delivery rate).
SCORING_ARTIFACT_PREFIX = "gdpval_ac_"


class DetailError(ValueError):
    """A persisted detail AgentCompass's strict builder rejects."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


def check_index_attempts(index: Mapping[str, Any], task_id: str) -> dict[str, str]:
    """The ``attempts`` map of a task index, checked as ``RunLayout.task_index`` does."""
    if index.get("schema_version") not in TASK_SCHEMAS or index.get("task_id") != task_id:
        raise DetailError("invalid task index identity or schema", RULE_TASK_INDEX)
    attempts = index.get("attempts")
    if not isinstance(attempts, dict):
        raise DetailError("invalid task index identity or schema: attempts is not an object", RULE_TASK_INDEX)
    for number, token in attempts.items():
        if not number.isdigit() or int(number) < 1 or str(int(number)) != number:
            raise DetailError(f"invalid task attempt index {number!r}", RULE_TASK_INDEX)
        if token != f"attempt-{number}":
            raise DetailError(
                f"invalid or duplicate attempt directory identifier {token!r}; expected 'attempt-{number}'",
                RULE_TASK_INDEX,
            )
    return attempts


def shape_attempt(payload: Mapping[str, Any], key: str) -> Attempt:
    """The scoring view of one attempt payload, validated strictly (spec §2.2)."""
    where = f"attempts.{key}"
    if not is_canonical_attempt_key(key):
        raise DetailError(f"invalid attempt key {key!r}; expected a positive integer string", RULE_ATTEMPT)
    unknown: set[str] | frozenset[str]
    missing: set[str] | frozenset[str]
    if payload.keys() == ATTEMPT_FIELDS:
        unknown = missing = set()
    else:
        fields = set(payload)
        unknown, missing = fields - ATTEMPT_FIELDS, ATTEMPT_FIELDS - fields
    if unknown or missing:
        parts = []
        if unknown:
            parts.append(f"unsupported fields: {', '.join(sorted(unknown))}")
        if missing:
            parts.append(f"missing fields: {', '.join(sorted(missing))}")
        rule = RULE_ATTEMPT_ERROR if "error" in unknown else RULE_ATTEMPT
        raise DetailError(f"{where} has {'; '.join(parts)}", rule)
    metrics = _metrics(payload["metrics"], f"{where}.metrics")
    # The usual attempt passes each rule by the first, cheapest test below; anything else
    # goes through the full rule, in the same order, so the first error is the same.
    raw_status = payload["status"]
    status = STATUS_OBJECTS.get(raw_status) if raw_status.__class__ is str else None
    if status is None:
        status = STATUS_OBJECTS[_status(raw_status, where)]
    issues = payload["issues"]
    issues = () if issues.__class__ is list and not issues else _issues(issues, where)
    for name in ("trajectory", "artifacts", "analysis_result"):
        if payload[name].__class__ is not dict:
            _optional_mapping(payload[name], where, name)
    meta = payload["meta"]
    if not (
        meta.__class__ is dict
        and meta.keys() == META_NAMESPACES
        and meta["benchmark"].__class__ is dict
        and meta["harness"].__class__ is dict
    ):
        _meta(meta, where)
    artifacts = payload["artifacts"]
    scoring_artifacts = (
        {name: value for name, value in artifacts.items() if name.startswith(SCORING_ARTIFACT_PREFIX)}
        if isinstance(artifacts, dict)
        else {}
    )
    return Attempt(int(key), status, metrics, issues, scoring_artifacts)


def shape_plan(
    raw_plan: Any, max_index: int, strategies: Collection[str] = BUILTIN_STRATEGIES
) -> tuple[int, str]:
    """``(k, strategy)`` of a task's ``attempt_plan`` (spec §2.1)."""
    if raw_plan is None:
        raise DetailError("attempt_plan is required", RULE_ATTEMPT_PLAN)
    if not isinstance(raw_plan, Mapping):
        raise DetailError("attempt_plan must be a mapping", RULE_ATTEMPT_PLAN)
    unknown = set(raw_plan) - PLAN_FIELDS
    if unknown:
        raise DetailError(
            f"attempt_plan contains unsupported fields: {', '.join(sorted(unknown))}", RULE_ATTEMPT_PLAN
        )
    k = raw_plan.get("k")
    if type(k) is not int or k < 1:
        raise DetailError("attempt_plan.k must be a positive integer", RULE_ATTEMPT_PLAN)
    if max_index > k:
        raise DetailError("attempt_plan.k cannot be smaller than a recorded attempt index", RULE_ATTEMPT_PLAN)
    strategy = raw_plan.get("strategy")
    if not isinstance(strategy, str) or not strategy.strip():
        raise DetailError(
            "attempt_plan.strategy is required and must be a non-empty string", RULE_ATTEMPT_PLAN
        )
    normalized = strategy.strip().lower()
    if normalized in strategies:
        # Interned: one object for every task, in this process and (marshal keeps the
        # mark) in the one a reader process sends the task to.
        return k, intern(normalized)
    available = ", ".join(sorted(strategies)) or "none"
    raise DetailError(
        f"unknown attempt strategy '{normalized}'; available: {available}", RULE_ATTEMPT_PLAN
    )


def task_category(raw: Any) -> Any:
    """The category as the detail record keeps it: empty values become None.

    A category is named by ``str()`` (spec Addendum item 50); one nested so deeply that
    ``str()`` exceeds Python's recursion limit cannot be named, by AgentCompass either.
    """
    if is_empty_optional(raw):
        return None
    if type(raw) is str:
        return intern(raw)  # tasks share a few categories: one string each (as strategies)
    if isinstance(raw, dict | list):
        try:
            str(raw)
        except RecursionError as exc:
            raise DetailError("category is nested too deeply to be named", RULE_DETAIL) from exc
    return raw


def _metrics(value: Any, where: str) -> dict[str, bool | int | float]:
    if type(value) is not dict and not isinstance(value, Mapping):
        raise DetailError(f"{where} must be a mapping", RULE_METRICS)
    metrics: dict[str, bool | int | float] = {}
    for name, item in value.items():
        if not isinstance(name, str) or not name.strip():
            raise DetailError(f"{where} keys must be non-empty strings", RULE_METRICS)
        if name != name.strip():
            raise DetailError(f"{where} key {name!r} must not contain surrounding whitespace", RULE_METRICS)
        if item is None:
            raise DetailError(
                f"{where}.{name} is null; a missing observation must be an absent key", RULE_METRICS
            )
        if not (
            type(item) is bool or type(item) is int or (type(item) is float and math.isfinite(item))
        ):
            kind = "non-finite float" if type(item) is float else type(item).__name__
            raise DetailError(f"{where}.{name} must be a bool, int, or finite float; got {kind}", RULE_METRICS)
        metrics[name] = item
    return metrics


def _status(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DetailError(f"{where}.status is required and must be a non-empty string", RULE_STATUS)
    status = value.strip()
    if status not in STATUSES:
        raise DetailError(
            f"{where}.status {status!r} must be one of: {', '.join(sorted(STATUSES))}", RULE_STATUS
        )
    return status


def _issues(value: Any, where: str) -> tuple[Issue, ...]:
    if not isinstance(value, list):
        found = "null" if value is None else type(value).__name__
        raise DetailError(f"{where}.issues: issues must be an explicit list, got {found}", RULE_ISSUES)
    issues = []
    for position, item in enumerate(value):
        at = f"{where}.issues[{position}]"
        if not isinstance(item, Mapping):
            raise DetailError(f"{at} must be an object, got {type(item).__name__}", RULE_ISSUE)
        unknown = sorted(set(item) - set(ISSUE_FIELDS))
        missing = [name for name in ISSUE_FIELDS if name not in item]
        if unknown or missing:
            parts = ([f"unexpected fields: {', '.join(unknown)}"] if unknown else []) + (
                [f"missing fields: {', '.join(missing)}"] if missing else []
            )
            raise DetailError(f"{at} has {'; '.join(parts)}", RULE_ISSUE)
        severity, phase, code, message = (item[name] for name in ISSUE_FIELDS)
        if not isinstance(severity, str) or severity not in SEVERITIES:
            raise DetailError(f"{at}.severity {severity!r} is not one of {', '.join(SEVERITIES)}", RULE_ISSUE)
        if not isinstance(phase, str) or phase not in PHASES:
            raise DetailError(f"{at}.phase {phase!r} is not one of {', '.join(PHASES)}", RULE_ISSUE)
        if not isinstance(code, str) or not code.strip() or code != code.strip():
            raise DetailError(f"{at}: issue code must be non-empty text without surrounding whitespace", RULE_ISSUE)
        if not isinstance(message, str) or not message.strip():
            raise DetailError(f"{at}: issue message must be non-empty text", RULE_ISSUE)
        issues.append(Issue(severity=severity, phase=phase, code=code, message=message))
    return tuple(issues)


def _optional_mapping(value: Any, where: str, name: str) -> None:
    # type() first: this runs for every attempt of a large run, and nearly always on a dict.
    if type(value) is dict or is_empty_optional(value) or isinstance(value, Mapping):
        return
    raise DetailError(f"{where}.{name} must be a mapping", RULE_ATTEMPT)


_META_ORDER = tuple((namespace, f"meta.{namespace}") for namespace in sorted(META_NAMESPACES))


def _meta(value: Any, where: str) -> None:
    if type(value) is not dict and not isinstance(value, Mapping):
        raise DetailError(f"{where}.meta must be a mapping", RULE_ATTEMPT)
    keys = value.keys()
    unknown: set[str] | frozenset[str]
    missing: set[str] | frozenset[str]
    if keys == META_NAMESPACES:
        unknown = missing = set()
    else:
        unknown, missing = set(value) - META_NAMESPACES, META_NAMESPACES - set(value)
    if unknown or missing:
        parts = []
        if unknown:
            parts.append(f"unnamespaced fields: {', '.join(sorted(unknown))}")
        if missing:
            parts.append(f"missing namespaces: {', '.join(sorted(missing))}")
        raise DetailError(f"{where}.meta has {'; '.join(parts)}", RULE_ATTEMPT)
    for namespace, name in _META_ORDER:
        _optional_mapping(value[namespace], where, name)
