"""The leaderboard: models × benchmarks from the recomputed runs of a results root.

One cell per (model, benchmark): the recomputed headline of the newest finished run
(status ``completed``; when none finished, the newest run, marked with its status), its
error / unavailable / invalidated counts, every run behind the cell (newest first) and
whether any of them fails the check. Exports as CSV, Markdown or JSON. Pure: no textual,
no rich.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.engine import strict_json
from inspector.views.csv_cells import csv_writer
from inspector.views.run_check import DIFFERS, UNSTORED, UNUSABLE
from inspector.views.runs_view import PENDING, RunRow
from inspector.views.ties import ColumnTies, Standing
from inspector.views.visible import markdown_literal

FINISHED = "completed"
FORMATS = ("csv", "markdown", "json")
NONE = "-"
"""A model or benchmark a run does not name."""


@dataclass(frozen=True)
class Cell:
    """The runs of one model on one benchmark, newest first."""

    model: str
    benchmark: str
    runs: tuple[RunRow, ...]
    chosen: int = 0
    """Which run the cell shows (an index into :attr:`runs`)."""

    @property
    def run(self) -> RunRow:
        return self.runs[self.chosen]

    @property
    def newest_finished(self) -> int:
        """The newest run with status ``completed``, else the newest run."""
        return next((i for i, r in enumerate(self.runs) if r.summary.status == FINISHED), 0)

    @property
    def value(self) -> float | None:
        headline = self.run.recomputed
        return headline.value if headline is not None else None

    @property
    def failing(self) -> tuple[RunRow, ...]:
        """The runs behind the cell whose stored metrics.json fails the check."""
        return tuple(r for r in self.runs if r.check_state in (DIFFERS, UNUSABLE))

    @property
    def pending(self) -> bool:
        return any(r.check_state == PENDING for r in self.runs)

    def counts(self) -> dict[str, int] | None:
        headline = self.run.recomputed
        if headline is None:
            return None
        return {name: headline.count(name) for name in ("error", "unavailable", "invalidated")}

    def showing(self, index: int) -> Cell:
        return Cell(self.model, self.benchmark, self.runs, index % len(self.runs))


@dataclass(frozen=True)
class Leaderboard:
    models: tuple[str, ...]
    benchmarks: tuple[str, ...]
    cells: dict[tuple[str, str], Cell]
    ties: Mapping[str, ColumnTies] = field(default_factory=dict)
    """The ties of each benchmark column (:mod:`inspector.views.ties`), for the runs the
    cells show; a column is absent until they are computed (or with fewer than 2 models)."""

    def cell(self, model: str, benchmark: str) -> Cell | None:
        return self.cells.get((model, benchmark))

    def standing(self, model: str, benchmark: str) -> Standing | None:
        """The model's rank interval and groups in the column (None: not computed)."""
        ties = self.ties.get(benchmark)
        return ties.standings.get(model) if ties is not None else None

    def with_cell(self, cell: Cell) -> Leaderboard:
        """The board with ``cell`` shown instead; its column's ties, computed for the
        runs shown before, are dropped when the cell shows another run."""
        cells = dict(self.cells)
        cells[(cell.model, cell.benchmark)] = cell
        ties = dict(self.ties)
        old = self.cells.get((cell.model, cell.benchmark))
        if old is None or old.run is not cell.run:
            ties.pop(cell.benchmark, None)
        return Leaderboard(self.models, self.benchmarks, cells, ties)

    def with_ties(self, ties: Mapping[str, ColumnTies]) -> Leaderboard:
        return Leaderboard(self.models, self.benchmarks, self.cells, dict(ties))


def build(rows: Sequence[RunRow]) -> Leaderboard:
    """The leaderboard of ``rows`` (newest first, as the runs screen lists them)."""
    grouped: dict[tuple[str, str], list[RunRow]] = {}
    for row in rows:
        key = (row.summary.model or NONE, row.summary.benchmark or NONE)
        grouped.setdefault(key, []).append(row)
    cells = {}
    for (model, benchmark), runs in grouped.items():
        cell = Cell(model, benchmark, tuple(runs))
        cells[(model, benchmark)] = cell.showing(cell.newest_finished)
    models = tuple(sorted({m for m, _ in cells}, key=str.casefold))
    benchmarks = tuple(sorted({b for _, b in cells}, key=str.casefold))
    return Leaderboard(models, benchmarks, cells)


# -- export -------------------------------------------------------------------------------


def records(board: Leaderboard) -> list[dict[str, Any]]:
    """One record per cell (model, benchmark order): what every export holds."""
    out = []
    for model in board.models:
        for benchmark in board.benchmarks:
            cell = board.cell(model, benchmark)
            if cell is None:
                continue
            run = cell.run
            headline = run.recomputed
            out.append(
                {
                    "model": model,
                    "benchmark": benchmark,
                    "run": run.summary.relative,
                    "status": run.summary.status,
                    "series_id": headline.series_id if headline else run.summary.headline_series_id,
                    "value": cell.value,
                    "is_reference": headline.is_reference if headline else None,
                    "stored_value": run.summary.headline_value,
                    "check": run.check_state,
                    "counts": cell.counts(),
                    "runs": len(cell.runs),
                    "failing_runs": [r.summary.relative for r in cell.failing],
                    **tie_record(board.ties.get(benchmark), model),
                }
            )
    return out


def tie_record(ties: ColumnTies | None, model: str) -> dict[str, Any]:
    """``rank_low`` / ``rank_high`` / ``rank`` (``#1–3``) / ``group`` (letters: models
    sharing one are not separated) / ``tied_with`` / ``pairs`` (this model's comparisons
    in its column) / ``ties_method``; null where the column has no ties."""
    standing = ties.standings.get(model) if ties is not None else None
    if ties is None or standing is None:
        return {"rank_low": None, "rank_high": None, "rank": None, "group": None,
                "tied_with": None, "pairs": None, "ties_method": None}  # fmt: skip
    pairs = [
        {"other": p.worse if p.better == model else p.better,
         "delta": p.delta if p.better == model else -p.delta,
         "p_value": p.p_value, "p_holm": p.p_holm, "separated": p.separated}
        for p in ties.pairs if model in (p.better, p.worse)
    ]  # fmt: skip
    return {
        "rank_low": standing.rank_low, "rank_high": standing.rank_high,
        "rank": standing.rank_text, "group": standing.groups,
        "tied_with": list(standing.tied_with), "pairs": pairs, "ties_method": ties.method,
    }  # fmt: skip


def export(board: Leaderboard, fmt: str) -> str:
    """The table as ``csv`` (one line per cell), ``markdown`` (models × benchmarks) or
    ``json`` (a list of cell records)."""
    if fmt == "json":
        return strict_json.dumps(records(board), ensure_ascii=False, indent=2) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv_writer(buffer)
        columns = ["model", "benchmark", "run", "status", "series_id", "value", "is_reference",
                   "stored_value", "check", "error", "unavailable", "invalidated", "runs",
                   "failing_runs", "rank_low", "rank_high", "group"]  # fmt: skip
        writer.writerow(columns)
        for record in records(board):
            counts = record["counts"] or {}
            writer.writerow(
                [
                    *(_csv(record[c]) for c in columns[:9]),
                    *(_csv(counts.get(n)) for n in ("error", "unavailable", "invalidated")),
                    record["runs"],
                    " ".join(record["failing_runs"]),
                    *(_csv(record[c]) for c in ("rank_low", "rank_high", "group")),
                ]
            )
        return buffer.getvalue()
    if fmt == "markdown":
        return markdown(board)
    raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")


def _csv(value: Any) -> Any:
    return "" if value is None else value


def cell_text(cell: Cell | None, *, counts: bool = True, short: bool = False) -> str:
    """``0.5000 ✓ e2 u0 i1 (failed)`` (``≠`` / ``!`` when a run behind the cell fails the
    check, ``…`` while one is being recomputed, ``ref`` for a reference value; the status
    when the run shown did not finish). Without ``counts``: the value and marks only;
    ``short`` (a narrow screen): also ``ʳ`` for ``ref`` (as the category tree marks a
    reference value) and ``0.5000 …`` for a stored value not yet recomputed."""
    if cell is None:
        return ""
    run = cell.run
    if run.check is None:
        stored = run.summary.headline_value
        if stored is None:
            return "…"
        return f"{stored:.4f} …" if short else f"{stored:.4f} stored …"
    value = cell.value
    text = "-" if value is None else f"{value:.4f}"
    if run.recomputed is not None and run.recomputed.is_reference:
        text += "ʳ" if short else " ref"
    states = {r.check_state for r in cell.runs}
    text += (
        " !" if UNUSABLE in states
        else " ≠" if DIFFERS in states
        else " ∅" if UNSTORED in states
        else " ✓"
    )  # fmt: skip
    if PENDING in states:
        text += "…"
    if short:
        return text
    numbers = cell.counts() if counts else None
    if numbers is not None:
        text += f" e{numbers['error']} u{numbers['unavailable']} i{numbers['invalidated']}"
    if counts and run.summary.status != FINISHED:
        text += f" ({run.summary.status or 'no status'})"
    return text


def markdown(board: Leaderboard) -> str:
    """Models × benchmarks as a Markdown table (names as they are once rendered)."""
    lines = [
        "| model | " + " | ".join(markdown_literal(b) for b in board.benchmarks) + " |",
        "|---|" + "---|" * len(board.benchmarks),
    ]
    for model in board.models:
        cells = [markdown_literal(_ranked(board, model, b)) for b in board.benchmarks]
        lines.append(f"| {markdown_literal(model)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _ranked(board: Leaderboard, model: str, benchmark: str) -> str:
    """The cell's text, then its rank interval and group letters where the column has
    ties: ``0.5000 ✓ e0 u0 i0 #1–3 (ab)``."""
    text = cell_text(board.cell(model, benchmark))
    standing = board.standing(model, benchmark)
    if standing is None or not text:
        return text
    return f"{text} {standing.rank_text} ({standing.groups})"
