"""`inspector stats` tables: the method is a numbered note under each table, not a column of
170 characters that wraps every row (issue 49 item 8)."""

from __future__ import annotations

import json
import re

import pytest

from inspector.cli.main import main
from tests.conftest import FIXTURE_RUNS

RUN = FIXTURE_RUNS / "k3_avg_hierarchy"


def _out(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["stats", str(RUN), *argv]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("form", ["table", "markdown"])
def test_each_row_names_a_note_under_its_table(
    capsys: pytest.CaptureFixture[str], form: str
) -> None:
    data = json.loads(_out(capsys, "--format", "json"))
    text = _out(capsys, "--format", form)
    for series in data["series"]:
        head = text.index(f"{series['series_id']} ({series['aggregation']})")
        block = text[head:].split("\n\n" if form == "table" else "\n## ")[0]
        rows = [
            line for line in block.splitlines() if re.match(r"\|? ?(series|node|category) ", line)
        ]
        notes = dict(re.findall(r"^(\d+)\. (.+)$", block, flags=re.MULTILINE))
        scopes = [series, *series["hierarchy"].values(), *series["categories"].values()]
        assert len(rows) == len(scopes)
        for row, scope in zip(rows, scopes, strict=True):
            number = row.rstrip(" |").split()[-1]
            assert notes[number] == scope["method"], (row, notes)
            assert len(row) < 120, row  # the row no longer carries its method's text
        # each method said once under the table, however many rows share it
        methods = [s["method"] for s in scopes]
        assert sorted(notes.values()) == sorted(set(methods))
