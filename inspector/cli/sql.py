"""``inspector sql ROOT "select …"``: SQL over the recomputed runs of a results root (DuckDB,
in process; the optional ``sql`` extra).

The views ``runs``, ``series``, ``tasks``, ``attempts``, ``issues`` and ``pass_curves`` are
the tables of
:mod:`inspector.export.run_tables`, built from the recomputation through
:func:`inspector.api.open_root` (never from a stored ``metrics.json``): the same rows and
types as ``inspector export ROOT --format parquet --dataset``, so a query written here runs
unchanged against the exported dataset. The connection reads and writes no file (DuckDB's
``enable_external_access`` off, the configuration locked): a query cannot write into the
results root. A run that cannot be recomputed is named on stderr and left out; the answer
is still printed and the exit status is 2 (as ``export ROOT``).
"""

from __future__ import annotations

import argparse
import json
import sys
from decimal import Decimal
from typing import Any

from inspector.answers.run import Unusable, say_on_stderr
from inspector.cli.common import EXIT_OK, EXIT_UNUSABLE
from inspector.cli.tables import table
from inspector.engine import strict_json
from inspector.export.run_tables import TABLES
from inspector.views.csv_cells import csv_writer

SQL_EXTRA = "pip install 'agentcompass-inspector[sql]'"
FORMATS = ("table", "csv", "json")


def register(subparsers: Any) -> None:
    """Add ``sql`` to the ``inspector`` command."""
    parser = subparsers.add_parser(
        "sql",
        help="SQL over the recomputed runs of a results root (DuckDB)",
        description=(
            "Recompute every run under ROOT and answer QUERY with DuckDB over the views "
            f"{', '.join(TABLES)}: the tables `inspector export --format parquet` writes "
            "(join them on path). Needs the sql extra: " + SQL_EXTRA
        ),
    )
    parser.add_argument("path", help="a results root (or one run)")
    parser.add_argument("query", help='a DuckDB query, e.g. "select * from runs"')
    parser.add_argument("--format", choices=FORMATS, default="table")
    parser.set_defaults(func=cmd_sql)


def cmd_sql(args: argparse.Namespace) -> int:
    try:
        import duckdb
        import pyarrow  # noqa: F401  (the views are Arrow tables)
    except ImportError as exc:
        raise Unusable(f"sql needs {exc.name}: {SQL_EXTRA}") from None
    from inspector.api import InspectorError, open_root  # the runs: only once DuckDB is here

    try:
        root = open_root(args.path)
    except InspectorError as exc:
        raise Unusable(str(exc)) from None
    for line in root.warnings:
        say_on_stderr(line)
    for problem in root.problems:
        say_on_stderr(f"inspector: {problem}")
    connection = duckdb.connect(
        config={"enable_external_access": False, "lock_configuration": True}
    )
    for name in TABLES:
        connection.register(name, getattr(root, name).to_arrow())
    try:
        result = connection.sql(args.query)
        if result is None:
            raise Unusable("sql: the query returned no rows (ask with select)")
        columns, rows = list(result.columns), result.fetchall()
    except duckdb.Error as exc:
        message = " ".join(str(exc).split())
        raise Unusable(f"sql: {message}") from None
    write_rows(sys.stdout, args.format, columns, rows)
    return EXIT_UNUSABLE if root.problems else EXIT_OK


def write_rows(out: Any, fmt: str, columns: list[str], rows: list[tuple[Any, ...]]) -> None:
    """The answer as a text table, CSV (:func:`~inspector.views.csv_cells.csv_writer`:
    text a spreadsheet would run is escaped) or a JSON list of objects."""
    if fmt == "json":
        records = [dict(zip(columns, row, strict=True)) for row in rows]
        # strict JSON: a NaN or infinity a query makes is null (inspector.engine.strict_json)
        text = strict_json.dumps(records, indent=2, ensure_ascii=False, default=_json_value)
        out.write(text + "\n")
    elif fmt == "csv":
        writer = csv_writer(out)
        writer.writerow(columns)
        writer.writerows([_csv_cell(v) for v in row] for row in rows)
    else:
        table(out, columns, rows)


def _json_value(value: Any) -> Any:
    """What JSON has no type for: a DECIMAL (``0.5`` in SQL) as a number, the rest (dates,
    UUIDs, intervals) as their text."""
    return float(value) if isinstance(value, Decimal) else str(value)


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, list | dict) else value
