"""The leaderboard's ties (:mod:`inspector.views.ties`), each column kept for its root in the
store under a question naming every input: the plan, the benchmark, and per model the run
shown, its headline series and the state of its files (:func:`inspector.loading.state`).
A column of unchanged runs is answered from there, without reading them again and without
the statistics (numpy, scipy) the comparisons need.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace

from inspector import loading
from inspector.answers.kept import KeptSide
from inspector.overrides import Overrides
from inspector.views.leaderboard import Leaderboard
from inspector.views.ties import ColumnTies


def _plain(ties: ColumnTies) -> ColumnTies:
    """``ties`` with plain floats (a statistic may be numpy's), as the store keeps it and
    gives it back (decoded as :class:`~inspector.views.ties.ColumnTies`)."""
    pairs = tuple(
        replace(p, delta=float(p.delta), p_holm=float(p.p_holm), separated=bool(p.separated),
                p_value=None if p.p_value is None else float(p.p_value))
        for p in ties.pairs
    )  # fmt: skip
    return replace(ties, pairs=pairs, alpha=float(ties.alpha))


def _question(
    overrides: Overrides | None, benchmark: str, shown: list[tuple[str, str, str, str]]
) -> str | None:
    """The question a column's ties answer: ``shown`` is (model, run, series, state) per
    model compared."""
    return loading.question_key(overrides, json.dumps(["ties v1", benchmark, shown]))


def board_ties(
    board: Leaderboard,
    overrides: Overrides | None,
    root: str | None = None,
    states: Mapping[str, str | None] | None = None,
    sides: Mapping[str, KeptSide] | None = None,
) -> Leaderboard:
    """``board`` with the ties of each benchmark column: from each shown run's headline
    tasks kept in ``sides`` (by its name under the root, of the state in ``states``),
    else the run each cell shows read again (one column's runs at a time) for its
    headline's task values. A run that cannot be scored now leaves the comparisons of its
    column. With ``root`` and ``states`` (each run's :func:`~inspector.loading.state` by
    its name under the root, as its check just found it), a column whose runs are all as
    they were is answered from the store, and one computed is kept there."""
    found, keep = {}, {}
    sides = sides or {}
    for benchmark in board.benchmarks:
        cells = [(m, board.cell(m, benchmark)) for m in board.models]
        shown = [(m, c) for m, c in cells if c is not None and c.run.recomputed is not None
                 and c.run.recomputed.value is not None]  # fmt: skip
        if sum(c is not None and c.value is not None for _, c in cells) < 2:
            continue  # nothing to compare: no run is read
        named = [
            (m, c.run.summary.relative, c.run.recomputed.series_id,  # type: ignore[union-attr]
             (states or {}).get(c.run.summary.relative))
            for m, c in shown
        ]  # fmt: skip
        question = None
        if root is not None and all(state is not None for *_, state in named):
            question = _question(overrides, benchmark, named)  # type: ignore[arg-type]
        kept = loading.kept_for_root(root, question, ColumnTies) if question else None
        if isinstance(kept, ColumnTies):
            found[benchmark] = kept
            continue
        kept_sides = {m: sides.get(relative) for m, relative, *_ in named}
        if question is not None and None not in kept_sides.values():
            ties, read = _kept_column(benchmark, kept_sides), [state for *_, state in named]
        else:
            ties, read = _column(benchmark, shown, overrides)
        if ties is not None:
            found[benchmark] = ties
            if question is not None and read == [state for *_, state in named]:
                keep[question] = _plain(ties)
    if root is not None and keep:
        loading.keep_for_root(root, keep)
    return board.with_ties(found)


def _kept_column(benchmark: str, sides: Mapping[str, KeptSide | None]) -> ColumnTies | None:
    """The column's ties from its runs' headline tasks as their reads kept them."""
    from inspector.views.ties import ties_of_runs

    return ties_of_runs(benchmark, {m: s.side() for m, s in sides.items() if s is not None})


def _column(
    benchmark: str, shown: list[tuple[str, object]], overrides: Overrides | None
) -> tuple[ColumnTies | None, list[str | None]]:
    """The column's ties from its runs read now, and the state each was read in (None for
    a run left out)."""
    from inspector.views.side_tasks import side_tasks
    from inspector.views.ties import ties_of_runs

    runs, read = {}, []
    for model, cell in shown:
        headline = cell.run.recomputed  # type: ignore[attr-defined]
        result = loading.read(str(cell.run.summary.path), overrides)  # type: ignore[attr-defined]
        if not isinstance(result, loading.Loaded) or result.refusal is not None:
            read.append(None)
            continue
        rec = result.session.recomputation
        series = next((s for s in rec.report.series if s.series_id == headline.series_id),
                      None) if rec is not None else None  # fmt: skip
        side = side_tasks(rec, series) if rec is not None and series is not None else None
        if side is not None:
            runs[model] = side
            read.append(loading.state_read(result.session))
        else:
            read.append(None)
    return ties_of_runs(benchmark, runs), read
