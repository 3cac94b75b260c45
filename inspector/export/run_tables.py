"""The tables of one recomputed run: ``runs``, ``series``, ``tasks``, ``attempts``,
``issues`` and ``pass_curves``. ``inspector export --format parquet`` writes them, ``inspector sql`` queries them
and :mod:`inspector.api` hands them out as objects and DataFrames: one set of row builders,
so that the three never disagree. Every number is the engine's (the recomputation), never
a stored ``metrics.json``'s; the intervals are :mod:`inspector.views.run_stats`'s, as
``inspector stats`` prints them.

Every table ends with the three columns ``path`` (the run's folder under the results root,
``.`` for a run on its own: run ids need not be unique in a root, paths are, so tables are
joined on ``path``), ``benchmark`` and ``model`` (the plan's ids, ``-`` when the run names
none). The last two are the keys a root's Parquet dataset is partitioned by
(``<table>/benchmark=…/model=…/<run>.parquet``, Hive style), so that a table read back
with ``hive_partitioning`` has the same columns as the one-run files and the SQL views.

``runs`` — one row per run:

| column | type | meaning |
|---|---|---|
| run_id | string | ``run_info.run_id`` (else the folder name) |
| k, strategy, aggregation | int64, string, string | the plan scored with |
| derived | string, null | a what-if plan's description (null: the run's own plan) |
| evaluation_failed | bool | the report's ``evaluation_failed`` |
| tasks | int64 | tasks recomputed |
| headline_series_id | string, null | the series whose ``role`` is ``headline`` |
| headline_value, headline_reference_value | float64, null | its value / reference value |

``series`` — one row per series and scope (the series itself, each category, each
hierarchy node), in the report's order:

| column | type | meaning |
|---|---|---|
| run_id, series_id, metric_id, kind, reducer, role, aggregation | string | as metrics.json |
| scope | string | ``series``, ``category`` or ``hierarchy`` |
| key | string, null | the category key or hierarchy path (null for ``series``) |
| k | int64 | the series' k |
| value, reference_value | float64, null | as metrics.json |
| total, evaluated, error, unavailable, invalidated | int64 | the five counts |
| estimate, se, ci_low, ci_high, df | float64, null | the interval (``inspector stats``) |
| n | int64 | tasks behind the interval |
| confidence | float64 | 0.95 |
| interval_method | string | how the interval was made, or why there is none |

``issues`` — one row per issue of a terminal attempt: ``run_id``, ``task_id``, ``attempt``
(int64), ``severity``, ``phase``, ``code``, ``message`` (strings, the message as written).

``pass_curves`` — Chen et al.'s unbiased pass@j and pass^j for j = 1..k of each binary
metric, with the interval ``inspector stats`` gives them (no rows for k = 1 or a plan that
stops attempts early): ``run_id``, ``metric_id``, ``curve`` (``pass@`` / ``pass^``), ``j``,
``k``, ``tasks`` (tasks with all k observations), ``excluded``, then ``estimate``, ``n``,
``se``, ``ci_low``, ``ci_high``, ``confidence``, ``df``, ``interval_method`` as in ``series``.

``tasks`` and ``attempts``: :mod:`inspector.export.tables`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from inspector.engine.recomputation import Recomputation
from inspector.export.tables import attempt_rows, task_rows
from inspector.views.attempt_stats import pass_curves
from inspector.views.audit import task_filter
from inspector.views.run_stats import ScopeStats, series_stats
from inspector.views.task_rows import task_json

if TYPE_CHECKING:  # pragma: no cover
    from inspector.session import Session

TABLES = ("runs", "series", "tasks", "attempts", "issues", "pass_curves")
"""The tables, in the order they are written and listed."""
KEYS = ("benchmark", "model")
"""The last two columns of every table: a root's Parquet dataset is partitioned by them."""
UNNAMED = "-"
"""A benchmark or model a run does not name (as the leaderboard shows it)."""


def keys_of(rec: Recomputation) -> dict[str, str]:
    """The partition keys of a run: its plan's benchmark and model ids."""
    plan = rec.plan
    return {"benchmark": plan.benchmark_id or UNNAMED, "model": plan.model_id or UNNAMED}


def run_tables(session: Session, path: str = ".") -> dict[str, list[dict[str, Any]]]:
    """Every table of one recomputed run (``path``: its folder under the root), each row
    ending with ``path`` and :data:`KEYS`."""
    rec = session.recomputation
    assert rec is not None
    run_id = session.run.run_id
    tables = {
        "runs": [run_row(run_id, rec)],
        "series": list(series_rows(run_id, rec)),
        "tasks": task_rows(run_id, (task_json(t) for t in all_task_rows(rec))),
        "attempts": attempt_rows(run_id, rec),
        "issues": list(issue_rows(run_id, rec)),
        "pass_curves": list(pass_rows(run_id, rec)),
    }
    keys = {"path": path, **keys_of(rec)}
    for rows in tables.values():
        for row in rows:
            row.update(keys)
    return tables


def all_task_rows(rec: Recomputation) -> Iterator[Any]:
    """Every series' task rows in report order: ``inspector tasks --series all``."""
    for series in rec.report.series:
        yield from task_filter(rec, series.series_id)


def run_row(run_id: str, rec: Recomputation) -> dict[str, Any]:
    report, plan = rec.report, rec.plan
    headline = next((s for s in report.series if s.role == "headline"), None)
    return {
        "run_id": run_id, "k": plan.k, "strategy": plan.strategy,
        "aggregation": report.aggregation, "derived": plan.derived,
        "evaluation_failed": report.evaluation_failed, "tasks": len(rec.tasks),
        "headline_series_id": None if headline is None else headline.series_id,
        "headline_value": None if headline is None else headline.value,
        "headline_reference_value": None if headline is None else headline.reference_value,
    }  # fmt: skip


def series_rows(run_id: str, rec: Recomputation) -> Iterator[dict[str, Any]]:
    """The series, then its categories and hierarchy nodes, each with its interval."""
    for series in rec.report.series:
        stats = series_stats(rec, series)
        common = {
            "run_id": run_id, "series_id": series.series_id, "metric_id": series.metric_id,
            "kind": series.kind, "reducer": series.reducer, "role": series.role,
            "aggregation": series.aggregation, "k": series.k,
        }  # fmt: skip
        yield _scope_row(common, "series", None, series, stats.own)
        intervals = {s.key: s for s in stats.categories}
        for key, part in series.categories.items():
            yield _scope_row(common, "category", key, part, intervals[key])
        intervals = {s.key: s for s in stats.hierarchy}
        for key, part in series.hierarchy.items():
            yield _scope_row(common, "hierarchy", key, part, intervals[key])


def _scope_row(
    common: dict[str, Any], scope: str, key: str | None, part: Any, stats: ScopeStats
) -> dict[str, Any]:
    counts, interval = part.counts, stats.interval
    return {
        **common, "scope": scope, "key": key, "value": part.value,
        "reference_value": part.reference_value, "total": counts.total,
        "evaluated": counts.evaluated, "error": counts.error, "unavailable": counts.unavailable,
        "invalidated": counts.invalidated, **_interval(interval),
    }  # fmt: skip


def issue_rows(run_id: str, rec: Recomputation) -> Iterator[dict[str, Any]]:
    for task in rec.tasks:
        for index in sorted(task.attempts):
            for issue in task.attempts[index].issues:
                yield {
                    "run_id": run_id, "task_id": task.task_id, "attempt": index,
                    "severity": issue.severity, "phase": issue.phase, "code": issue.code,
                    "message": issue.message,
                }  # fmt: skip


def pass_rows(run_id: str, rec: Recomputation) -> Iterator[dict[str, Any]]:
    for c in pass_curves(rec):
        for curve, points in (("pass@", c.pass_at), ("pass^", c.pass_hat)):
            for j, point in enumerate(points, 1):
                yield {
                    "run_id": run_id, "metric_id": c.metric_id, "curve": curve, "j": j,
                    "k": c.k, "tasks": c.tasks, "excluded": c.excluded, **_interval(point),
                }  # fmt: skip


def _interval(interval: Any) -> dict[str, Any]:
    return {
        "estimate": interval.estimate, "n": interval.n, "se": interval.se,
        "ci_low": interval.ci_low, "ci_high": interval.ci_high,
        "confidence": interval.confidence, "df": interval.df,
        "interval_method": interval.method,
    }  # fmt: skip


def schemas() -> dict[str, Any]:
    """The pyarrow schema of each table (the optional parquet extra); a schema's column
    order is its table's."""
    import pyarrow as pa

    from inspector.export.tables import table_schemas

    text, flag, count, number = pa.string(), pa.bool_(), pa.int64(), pa.float64()
    interval = [
        ("estimate", number), ("n", count), ("se", number), ("ci_low", number),
        ("ci_high", number), ("confidence", number), ("df", number), ("interval_method", text),
    ]  # fmt: skip
    runs = [
        ("run_id", text), ("k", count), ("strategy", text),
        ("aggregation", text), ("derived", text), ("evaluation_failed", flag), ("tasks", count),
        ("headline_series_id", text), ("headline_value", number),
        ("headline_reference_value", number),
    ]  # fmt: skip
    series = [
        ("run_id", text), ("series_id", text), ("scope", text), ("key", text),
        ("metric_id", text), ("kind", text), ("reducer", text), ("role", text),
        ("aggregation", text), ("k", count), ("value", number), ("reference_value", number),
        ("total", count), ("evaluated", count), ("error", count), ("unavailable", count),
        ("invalidated", count), *interval,
    ]  # fmt: skip
    issues = [
        ("run_id", text), ("task_id", text), ("attempt", count), ("severity", text),
        ("phase", text), ("code", text), ("message", text),
    ]  # fmt: skip
    curves = [
        ("run_id", text), ("metric_id", text), ("curve", text), ("j", count), ("k", count),
        ("tasks", count), ("excluded", count), *interval,
    ]  # fmt: skip
    tasks, attempts = table_schemas()
    keys = [(name, text) for name in ("path", *KEYS)]
    return {
        "runs": pa.schema(runs + keys),
        "series": pa.schema(series + keys),
        "tasks": pa.schema(tasks + keys),
        "attempts": pa.schema(attempts + keys),
        "issues": pa.schema(issues + keys),
        "pass_curves": pa.schema(curves + keys),
    }


def arrow_tables(tables: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The tables as pyarrow Tables of :func:`schemas` (the optional parquet extra)."""
    kinds = schemas()
    import pyarrow as pa

    return {name: pa.Table.from_pylist(tables[name], schema=kinds[name]) for name in TABLES}
