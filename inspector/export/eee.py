"""Every Eval Ever (EEE) records of one recomputed run, schema 0.3.0.

Two files, as EEE's own converters write them (``every_eval_ever/converters/inspect``):

- the aggregate record (``eval.schema.json``): one ``evaluation_results`` entry per series of
  the recomputed report — the engine's value (a failed evaluation's *reference* value, marked
  ``value_is_reference`` in ``score_details.details``), the five counts, and ``uncertainty``
  (standard error, confidence interval, standard deviation and ``num_samples`` from the
  run's statistics, see :func:`series_uncertainty`);
- the instance records (``instance_level_eval.schema.json``), one JSON line per task and
  attempt: the attempt number is the *epoch* in ``metadata`` (``{"epoch": "2"}``), as the
  Inspect converter writes ``sample.epoch``; the trajectory's steps become ``messages``
  (``interaction_type`` ``agentic``), the primary metric's observation the ``evaluation``.

Secrets in ``run_info.json`` (``request.model.api_key``, ``base_url``) are never copied;
only the ids of the benchmark, harness and model are.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from inspector.engine import strict_json
from inspector.engine.contract import BINARY
from inspector.engine.model import Attempt, TaskRecord
from inspector.engine.recomputation import Recomputation
from inspector.engine.report import MICRO_WEIGHTED, MetricSeries
from inspector.views.run_stats import series_stats

SCHEMA_VERSION = "0.3.0"
LIBRARY = "agentcompass"


def _text(value: Any) -> str | None:
    """A string as it is; any other JSON value as compact JSON; ``None`` stays ``None``."""
    if value is None or isinstance(value, str):
        return value
    return strict_json.dumps(value, ensure_ascii=False, sort_keys=True)


def _strings(mapping: Mapping[str, Any]) -> dict[str, str]:
    """EEE's ``additional_details``: every value a string; ``None`` left out."""
    return {key: text for key, value in mapping.items() if (text := _text(value)) is not None}


def unix_timestamp(iso: Any) -> str | None:
    """``2026-03-01T18:03:06+08:00`` -> ``"1772359386"`` (EEE's timestamps are Unix seconds)."""
    if not isinstance(iso, str):
        return None
    try:
        return str(int(datetime.fromisoformat(iso).timestamp()))
    except ValueError:
        return None


def _id(request: Mapping[str, Any], part: str) -> str | None:
    section = request.get(part)
    value = section.get("id") if isinstance(section, dict) else None
    return value if isinstance(value, str) and value else None


_UNSAFE = re.compile(r'[<>:"\\|?*\x00-\x1f]')


def path_component(name: str) -> str:
    """One datastore folder name, as EEE's ``sanitize_filename`` makes it ("/" -> "_")."""
    clean = _UNSAFE.sub("_", name.replace("/", "_")).rstrip(". ")
    return clean if clean.strip(".") else "unknown"


def datastore_names(record: Mapping[str, Any], identity: str) -> tuple[str, str]:
    """``(folder, file uuid)`` of a record in EEE's datastore layout:
    ``data/<dataset>/<developer>/<model>`` and a UUIDv4-shaped name derived from
    ``identity`` (the same run and plan always get the same file names)."""
    model = record["model_info"]["id"]
    developer = model.split("/", 1)[0] if "/" in model else "unknown"
    name = model.split("/", 1)[1] if "/" in model else model
    dataset = (
        record["evaluation_results"][0]["source_data"]["dataset_name"]
        if record["evaluation_results"]
        else "unknown"
    )
    folder = "/".join(("data", *(path_component(p) for p in (dataset, developer, name))))
    digest = hashlib.sha256(identity.encode("utf-8")).digest()[:16]
    return folder, str(uuid.UUID(bytes=digest, version=4))


def series_uncertainty(rec: Recomputation, series: MetricSeries) -> dict[str, Any]:
    """``score_details.uncertainty`` of one series, from the run's statistics.

    The interval is :func:`inspector.views.run_stats.series_stats`'s: the unit is the task (a
    task value already averages its attempts: the clustered standard error), at 95 % (for
    a binary metric an exact interval at an effective n; a scalar Student t), the
    same numbers ``inspector stats`` shows. With an interval,
    ``num_samples`` is the number of task values it was computed from, ``standard_error``
    and ``confidence_interval`` carry its ``method``; a ``micro_weighted`` series (a plain
    mean of its task values, EEE's ``SE = standard_deviation / sqrt(num_samples)``) also gets
    the ``standard_deviation`` of those values. Without one (a corpus formula, fewer
    than two task values) only ``num_samples`` = the evaluated count.
    """
    interval = series_stats(rec, series).own.interval
    if interval.se is None:
        return {"num_samples": series.counts.evaluated}
    out: dict[str, Any] = {
        "num_samples": interval.n,
        "standard_error": {"value": interval.se, "method": interval.method},
    }
    if interval.ci_low is not None and interval.ci_high is not None:
        out["confidence_interval"] = {
            "lower": interval.ci_low,
            "upper": interval.ci_high,
            "confidence_level": interval.confidence,
            "method": interval.method,
        }
    if series.aggregation == MICRO_WEIGHTED:
        sd = interval.se * math.sqrt(interval.n)
        if math.isfinite(sd):  # se finite, sd past the largest float: none
            out["standard_deviation"] = sd
    return out


def _metric_config(series: MetricSeries) -> dict[str, Any]:
    binary = series.kind == BINARY
    display = series.display
    config: dict[str, Any] = {
        "evaluation_description": (display.description if display and display.description
                                   else f"{series.label}, {series.reducer}@{series.k}, "
                                        f"{series.aggregation}"),
        "metric_id": series.series_id,
        "metric_name": series.label,
        "metric_kind": ("pass_rate" if series.reducer == "pass" else "accuracy") if binary
        else "score",
        "metric_parameters": {"k": series.k, "reducer": series.reducer,
                              "aggregation": series.aggregation, "role": series.role},
        "lower_is_better": False,
        "score_type": "continuous",
        "min_score": 0 if binary else None,
        "max_score": 1 if binary else None,
    }  # fmt: skip
    if display and display.unit:
        config["metric_unit"] = display.unit
    return config


def aggregate_record(
    rec: Recomputation,
    run_info: Mapping[str, Any] | None,
    *,
    run_id: str,
    samples: Mapping[str, Any] | None,
    inspector_version: str,
) -> dict[str, Any]:
    """The aggregate EEE record; ``samples`` is its ``detailed_evaluation_results``."""
    info = run_info or {}
    request = info.get("request") if isinstance(info.get("request"), dict) else {}
    plan = rec.plan
    model = plan.model_id or _id(request, "model") or "unknown"
    dataset = plan.benchmark_id or _id(request, "benchmark") or "unknown"
    retrieved = str(int(time.time()))
    started = unix_timestamp(info.get("started_at")) or retrieved
    generation = {"additional_details": _strings({
        "attempts_k": str(plan.k), "attempt_strategy": plan.strategy, "plan": plan.label,
        "derived_plan": plan.derived, "harness": _id(request, "harness"),
    })}  # fmt: skip
    results = []
    for series in rec.report.series:
        score = series.shown_value
        if score is None:
            continue  # no value and no reference value: EEE requires a number
        details = {name: str(count) for name, count in series.counts.to_json().items()}
        details["value_is_reference"] = "true" if series.value is None else "false"
        results.append({
            "evaluation_result_id": series.series_id,
            "evaluation_name": f"{series.series_id} on {dataset}",
            "source_data": {"dataset_name": dataset, "source_type": "other"},
            "evaluation_timestamp": started,
            "metric_config": _metric_config(series),
            "score_details": {"score": score, "details": details,
                              "uncertainty": series_uncertainty(rec, series)},
            "generation_config": generation,
        })  # fmt: skip
    developer = model.split("/", 1)[0] if "/" in model else None
    record: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": f"{dataset}/{model.replace('/', '_')}/{started}",
        "evaluation_timestamp": started,
        "retrieved_timestamp": retrieved,
        "source_metadata": {
            "source_name": LIBRARY,
            "source_type": "evaluation_run",
            "source_organization_name": "unknown",
            "evaluator_relationship": "third_party",
            "additional_details": _strings({
                "run_id": run_id, "status": info.get("status"),
                "recomputed_by": f"agentcompass-inspector {inspector_version}",
            }),
        },
        "eval_library": {"name": LIBRARY, "version": _text(info.get("agentcompass_version"))
                         or "unknown"},
        "model_info": {
            "name": model, "id": model, **({"developer": developer} if developer else {}),
            "additional_details": {"deployment_type": "unknown", "model_availability": "unknown"},
        },
        "evaluation_results": results,
    }  # fmt: skip
    if samples is not None:
        record["detailed_evaluation_results"] = dict(samples)
    return record


# -- instance records ----------------------------------------------------------------------


def _arguments(raw: Any) -> dict[str, str] | None:
    """Tool-call arguments as EEE wants them: an object of strings."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return {"raw": raw}
    if isinstance(raw, dict):
        return {str(key): _text(value) or "" for key, value in raw.items()}
    return None if raw is None else {"raw": _text(raw) or ""}


def _tool_calls(calls: Any) -> list[dict[str, Any]] | None:
    if not isinstance(calls, list) or not calls:
        return None
    out = []
    for call in calls:
        if not isinstance(call, dict):
            continue
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        out.append({"id": _text(call.get("id")) or "", "name": _text(function.get("name")) or "",
                    "arguments": _arguments(function.get("arguments"))})  # fmt: skip
    return out or None


def messages_of(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The trajectory's steps (``ACTF``) as EEE messages, in order."""
    trajectory = payload.get("trajectory")
    steps = trajectory.get("steps") if isinstance(trajectory, dict) else None
    messages: list[dict[str, Any]] = []

    def add(role: str, **fields: Any) -> None:
        messages.append({"turn_idx": len(messages), "role": role, **fields})

    for step in steps if isinstance(steps, list) else []:
        if not isinstance(step, dict):
            continue
        for role, key in (("system", "system_prompt"), ("user", "user_content")):
            if step.get(key):
                add(role, content=_text(step[key]))
        reply = step.get("assistant_content")
        if isinstance(reply, dict):
            add("assistant", content=_text(reply.get("content")),
                reasoning_trace=_text(reply.get("reasoning_content")),
                tool_calls=_tool_calls(reply.get("tool_calls")))  # fmt: skip
        elif reply is not None:
            add("assistant", content=_text(reply))
        observations = step.get("observation")
        for item in observations if isinstance(observations, list) else []:
            if isinstance(item, dict):
                call_id = _text(item.get("source_call_id"))
                add("tool", content=_text(item.get("content")),
                    tool_call_id=[call_id] if call_id else None)  # fmt: skip
    return messages


def _first_user_text(messages: list[dict[str, Any]]) -> str | None:
    return next((m["content"] for m in messages if m["role"] == "user" and m["content"]), None)


def _reference(ground_truth: Any) -> list[str]:
    if ground_truth is None:
        return []
    return [_text(ground_truth) or ""]


def instance_record(
    task: TaskRecord,
    attempt: Attempt,
    payload: Mapping[str, Any],
    *,
    evaluation_id: str,
    evaluation_name: str,
    model_id: str,
    primary: str,
) -> dict[str, Any]:
    """One task attempt as an EEE instance record; ``payload`` is its ``result.json``."""
    messages = messages_of(payload)
    raw = _first_user_text(messages) or task.task_id
    reference = _reference(task.ground_truth)
    observed = attempt.metrics.get(primary)
    score = float(observed) if observed is not None else 0.0
    errors = [issue for issue in attempt.issues if issue.is_error]
    answer = payload.get("final_answer")
    attribution = []
    if isinstance(answer, str) and messages:
        attribution.append({"turn_idx": messages[-1]["turn_idx"], "source": "final_answer",
                            "extracted_value": answer, "extraction_method": "final_answer",
                            "is_terminal": True})  # fmt: skip
    return {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "model_id": model_id,
        "evaluation_name": evaluation_name,
        "sample_id": task.task_id,
        "sample_hash": hashlib.sha256((raw + "".join(reference)).encode("utf-8")).hexdigest(),
        "interaction_type": "agentic",
        "input": {"raw": raw, "reference": reference},
        "output": None,
        "messages": messages,
        "answer_attribution": attribution,
        "evaluation": {
            "score": score,
            # binary metrics: the observation; scalar ones: above zero (as EEE's Inspect
            # converter decides is_correct from a numeric score).
            "is_correct": bool(observed) if observed is not None else False,
            "num_turns": max(1, len(messages)),  # EEE: at least 1 (its converters: 1)
            "tool_calls_count": sum(len(m.get("tool_calls") or ()) for m in messages),
        },
        "error": "\n".join(f"{i.severity} {i.phase} {i.code}: {i.message}" for i in errors) or None,
        "metadata": _strings(
            {
                "epoch": str(attempt.index),
                "category": task.category,
                "status": attempt.status,
                "metrics": dict(attempt.metrics),
                "issues": [[i.severity, i.phase, i.code, i.message] for i in attempt.issues],
                "retry_count": str(task.retry_counts.get(attempt.index, 0)),
            }
        ),
    }
