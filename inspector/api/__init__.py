"""The inspector from Python: a run or a results root, recomputed, as plain objects and
DataFrames.

    from inspector.api import open_root

    root = open_root("results/")
    frame = root.tasks.to_frame()                 # pandas (the ``frames`` extra)
    frame = root.series.to_frame(kind="polars")   # or polars

:func:`open_run` and :func:`open_root` read runs through the same door as the command line
(:func:`inspector.answers.run.load_session`: the same cache, the same refusals, the same plan),
and hand out the tables of :mod:`inspector.export.run_tables` — ``runs``, ``series``
(values, the five counts and the intervals of every series, category and hierarchy node),
``tasks``, ``attempts``, ``issues`` and ``pass_curves`` (pass@j and pass^j with intervals)
— each a :class:`~inspector.api.table.Table` of frozen row objects
(:mod:`inspector.api.rows`) whose fields are the table's columns: the rows ``inspector export --format parquet`` writes and
``inspector sql`` queries, never a second aggregation. ``Run.report`` is the recomputed
``metrics.json`` (what ``inspector report --json`` prints), parsed.

A run that cannot be used raises :class:`InspectorError`, whose ``str()`` is the command
line's one-line message naming the file. Under a root, such a run is left out and its line
kept in :attr:`Root.problems` (as ``inspector check ROOT`` reports it); warnings are kept
in ``warnings`` (the lines the command line prints on stderr), never printed. pandas,
polars and pyarrow are imported by ``Table.to_frame`` only
(``pip install 'agentcompass-inspector[frames]'``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from inspector.answers.run import Unusable, load_session
from inspector.api.rows import (
    ROW_TYPES,
    AttemptRow,
    IssueRow,
    PassRow,
    RunRow,
    SeriesRow,
    TaskRow,
)
from inspector.api.table import InspectorError, Table
from inspector.engine.errors import EngineError, HierarchyError
from inspector.export.run_tables import TABLES, run_tables
from inspector.loading import is_url
from inspector.results.problems import RunReadError
from inspector.results.root_walk import walk_root

__all__ = [
    "AttemptRow", "InspectorError", "IssueRow", "PassRow", "Root", "Run", "RunRow", "SeriesRow",
    "Table", "TaskRow", "open_root", "open_run",
]  # fmt: skip


def _table(name: str, rows: list[dict[str, Any]]) -> Table[Any]:
    make = ROW_TYPES[name]
    return Table(name, [make(**{k: _frozen(v) for k, v in row.items()}) for row in rows])


def _frozen(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


@dataclass(frozen=True)
class Run:
    """One recomputed run: its ``path`` (as given; under a root, the run's folder), its
    ``report`` (metrics.json as ``report --json`` prints it, parsed) and its tables."""

    path: str
    report: Mapping[str, Any]
    run: RunRow
    series: Table[SeriesRow]
    tasks: Table[TaskRow]
    attempts: Table[AttemptRow]
    issues: Table[IssueRow]
    pass_curves: Table[PassRow]
    warnings: tuple[str, ...] = ()

    @property
    def runs(self) -> Table[RunRow]:
        """The ``runs`` table of this run: its one row."""
        return Table("runs", [self.run])


@dataclass(frozen=True)
class Root:
    """The runs under a results root, recomputed, and their tables concatenated (by the
    runs' paths under the root)."""

    path: str
    opened: tuple[Run, ...]
    problems: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def _concat(self, name: str) -> Table[Any]:
        return Table(name, [row for run in self.opened for row in getattr(run, name)])

    @cached_property
    def runs(self) -> Table[RunRow]:
        return Table("runs", [run.run for run in self.opened])

    @cached_property
    def series(self) -> Table[SeriesRow]:
        return self._concat("series")

    @cached_property
    def tasks(self) -> Table[TaskRow]:
        return self._concat("tasks")

    @cached_property
    def attempts(self) -> Table[AttemptRow]:
        return self._concat("attempts")

    @cached_property
    def issues(self) -> Table[IssueRow]:
        return self._concat("issues")

    @cached_property
    def pass_curves(self) -> Table[PassRow]:
        return self._concat("pass_curves")


def open_run(path: str | Path) -> Run:
    """Read, recompute and tabulate the run at ``path`` (a folder, or an ``s3://``, ``gs://``,
    ``az://`` or ``https://`` URL as the command line takes).

    Raises:
        InspectorError: the run cannot be read or recomputed (the one-line message).
    """
    said: list[str] = []
    local = _local(str(path), said)
    return replace(_open(local, ".", said), path=str(path))


def open_root(path: str | Path) -> Root:
    """Every run at or under ``path``, recomputed, in the order of their paths under the
    root. Runs that cannot be used are left out and named in :attr:`Root.problems`.

    Raises:
        InspectorError: ``path`` is not a readable folder, or holds no run.
    """
    text = str(path)
    try:
        walk = walk_root(text)
    except RunReadError as exc:
        raise InspectorError(str(exc)) from None
    if not walk.runs and not walk.unreadable:
        raise InspectorError(f"{text}: no runs here (a run has run_info.json or a details/ folder)")
    warnings = [f"inspector: {line}" for line in walk.link_lines(text)]
    problems: list[str] = []
    runs: list[Run] = []
    for run_path, relative in walk.runs:
        said: list[str] = []
        try:
            runs.append(_open(str(run_path), relative, said))
        except InspectorError as exc:
            problems.append(_under_root(str(exc), str(run_path), relative))
        warnings.extend(_under_root(line, str(run_path), relative) for line in said)
    problems.extend(walk.unreadable_lines())
    return Root(text, tuple(runs), tuple(problems), tuple(warnings))


def _open(path: str, relative: str, said: list[str]) -> Run:
    try:
        session = load_session(path, say=said.append)
        tables = run_tables(session, relative)
        report = json.loads(session.metrics_json())
    except Unusable as exc:
        raise InspectorError(str(exc)) from None
    except (EngineError, HierarchyError) as exc:  # as the command line words them
        raise InspectorError(f"{path}: {exc}") from None
    except Exception as exc:  # as the command line: a one-line message, never a traceback
        raise InspectorError(f"{path}: {type(exc).__name__}: {exc}") from exc
    made = {name: _table(name, tables[name]) for name in TABLES}
    return Run(
        path=path, report=report, run=made["runs"][0], series=made["series"],
        tasks=made["tasks"], attempts=made["attempts"], issues=made["issues"],
        pass_curves=made["pass_curves"], warnings=tuple(said),
    )  # fmt: skip


def _local(path: str, said: list[str]) -> str:
    if not is_url(path):
        return path
    from inspector.loading import mirror  # fsspec: only for a URL

    try:
        return str(mirror(path, say=said.append).local)
    except RunReadError as exc:
        raise InspectorError(str(exc)) from None


def _under_root(text: str, path: str, relative: str) -> str:
    """A message naming the run's files under the root (as ``check ROOT`` names them)."""
    return relative + text[len(path) :] if text.startswith(path) else text
