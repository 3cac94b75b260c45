"""Reference data a benchmark scores with, handed to the engine as plain values.

AgentCompass's frontier_engineering reads three tables shipped in its package when it
aggregates (the medal podium, the rank baseline, the v1-lite task set). The inspector ships
the same figures as package data (``inspector/data/frontier_engineering/``, source and
licence in ``NOTICE``); :mod:`inspector.results.reference` reads them and the plan carries
them here, so the engine itself reads no file.
"""

from __future__ import annotations

from dataclasses import dataclass

# How AgentCompass names the tables' files inside its own package. Its report writes the
# absolute path of its installation; the inspector keeps a stored report's paths and writes
# these when there is none (docs/commands.md, "frontier_engineering").
PODIUM_CSV = "agentcompass/benchmarks/frontier_engineering/data/medal_podium.csv"
BASELINE_CSV = "agentcompass/benchmarks/frontier_engineering/data/rank_baseline.csv"


@dataclass(frozen=True, slots=True)
class FrontierTables:
    """frontier_engineering's reference tables.

    Attributes:
        podium: ``(task, gold, silver, bronze)`` per row of ``medal_podium.csv``, in file
            order (a task named twice keeps its first place and its last thresholds).
        rank_rows: ``(task, model, score)`` per row of ``rank_baseline.csv`` with a task
            (stripped), in file order.
        rank_models: the baseline's model names (non-empty), sorted.
        lite_labels: the v1-lite task set's labels, in order.
        podium_csv / baseline_csv: the provenance written into the report's ``extra``.
    """

    podium: tuple[tuple[str, float, float, float], ...]
    rank_rows: tuple[tuple[str, str, float], ...]
    rank_models: tuple[str, ...]
    lite_labels: tuple[str, ...]
    podium_csv: str = PODIUM_CSV
    baseline_csv: str = BASELINE_CSV
