"""Every relative link of the README and of docs/ leads to a file, and to a heading there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub makes of a page's headings: lower case, punctuation dropped,
    spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # a URL
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (anchor and anchor not in _anchors(linked)):
            broken.append(target)
    assert broken == []


DOCS = [*PAGES, *sorted((ROOT / "docs" / "decisions").glob("*.md"))]


@pytest.mark.parametrize("page", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_source_file_named_exists(page: Path) -> None:
    """A file of the package or a test named in the docs (``inspector/loading/store.py``)
    is there: a module moved or merged leaves no page pointing at its old file."""
    named = re.findall(r"(?<![\w./-])((?:inspector|widgets|tests|benchmarks|fixtures)/[\w/]+\.py)",
                       page.read_text(encoding="utf-8"))  # fmt: skip
    assert [path for path in named if not (ROOT / path).exists()] == []
