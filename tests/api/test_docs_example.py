"""docs/api_example.md: its Python cells run, in order, and print the output it shows."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

DOC = ROOT / "docs" / "api_example.md"


def test_the_cells_print_what_the_page_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```(python|text)\n(.*?)```", text, flags=re.S)
    namespace: dict[str, object] = {}
    printed: list[str] = []
    monkeypatch.chdir(ROOT)
    for kind, body in blocks:
        if kind == "text":
            assert printed.pop(0) == body
            continue
        out = io.StringIO()
        source = body.replace('fig.savefig("pass_at_j.png")',
                              f'fig.savefig({str(tmp_path / "p.png")!r})')  # fmt: skip
        with contextlib.redirect_stdout(out):
            exec(compile(source, str(DOC), "exec"), namespace)
        if out.getvalue():
            printed.append(out.getvalue())
    assert printed == []
    assert not os.path.exists(ROOT / "pass_at_j.png")
    assert len([b for b in blocks if b[0] == "text"]) == 2
