"""Every CSV the inspector writes goes through :func:`csv_writer`: a text cell that a
spreadsheet would run as a formula is written with a leading ``'`` (OWASP's advice against
CSV injection), so that a task id like ``=HYPERLINK(…)`` opens as the text it is.

A text cell is escaped when it starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return (or their full-width forms, which some spreadsheets read as the same signs), unless
the whole cell is a plain decimal number such as ``-0.5`` or ``+3``, which a spreadsheet
reads as that number and never as a formula. Numbers, booleans and empty cells written by
the inspector itself are never escaped. The exact values stay in the JSON and JSON Lines
outputs (``--format json`` / ``jsonl``), which machine consumers should read instead.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from typing import Any, TextIO

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
"""What a spreadsheet may take for the start of a formula (OWASP), full-width forms included."""
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?%?", re.ASCII)


def spreadsheet_cell(value: Any) -> Any:
    """``value``, or a text starting like a formula with ``'`` before it."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


class CsvWriter:
    """:func:`csv.writer` (``\\n`` line ends) whose text cells are :func:`spreadsheet_cell`.

    A cell holding a carriage return is quoted as one holding a line feed is (the csv
    module quotes only the line terminator's characters): a spreadsheet ends a row at a bare
    CR, and the text after it would start a cell of its own, unescaped.
    """

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._row = io.StringIO()
        self._writer = csv.writer(self._row, lineterminator="\r\n")

    def writerow(self, row: Iterable[Any]) -> None:
        self._row.seek(0)
        self._row.truncate()
        self._writer.writerow([spreadsheet_cell(value) for value in row])
        self._out.write(self._row.getvalue()[:-2] + "\n")

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def csv_writer(out: TextIO) -> CsvWriter:
    """The one way the inspector writes CSV (commands, exports, the app's table export)."""
    return CsvWriter(out)
