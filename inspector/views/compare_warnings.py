"""What makes two sides of a comparison not alike, said in words before any number.

Pure (no textual, no rich, no I/O). :func:`inconsistencies` lists, for two recomputations
(and, for runs, a few facts of each run's files: :func:`run_facts`), the differences that
can explain a delta without any change of the agent: task sets, metric contracts, plans,
benchmark params, the AgentCompass layout that wrote the run, and the reproducibility data
of ``report.extra`` (dataset revision, benchmark version, scoring). Each is one sentence;
values are quoted whole or counted, never a Python repr cut in the middle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspector.engine.recomputation import Recomputation
from inspector.engine.vocabulary import plural
from inspector.results.reader import Run

LISTED = 4
"""A list in a warning names this many items, then says how many more."""
WORD_CHARS = 60
"""A value longer than this is named by its length, not quoted."""


def run_facts(run: Run) -> dict[str, str]:
    """What a run's own files say about how it was made: the harness and the layout
    (``run_info.json`` schema: ``agentcompass.run_info.v2`` was written by AgentCompass
    before 1.0, v3 by 1.0 and later; 1.0.1 records no version number of its own)."""
    facts: dict[str, str] = {}
    for source in (run.request, run.params or {}):
        value = source.get("harness") if isinstance(source, Mapping) else None
        if isinstance(value, Mapping):
            value = value.get("id")
        if isinstance(value, str) and value.strip():
            facts["harness"] = value.strip()
            break
    schema = (run.run_info or {}).get("schema_version")
    if isinstance(schema, str):
        facts["run_info schema (AgentCompass version)"] = schema
    return facts


def words(value: Any) -> str:
    """A value in words: a string quoted whole, a number as is, a list or mapping counted."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return f"“{value}”" if len(value) <= WORD_CHARS else f"a {len(value)}-character text"
    if isinstance(value, Mapping):
        return f"a mapping of {len(value)} keys" if value else "an empty mapping"
    if isinstance(value, Sequence):
        return f"a list of {len(value)}" if value else "an empty list"
    return type(value).__name__


def listed(items: Sequence[str]) -> str:
    """``a, b, c, d and 3 more``."""
    shown = ", ".join(items[:LISTED])
    rest = len(items) - LISTED
    return f"{shown} and {rest} more" if rest > 0 else shown


def _task_sets(a: Recomputation, b: Recomputation) -> list[str]:
    ids_a = {t.task_id for t in a.tasks}
    ids_b = {t.task_id for t in b.tasks}
    if ids_a == ids_b:
        return []
    both = len(ids_a & ids_b)
    only_a, only_b = len(ids_a - ids_b), len(ids_b - ids_a)
    return [
        f"different task sets: {plural(only_a, 'task')} only in A, "
        f"{only_b} only in B, {both} in both — the values are over different tasks"
    ]


def _contracts(a: Recomputation, b: Recomputation) -> list[str]:
    ca, cb = a.plan.contract, b.plan.contract
    out = []
    if ca.primary_id != cb.primary_id:
        out.append(f"different primary metrics: {ca.primary_id} in A, {cb.primary_id} in B")
    only_a = [m for m in ca.metrics if m not in cb.metrics]
    only_b = [m for m in cb.metrics if m not in ca.metrics]
    if only_a or only_b:
        parts = [f"only in {s}: {listed(ms)}" for s, ms in (("A", only_a), ("B", only_b)) if ms]
        out.append("different metric contracts: metrics " + "; ".join(parts))
    kinds = [m for m in ca.metrics if m in cb.metrics and ca.metrics[m].kind != cb.metrics[m].kind]
    for m in kinds:
        out.append(f"metric {m} is {ca.metrics[m].kind} in A but {cb.metrics[m].kind} in B")
    return out


def _plans(a: Recomputation, b: Recomputation) -> list[str]:
    pa, pb = a.plan, b.plan
    parts = []
    if pa.k != pb.k:
        parts.append(f"k={pa.k} in A, k={pb.k} in B")
    if pa.strategy != pb.strategy:
        parts.append(f"strategy {pa.strategy} in A, {pb.strategy} in B")
    if a.report.aggregation != b.report.aggregation:
        parts.append(f"aggregation {a.report.aggregation} in A, {b.report.aggregation} in B")
    elif (pa.hierarchy or None) != (pb.hierarchy or None):
        parts.append("the category hierarchies differ")
    return [f"different plans: {'; '.join(parts)}"] if parts else []


def _mapping_differences(what: str, fa: Mapping[str, Any], fb: Mapping[str, Any]) -> list[str]:
    keys = sorted(set(fa) | set(fb), key=str)
    parts = []
    for key in keys:
        if key not in fb:
            parts.append(f"{key} set only in A ({words(fa[key])})")
        elif key not in fa:
            parts.append(f"{key} set only in B ({words(fb[key])})")
        elif fa[key] != fb[key]:
            parts.append(f"{key} is {words(fa[key])} in A, {words(fb[key])} in B")
    if not parts:
        return []
    more = len(parts) - LISTED
    shown = "; ".join(parts[:LISTED]) + (f"; and {more} more" if more > 0 else "")
    return [f"different {what}: {shown}"]


def inconsistencies(
    a: Recomputation,
    b: Recomputation,
    facts: tuple[Mapping[str, str], Mapping[str, str]] = ({}, {}),
    *,
    same_run: bool = False,
) -> list[str]:
    """Every way the two sides are not alike, one sentence each (``same_run``: two plans
    of one run, which share everything but the plan: only the plan is said, elsewhere)."""
    if same_run:
        return []
    out = _task_sets(a, b) + _contracts(a, b) + _plans(a, b)
    if a.plan.benchmark_id != b.plan.benchmark_id:
        out.append(f"different benchmarks: {words(a.plan.benchmark_id)} in A, "
                   f"{words(b.plan.benchmark_id)} in B")  # fmt: skip
    out += _mapping_differences("benchmark params", a.plan.benchmark_params, b.plan.benchmark_params)
    fa, fb = facts
    schema = "run_info schema (AgentCompass version)"
    if schema in fa and schema in fb and fa[schema] != fb[schema]:
        out.append(
            f"written by different AgentCompass versions: run_info schema {fa[schema]} in A, "
            f"{fb[schema]} in B"
        )
    out += _mapping_differences(
        "reproducibility data (report.extra: dataset revision, benchmark version, scoring)",
        a.report.extra, b.report.extra,
    )  # fmt: skip
    return out
