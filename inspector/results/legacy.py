"""Historical (task schema v2) attempts, converted as AgentCompass 1.0.1 does (spec §9.2).

Mirrors ``runtime/results/legacy.py: convert_legacy_attempt``: only structured evidence
decides an issue; plain error text cannot, and then the attempt is unclassifiable
(``LegacyClassificationUnknown``), which makes AgentCompass refuse the run. The issue's
message adds the attempt's own words to AgentCompass's generic one ("Historical judge
failure: judge request timed out"); messages take no part in any count or value.
"""

from __future__ import annotations

from typing import Any

_CLEAN_STATUSES = frozenset({"completed", "skipped", "cancelled", "interrupted"})
_SCORED_KEYS = ("score", "grading", "race", "fact")


class LegacyConversionError(ValueError):
    """A v2 attempt that AgentCompass cannot convert; the message says why."""


def convert_legacy_attempt(payload: dict[str, Any]) -> dict[str, Any]:
    """The v3 form of one v2 attempt payload (without ``retry_count``).

    Raises:
        LegacyConversionError: the historical classification is unknown, or the payload
            has a shape the conversion cannot read.
    """
    result = dict(payload)
    error = result.pop("error", "")
    artifacts = result.setdefault("artifacts", {})
    if not isinstance(artifacts, dict):
        raise LegacyConversionError(
            f"artifacts must be an object to convert a v2 attempt, got {_kind(artifacts)}"
        )
    artifacts = result["artifacts"] = dict(artifacts)
    if error:
        previous = artifacts.get("execution_diagnostics")
        if previous and not isinstance(previous, str):
            raise LegacyConversionError(
                "artifacts.execution_diagnostics must be text to append the v2 error"
            )
        artifacts["execution_diagnostics"] = "\n".join(filter(None, [previous, str(error)]))
    extra = result.get("extra") or _benchmark_meta(result.get("meta")) or {}
    if not isinstance(extra, dict):
        raise LegacyConversionError(f"extra/meta.benchmark must be an object, got {_kind(extra)}")
    manifest = artifacts.get("declared_artifacts") or {}
    scoring = extra.get("scoring") or {}
    if _failed_transfer(manifest):
        said = _real_text(error, *_failed_entry_texts(manifest))
        issue = _issue(
            "collect", "artifact_transfer_failed", "Historical artifact transfer failure" + said
        )
    elif (
        isinstance(scoring, dict)
        and scoring.get("error")
        and type(scoring.get("correct")) is bool
        and not any(key in scoring for key in _SCORED_KEYS)
    ):
        said = _real_text(error, scoring.get("error"))
        issue = _issue("evaluate", "judge_failed", "Historical judge failure" + said)
    elif (
        not error and isinstance(result.get("status"), str) and result["status"] in _CLEAN_STATUSES
    ):
        result["issues"] = []
        return result
    else:
        raise LegacyConversionError(
            "historical error classification is unknown; re-execution is required"
            " (LegacyClassificationUnknown)"
        )
    result["issues"] = [issue]
    return result


def _real_text(*texts: Any) -> str:
    """``": <text>"``: the v2 attempt's own words (its ``error``, the scoring or transfer
    error), which AgentCompass's generic message leaves out; "" when there are none."""
    said = dict.fromkeys(t.strip() for t in texts if isinstance(t, str) and t.strip())
    return f": {'; '.join(said)}" if said else ""


def _failed_entry_texts(manifest: dict[str, Any]) -> list[Any]:
    entries = manifest.get("entries", [])
    if not isinstance(entries, list):
        return []
    return [
        entry.get("error") or entry.get("message")
        for entry in entries
        if isinstance(entry, dict) and entry.get("status") == "failed"
    ]


def _benchmark_meta(meta: Any) -> Any:
    if not meta:
        return None
    if not isinstance(meta, dict):
        raise LegacyConversionError(f"meta must be an object, got {_kind(meta)}")
    return meta.get("benchmark")


def _failed_transfer(manifest: Any) -> bool:
    if not isinstance(manifest, dict) or manifest.get("complete") is not False:
        return False
    entries = manifest.get("entries", [])
    if not isinstance(entries, list | str | dict):
        raise LegacyConversionError("artifacts.declared_artifacts.entries cannot be iterated")
    return any(isinstance(entry, dict) and entry.get("status") == "failed" for entry in entries)


def _issue(phase: str, code: str, message: str) -> dict[str, str]:
    return {"severity": "fatal", "phase": phase, "code": code, "message": message}


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__
