"""docs/commands.md names every command of ``inspector --help`` and every option of each."""

from __future__ import annotations

import argparse
from pathlib import Path

from inspector.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {"": parser, **sub.choices}


def _options(parser: argparse.ArgumentParser) -> list[str]:
    """The long options of ``parser`` (the short ones have a long twin), without --help."""
    names = (name for action in parser._actions for name in action.option_strings)
    return [name for name in names if name.startswith("--") and name != "--help"]


def test_every_command_has_a_row_in_the_table_and_a_section() -> None:
    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    table = text.split("\n## ", 1)[0]
    headings = {line[3:] for line in text.splitlines() if line.startswith("## ")}
    for name in _commands():
        if not name:
            continue
        assert f"| `{name} " in table or f"| `inspector {name} " in table, name
        if name != "serve":  # the app's: docs/screens.md
            assert any(name in heading.split() for heading in headings), name


def test_every_option_is_documented() -> None:
    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    screens = (ROOT / "docs" / "screens.md").read_text(encoding="utf-8")
    missing = [
        f"inspector {name} {option}".replace("  ", " ")
        for name, parser in _commands().items()
        for option in _options(parser)
        if f"{option}" not in (screens if name == "serve" else text)
    ]
    assert missing == []
