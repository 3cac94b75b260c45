"""Text from result files made safe for a terminal, as plain text (the command line).

Control characters, bidirectional overrides and invisible characters are shown as visible
stand-ins (``␛`` for ESC, ``<U+202E>``), so a folder name or an issue message can never move
the cursor, recolour the terminal or reorder what is printed. The app does the same with
styling (``widgets.literal``).
"""

from __future__ import annotations

import re
import unicodedata


def visible(text: str, *, one_line: bool = False) -> str:
    """``text`` with control and invisible characters made visible.

    ``one_line`` also shows line breaks (``␊``), for messages that must stay on one line.
    """
    if text.isprintable() or (not one_line and all(ch.isprintable() or ch == "\n" for ch in text)):
        return text
    out = []
    for ch in text:
        code = ord(ch)
        if ch.isprintable() or (ch == "\n" and not one_line):
            out.append(ch)
        elif code < 0x20:
            out.append(chr(0x2400 + code))
        elif code == 0x7F:
            out.append("␡")
        elif unicodedata.category(ch) == "Zs":
            out.append(ch)
        else:
            out.append(f"<U+{code:04X}>")
    return "".join(out)


def inert_in_workflow_log(line: str) -> str:
    """One line of a GitHub Actions log that the runner cannot read as a workflow command.

    The runner reads ``::command::`` at the start of a line (after white space) and the
    legacy ``##[command]`` anywhere in it; the ``:`` and ``[`` that would make one are shown
    as ``<U+003A>`` and ``<U+005B>``, as :func:`visible` shows the characters it makes
    visible. For stderr, where a line cannot sit inside stdout's ``::stop-commands::`` block.
    """
    if line.lstrip().startswith("::"):
        start = len(line) - len(line.lstrip())
        line = line[:start] + "<U+003A>" + line[start + 1 :]
    return line.replace("##[", "##<U+005B>")


_MARKUP = re.compile(r"[\\`*\[\]|~<>&]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
"""What could start Markdown markup in a line of text (emphasis, code, a link or an image,
HTML or an entity, a table's ``|``, strikethrough); ``_`` only where it is not inside a
word, where CommonMark never reads it as emphasis."""


def markdown_literal(text: str) -> str:
    """``text`` from a result file for a line or a table cell of Markdown, reading as the
    same text once rendered: made visible on one line (:func:`visible`), then each
    character that could start markup backslash-escaped (CommonMark lets any ASCII
    punctuation be), so that ``<!--`` hides nothing, ``<img …>`` loads nothing and
    ``[x](…)`` links nowhere."""
    return _MARKUP.sub(r"\\\g<0>", visible(text, one_line=True))
