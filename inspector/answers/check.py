"""A run checked against its stored ``metrics.json``: where they differ, and the
:class:`~inspector.views.run_check.RunCheck` that says so (``check RUN``, and each run of
``check ROOT`` through :mod:`inspector.answers.root`). ``report`` does without it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from inspector.answers.run import Unusable
from inspector.loading import Outputs
from inspector.results.file_io import parse_json
from inspector.results.problems import unreadable
from inspector.views.differences import Difference, metrics_differences
from inspector.views.run_check import DIFFERS, OK, UNUSABLE, RunCheck, headline_of


class NoStoredReport(Unusable):
    """The run was recomputed (:attr:`outputs`) but has no readable metrics.json to check."""

    def __init__(self, message: str, outputs: Outputs) -> None:
        super().__init__(message)
        self.outputs = outputs


def stored_differences(path: str, outputs: Outputs) -> list[Difference]:
    """Where the run's stored metrics.json differs from ``outputs``' recomputation.

    Raises:
        NoStoredReport: the run has no readable metrics.json, or a file or folder of it
            could not be read (its recomputation is of the rest).
    """
    if outputs.stored_metrics_text is None:
        where = Path(path) / "metrics.json"
        raise NoStoredReport(f"{where}: no readable stored metrics.json to check", outputs)
    hidden = [(rel, message) for rel, message in outputs.warnings if unreadable(message)]
    if hidden:  # the recomputation is of what could be read: nothing to judge it by
        rel, message = hidden[0]
        more = f" (and {len(hidden) - 1} more)" if len(hidden) > 1 else ""
        raise NoStoredReport(
            f"{Path(path) / rel}: {message}{more}; part of the run cannot be read, so it is not checked",
            outputs,
        )
    text = outputs.stored_metrics_text
    if text == outputs.metrics_json:
        return []  # as AgentCompass wrote it: nothing to parse
    # Parsed as the reader parses it (orjson, then the standard library).
    stored = parse_json(text.encode("utf-8"))
    return metrics_differences(text, stored, outputs.metrics_json, json.loads(outputs.metrics_json))


def unstored(shown_as: str, problem: str, outputs: Outputs, warnings: tuple[str, ...]) -> RunCheck:
    """The :class:`RunCheck` of a run recomputed without a stored metrics.json: unusable for
    ``check``, with its recomputed headline for the runs screen and the leaderboard."""
    return RunCheck(
        shown_as,
        UNUSABLE,
        problem=problem,
        tasks=outputs.tasks,
        warnings=warnings,
        headline=headline_of(parse_json(outputs.metrics_json.encode("utf-8"))),
    )


def checked(
    shown_as: str, differences: Sequence[Difference], outputs: Outputs, warnings: tuple[str, ...]
) -> RunCheck:
    """The :class:`RunCheck` of a run that could be checked."""
    return RunCheck(
        shown_as,
        DIFFERS if differences else OK,
        differences=tuple((d.where, d.stored, d.recomputed) for d in differences),
        tasks=outputs.tasks,
        warnings=warnings,
        headline=headline_of(parse_json(outputs.metrics_json.encode("utf-8"))),
    )
