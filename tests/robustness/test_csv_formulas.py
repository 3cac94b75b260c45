"""No CSV the inspector writes holds a formula from a result file (issue 48, item 5).

A spreadsheet runs a cell starting with ``=``, ``+``, ``-`` or ``@`` (and, in some, a tab or
a carriage return) as a formula: ``=HYPERLINK(…)`` becomes a link, ``-2+3+cmd|…`` a DDE call.
Every CSV writer — ``tasks``, ``export``, ``items``, ``errors``, ``leaderboard`` and the app's
table export — writes such a text cell after a ``'`` (OWASP), and leaves numbers alone.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest

from inspector.cli.main import main
from tests.robustness.renamed_tasks import copy_with_task_ids

FORMULA = re.compile(r"[=+\-@\t\r＝＋－＠]")
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
TASK_IDS = {
    "taubench_retail_4b4b27df": '=HYPERLINK("http://e.example","x")',
    "taubench_telecom_fd442edb": "-2+3+cmd|' /C calc'!A0",
    "taubench_airline_b01b86b2": "@SUM(A1:A9)",
    "taubench_retail_1e594bb6": "+1+1",
}
MESSAGE = "=1+1"
RUN = "=cmd run"


def formulas(text: str) -> list[str]:
    """The cells of a CSV text a spreadsheet would read as formulas."""
    return [
        cell
        for row in csv.reader(io.StringIO(text))
        for cell in row
        if FORMULA.match(cell) and not NUMBER.fullmatch(cell)
    ]


def cells(text: str) -> set[str]:
    return {cell for row in csv.reader(io.StringIO(text)) for cell in row}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("csv") / "root"

    def edit(result: dict[str, Any]) -> None:
        for issue in result.get("issues") or ():
            issue["message"] = MESSAGE

    copy_with_task_ids(root / RUN, TASK_IDS, edit)
    return root


@pytest.mark.parametrize(
    "argv",
    [
        ["tasks", "{run}", "--format", "csv", "--series", "all"],
        ["items", "{root}", "--format", "csv"],
        ["errors", "{root}", "--format", "csv"],
        ["errors", "{run}", "--against", "{run}", "--format", "csv"],
        ["leaderboard", "{root}", "--format", "csv"],
    ],
    ids=["tasks", "items", "errors", "errors --against", "leaderboard"],
)
def test_command_csv_holds_no_formula(
    argv: list[str], root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [a.format(run=root / RUN, root=root) for a in argv]
    main(argv)
    out = capsys.readouterr().out
    assert formulas(out) == []
    escaped = {"'" + text for text in (*TASK_IDS.values(), MESSAGE, RUN)}
    assert cells(out) & escaped  # the texts are there, behind a quote


def test_tasks_csv_keeps_each_id_behind_one_quote(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["tasks", str(root / RUN), "--format", "csv"])
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert {"'" + task_id for task_id in TASK_IDS.values()} <= {row[1] for row in rows}
    assert {row[5] for row in rows[1:]} == {"0.0", "1.0", ""}  # values as numbers, unquoted


def test_export_csv_holds_no_formula(root: Path, tmp_path: Path) -> None:
    assert main(["export", str(root / RUN), "--format", "csv", "--out", str(tmp_path)]) == 0
    (written,) = tmp_path.rglob("*.csv")
    text = written.read_text(encoding="utf-8")
    assert formulas(text) == [] and "'" + TASK_IDS["taubench_retail_4b4b27df"] in cells(text)


def test_the_apps_table_export_holds_no_formula() -> None:
    from inspector.app.table_export import Table, render

    table = Table(
        "tasks",
        ("task", "value", "delta"),
        (
            ("=1+1", "0.5", "-0.25"),
            ("\tx", "-", "+3"),
            ("\r=x", "@a", "a\r=b"),
            ("＝1", "-1e-3", ""),
        ),
    )
    text = render(table, "csv")
    assert formulas(text) == []
    # A bare CR ends a spreadsheet row: every CR is inside a quoted cell.
    assert "\r" not in re.sub(r'"(?:[^"]|"")*"', "", text)
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[1] == ["'=1+1", "0.5", "-0.25"]  # numbers stay numbers
    assert rows[2] == ["'\tx", "'-", "+3"]
    assert rows[4] == ["'＝1", "-1e-3", ""]


def test_numbers_the_inspector_writes_are_never_quoted() -> None:
    from inspector.views.csv_cells import spreadsheet_cell

    for value in (-0.5, -1, True, None, "", "-0.5", "+3", "-1e-3", "12%"):
        assert spreadsheet_cell(value) == value
    for text in ("-", "-x", "=A1", "@x", "+", "\t", "\r", "-1+1", "-0x10", "＠x"):
        assert spreadsheet_cell(text) == "'" + text
