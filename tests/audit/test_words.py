"""Words for users: no string the app or the command line can show points to a section of the
internal spec (users have AgentCompass's documentation, not ../shared/spec). Comments and
docstrings, read by developers, may."""

from __future__ import annotations

import ast

from tests.conftest import ROOT


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        for statement in body if isinstance(body, list) else []:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                found.add(id(statement.value))
    return found


def test_no_shown_string_cites_a_spec_section() -> None:
    cited = []
    files = [*(ROOT / "inspector").rglob("*.py"), *(ROOT / "widgets").rglob("*.py")]
    assert len(files) > 50
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            shown = isinstance(node, ast.Constant) and isinstance(node.value, str)
            if shown and id(node) not in docs and ("§" in node.value or "spec " in node.value.lower()):
                cited.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:60]!r}")
    assert cited == []
