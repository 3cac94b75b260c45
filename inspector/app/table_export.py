"""The table on screen as a file: CSV, JSON or Markdown, never inside the run directory.

Pure (no textual, no rich). CSV and JSON keep every value exactly as the result files hold
it (JSON escapes control characters itself); Markdown is read by people, so control and
invisible characters are made visible in it (as on the command line).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

from inspector.engine import strict_json
from inspector.output_files import OutputError, output_target, write_output
from inspector.views.csv_cells import csv_writer
from inspector.views.visible import visible

FORMATS = {"csv": "CSV", "json": "JSON", "md": "Markdown"}
"""File extension → format name."""


@dataclass(frozen=True)
class Table:
    """Rows as shown: a name for the file, the column headers and the cell texts."""

    name: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


class ExportError(Exception):
    """The file cannot be written there (inside the run directory, not a file, not writable)."""


def render(table: Table, fmt: str) -> str:
    """The file's text in ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "csv":
        out = io.StringIO()
        writer = csv_writer(out)
        writer.writerow(table.headers)
        writer.writerows(table.rows)
        return out.getvalue()
    if fmt == "json":
        records = [dict(zip(table.headers, row, strict=True)) for row in table.rows]
        return strict_json.dumps(records, ensure_ascii=False, indent=2) + "\n"
    if fmt == "md":
        rows = [[visible(cell, one_line=True).replace("|", "\\|") for cell in row]
                for row in table.rows]  # fmt: skip
        return tabulate(rows, headers=list(table.headers), tablefmt="github") + "\n"
    raise ValueError(f"unknown export format {fmt!r}")


def default_path(folder: Path, table: Table, fmt: str) -> Path:
    """``<folder>/<table name>.<fmt>``."""
    safe = "".join(ch if ch.isalnum() or ch in "-_.@" else "_" for ch in table.name).strip("._")
    return folder / f"{safe or 'table'}.{fmt}"


def refusal(path: Path, run_dirs: Sequence[Path]) -> str | None:
    """Why ``path`` must not be written (inside a run directory, not a regular file, no
    such folder: :func:`~inspector.output_files.output_target`), else None."""
    try:
        output_target(path.expanduser(), run_dirs)
    except OutputError as exc:
        return str(exc)
    return None


def write(table: Table, fmt: str, path: Path, run_dirs: Sequence[Path]) -> Path:
    """Write ``table`` to ``path`` (refused inside ``run_dirs``); returns the full path."""
    text = render(table, fmt)
    try:
        return write_output(path.expanduser(), run_dirs, lambda out: out.write(text))
    except OutputError as exc:
        raise ExportError(str(exc)) from None
