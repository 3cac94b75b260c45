"""The reference tables the inspector ships for benchmarks that score with them.

frontier_engineering's medal podium, rank baseline and v1-lite task set are AgentCompass
1.0.1's own figures (Apache-2.0; ``NOTICE``), shipped as package data under
``inspector/data/frontier_engineering/`` with ``#`` comment lines naming their source. They
are read here, once per process, and handed to the engine through the plan
(:attr:`inspector.engine.plan.Plan.reference`).

The paths AgentCompass writes into ``extra`` (``podium_csv``, ``baseline_csv``) name its
own installation: provenance, not a value. A stored metrics.json's paths are kept; without
one the tables are named as AgentCompass's package names them
(:data:`inspector.engine.reference.PODIUM_CSV`).
"""

from __future__ import annotations

import csv
import functools
import io
from collections.abc import Mapping
from dataclasses import replace
from importlib import resources
from typing import Any

from inspector.engine.errors import PlanError
from inspector.engine.reference import BASELINE_CSV, PODIUM_CSV, FrontierTables

FOLDER = "data/frontier_engineering"


def _lines(name: str) -> list[str]:
    """A data file's lines without its ``#`` header, or a refusal naming the file."""
    path = f"inspector/{FOLDER}/{name}"
    try:
        text = resources.files("inspector").joinpath(FOLDER, name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PlanError(f"{path}: the inspector's reference table cannot be read: {exc}") from None
    return [line for line in text.splitlines() if not line.startswith("#")]


def _rows(name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO("\n".join(_lines(name)) + "\n")))


@functools.cache
def frontier_tables() -> FrontierTables:
    """The three tables, parsed (a refusal naming the file if one is missing or malformed)."""
    try:
        podium = {
            row["Task"]: (float(row["Gold"]), float(row["Silver"]), float(row["Bronze"]))
            for row in _rows("medal_podium.csv")
        }
        rank_rows = _rows("rank_baseline.csv")
        baseline = tuple(
            (row["task"].strip(), row["model"], float(row["score"]))
            for row in rank_rows
            if (row.get("task") or "").strip()
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise PlanError(f"inspector/{FOLDER}: a reference table is malformed: {exc!r}") from None
    return FrontierTables(
        podium=tuple((task, *thresholds) for task, thresholds in podium.items()),
        rank_rows=baseline,
        rank_models=tuple(sorted({row["model"] for row in rank_rows if row.get("model")})),
        lite_labels=tuple(line.strip() for line in _lines("v1_lite_tasks.txt") if line.strip()),
    )


def _stored_path(stored: Mapping[str, Any] | None, table: str, key: str) -> str | None:
    """The first path of ``key`` in the stored ``extra[table][reducer]``, if any."""
    extra = stored.get("extra") if isinstance(stored, Mapping) else None
    entries = extra.get(table) if isinstance(extra, Mapping) else None
    for entry in entries.values() if isinstance(entries, Mapping) else ():
        if isinstance(entry, Mapping) and isinstance(entry.get(key), str):
            return str(entry[key])
    return None


def reference_for(
    benchmark_id: str, stored_metrics: Mapping[str, Any] | None
) -> FrontierTables | None:
    """The reference tables ``benchmark_id`` scores with (None: it needs none), their
    provenance taken from the stored metrics.json when it names them."""
    if benchmark_id != "frontier_engineering":
        return None
    tables = frontier_tables()
    podium = _stored_path(stored_metrics, "frontier_engineering_medal", "podium_csv")
    baseline = _stored_path(stored_metrics, "frontier_engineering_rank", "baseline_csv")
    return replace(
        tables,
        podium_csv=podium if podium is not None else PODIUM_CSV,
        baseline_csv=baseline if baseline is not None else BASELINE_CSV,
    )
