"""Ids that read the same are told apart, and text tables line up in terminal cells (issue 48,
item 10).

``café`` written with U+00E9 and with ``e`` + U+0301 (NFC and NFD twins) are two task ids
that look identical; a text table marks both with their code points. A column's width is
measured in terminal cells (rich's ``cell_len`` is the yardstick here; the inspector's views
may not import rich): a CJK id takes two cells a character, a combining accent none.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.cells import cell_len

from inspector.cli.main import main
from tests.robustness.renamed_tasks import copy_with_task_ids

NFC, NFD, WIDE = "caf\u00e9", "cafe\u0301", "数学/题目-7"
TASK_IDS = {
    "taubench_retail_1e594bb6": NFC,
    "taubench_retail_92afc7e4": NFD,
    "taubench_retail_c63aeff7": WIDE,
}
AFTER_ID = re.compile(r"( \[twin: [^\]]*\])?\s+")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("twins") / "root"
    copy_with_task_ids(root / "run", TASK_IDS)
    return root


def next_column(line: str, text: str) -> int:
    """The terminal cell where the column after ``text`` starts in ``line``."""
    match = AFTER_ID.match(line, line.index(text) + len(text))
    assert match is not None
    return cell_len(line[: match.end()])


def row_of(lines: list[str], task_id: str) -> str:
    (line,) = [line for line in lines if re.search(f"(^|  ){re.escape(task_id)}( |$)", line)]
    return line


@pytest.mark.parametrize(
    ("argv", "next_header"),
    [(["tasks", "{root}/run"], "category"), (["items", "{root}"], "runs")],
    ids=["tasks", "items"],
)
def test_twins_are_marked_and_columns_line_up(
    argv: list[str], next_header: str, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main([a.format(root=root) for a in argv])
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if f"  {next_header}" in line)
    column = cell_len(header[: header.index(f"  {next_header}") + 2])
    nfc, nfd, wide = (row_of(lines, task_id) for task_id in (NFC, NFD, WIDE))
    assert f"{NFC} [twin: U+00E9]" in nfc
    assert f"{NFD} [twin: U+0065 U+0301]" in nfd
    assert "[twin:" not in wide  # no twin, nothing added
    for line, task_id in ((nfc, NFC), (nfd, NFD), (wide, WIDE)):
        assert next_column(line, task_id) == column, line


def test_twins_need_the_same_nfc_form() -> None:
    from inspector.views.text_cells import cell_width, tell_twins_apart

    marked = tell_twins_apart([NFC, NFD, "cafe", "K", "\u212a", WIDE])
    assert marked == {
        NFC: f"{NFC} [twin: U+00E9]",
        NFD: f"{NFD} [twin: U+0065 U+0301]",
        "K": "K [twin: ASCII]",
        "\u212a": "\u212a [twin: U+212A]",
    }
    for text in (NFC, NFD, WIDE, "🧪 实验", "a\u200bb", "plain"):
        assert cell_width(text) == cell_len(text), text
