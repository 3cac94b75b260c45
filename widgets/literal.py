"""Result text, shown literally.

Result directories hold text written by models, agents, verifiers and test suites. None of it
may drive the terminal or Rich: :func:`literal` turns any string into a
:class:`rich.text.Text` that is never parsed as markup, with every character that could
mislead made visible:

- the escape character as ``␛`` (so ``"\\x1b[2J"`` reads ``␛[2J``), other C0 controls as their
  control pictures (``␇`` for BEL, ``␈`` for backspace, ``␍`` for a carriage return);
- C1 controls, bidirectional overrides and isolates, zero-width and other invisible format
  characters, line / paragraph separators and lone surrogates as ``<U+202E>``.

Newlines and tabs are kept as layout in multi-line text and shown as ``␊`` / ``␉`` in
single-line text (task ids, categories, file names).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from rich.style import Style
from rich.text import Text

ESCAPE_STYLE = Style(color="magenta", bold=True)
"""How a made-visible character is styled, so it cannot pass for the text itself."""

TRUNCATION_STYLE = Style(dim=True, italic=True)

_PICTURE_BASE = 0x2400  # U+2400 SYMBOL FOR NULL ... U+241F SYMBOL FOR UNIT SEPARATOR
_TAB_WIDTH = 4


@lru_cache(maxsize=4096)
def visible_form(char: str) -> str | None:
    """What to show for ``char`` instead of the character itself, or None if it is safe."""
    code = ord(char)
    if code < 0x20:
        return chr(_PICTURE_BASE + code)
    if code == 0x7F:
        return "␡"
    if 0x80 <= code <= 0x9F:
        return f"<U+{code:04X}>"
    category = unicodedata.category(char)
    # Cf: bidi controls, zero-width characters, soft hyphen, BOM, tag characters, ...
    # Zl / Zp: line and paragraph separators. Cs: lone surrogates from bad decoding.
    if category in ("Cf", "Zl", "Zp", "Cs"):
        return f"<U+{code:04X}>"
    return None


def as_text(value: object) -> str:
    """``value`` itself if it is a string, else ``str(value)`` (never raises RecursionError)."""
    if isinstance(value, str):
        return value
    try:
        return str(value)
    except RecursionError:
        return f"<{type(value).__name__} nested too deeply to show>"


def is_plain(text: str) -> bool:
    """True when ``text`` has nothing to make visible (fast path)."""
    # str.isprintable() is False for every Cc, Cf, Cs, Zl and Zp character.
    return text.isprintable()


def literal(
    value: object,
    *,
    multiline: bool = False,
    max_chars: int | None = None,
    style: str | Style = "",
    escape_style: Style = ESCAPE_STYLE,
) -> Text:
    """Any string from a result file as literal :class:`Text`.

    Args:
        value: The text (anything else is shown through ``str()``).
        multiline: Keep newlines (``\\n`` and ``\\r\\n``) and expand tabs; otherwise they
            are shown as ``␊`` / ``␍`` / ``␉``.
        max_chars: Cut the text after this many characters and say how much was left out.
        style: The base style of the text.
        escape_style: The style of characters made visible.

    Returns:
        Text that renders exactly what the string contains, never markup.
    """
    source = as_text(value)
    cut = 0
    if max_chars is not None and len(source) > max_chars:
        cut = len(source) - max_chars
        source = source[:max_chars]
    text = Text(style=style, no_wrap=not multiline, end="")
    if is_plain(source):
        text.append(source)
    else:
        _append_visible(text, source, multiline, escape_style)
    if cut:
        text.append(f"… ({cut:,} more characters)", TRUNCATION_STYLE)
    return text


def _append_visible(text: Text, source: str, multiline: bool, escape_style: Style) -> None:
    run_start = 0
    index = 0
    length = len(source)
    while index < length:
        char = source[index]
        if multiline and char == "\n":
            index += 1
            continue
        if multiline and char == "\r" and index + 1 < length and source[index + 1] == "\n":
            # A Windows line ending is a line ending; drop the \r.
            text.append(source[run_start:index])
            run_start = index + 1
            index += 1
            continue
        if multiline and char == "\t":
            text.append(source[run_start:index])
            text.append(" " * _TAB_WIDTH)
            index += 1
            run_start = index
            continue
        shown = visible_form(char)
        if shown is None:
            index += 1
            continue
        text.append(source[run_start:index])
        text.append(shown, escape_style)
        index += 1
        run_start = index
    text.append(source[run_start:])


def literal_plain(value: object, *, multiline: bool = False, max_chars: int | None = None) -> str:
    """The same substitution as :func:`literal`, as a plain string (for filters and search)."""
    return literal(value, multiline=multiline, max_chars=max_chars).plain


def one_line(value: object, max_chars: int = 200) -> Text:
    """A single-line literal of at most ``max_chars`` cells, cut with "…" (table cells, titles).

    Only the first ``2 * max_chars`` characters are looked at, so a megabyte-long value
    costs no more than a short one.
    """
    source = as_text(value)
    limit = max(1, max_chars)
    cut = len(source) > 2 * limit
    text = literal(source[: 2 * limit] if cut else source, multiline=False)
    if text.cell_len > limit:
        text.truncate(limit, overflow="ellipsis")
    elif cut:  # zero-width characters made the cut text short: still say it was cut
        text.truncate(max(0, limit - 1))
        text.append("…")
    return text


def cut_middle(text: Text, width: int) -> Text:
    """``text`` cut to at most ``width`` cells with "…" in the middle, keeping more of the
    end (``build-and-…-management``, ``ns/…_000002``): where ids, categories and run folder
    names differ."""
    if text.cell_len <= width:
        return text
    if width <= 1:
        return Text("…", TRUNCATION_STYLE)
    return _cut_at(text, width, (width - 1) * 2 // 5)


def cut_apart(values: Sequence[object], width: int) -> list[Text]:
    """Each of ``values`` as :func:`one_line_middle` makes it, except where two different
    names would read the same: those are cut elsewhere, as near the usual cut as tells them
    apart (``gpt-5-2025-08-07`` and ``gpt-5-mini-2025-08-07`` in 10 cells read
    ``gpt-5-2…07`` and ``gpt-5-m…07``, not ``gpt…5-08-07`` twice). Names no cut tells apart
    keep the usual one."""
    sources = [_ends(value, width) for value in values]
    cut = [cut_middle(text, width) for text in sources]
    if width <= 1:
        return cut
    keep = width - 1
    usual = keep * 2 // 5
    heads = sorted(range(keep + 1), key=lambda head: (abs(head - usual), -head))
    alike: dict[str, set[int]] = {}
    for i, text in enumerate(cut):
        alike.setdefault(text.plain, set()).add(i)
    for group in alike.values():
        names = {sources[i].plain for i in group}
        if len(names) == 1:
            continue
        others = {text.plain for i, text in enumerate(cut) if i not in group}
        for head in heads:
            tried = {i: _cut_at(sources[i], width, head) for i in group}
            shown = {text.plain for text in tried.values()}
            if len(shown) == len(names) and not shown & others:
                break
        else:  # no one cut tells them apart: each keeps where it differs, cut on both sides
            plains = [sources[i].plain for i in group]
            tried = {i: _cut_around(sources[i], width, plains) for i in group}
            shown = {text.plain for text in tried.values()}
            if len(shown) != len(names) or shown & others:
                continue
        for i, text in tried.items():
            cut[i] = text
    return cut


def _shared(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` start with alike."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _cut_around(text: Text, width: int, alike: Sequence[str]) -> Text:
    """``text`` in ``width`` cells keeping whole the part where it differs from the
    ``alike`` names (after the longest start and before the longest end it shares with any of
    them), widened to whole words while it fits, and as much of its two ends as fits
    around it: ``gpt_s…syn_alpha_…archy``."""
    plain = text.plain
    others = [name for name in alike if name != plain]
    if not others or text.cell_len <= width or len(plain) != text.cell_len:
        return _cut_at(text, width, (width - 1) * 2 // 5)
    start = max(_shared(plain, o) for o in others)
    end = len(plain) - max(_shared(plain[::-1], o[::-1]) for o in others)
    start, end = min(start, end, len(plain)), max(start, end, 0)
    start, end = min(start, len(plain) - 1), max(end, start + 1)
    while end - start + 2 < width:  # whole words, while two "…" still fit
        wider = start > 0 and plain[start - 1].isalnum()
        longer = end < len(plain) and plain[end].isalnum()
        if not (wider or longer):
            break
        start, end = start - wider, end + longer
    core = end - start + (start > 0) + (end < len(plain))
    if core > width:
        return _cut_at(text, width, (width - 1) * 2 // 5)
    room = width - core
    head = min(start, room * 2 // 5 if end < len(plain) else room)
    tail = min(len(plain) - end, room - head)
    head = min(start, room - tail)
    if head == start - 1 and start > 0:  # "…" in place of one character says nothing
        head -= 1
    parts = [text[:head]]
    if head < start:
        parts.append(Text("…", TRUNCATION_STYLE))
    parts.append(text[start:end])
    if tail < len(plain) - end:
        parts.append(Text("…", TRUNCATION_STYLE))
    parts.append(text[len(plain) - tail :])
    shortened = Text("").join(parts)
    shortened.no_wrap = True
    shortened.end = ""
    return shortened


def _cut_at(text: Text, width: int, head: int) -> Text:
    """``text`` in ``width`` cells: its first ``head`` characters, "…", then its end."""
    if text.cell_len <= width:
        return text
    tail = width - 1 - head
    while True:
        shortened = text[:head] + Text("…", TRUNCATION_STYLE) + text[len(text) - tail :]
        if shortened.cell_len <= width or head + tail == 0:
            shortened.no_wrap = True
            shortened.end = ""
            return shortened
        if tail > head:
            tail -= 1
        else:
            head -= 1


def one_line_middle(value: object, width: int) -> Text:
    """A single-line literal of at most ``width`` cells, shortened in the middle ("a…z"),
    so the end of a name (what tells ``run_000001`` from ``run_000002``) stays visible."""
    return cut_middle(_ends(value, width), width)


def _ends(value: object, width: int) -> Text:
    """``value`` as a single-line literal, or only its two ends when it is far longer than
    ``width`` (only they can be shown)."""
    source = as_text(value)
    window = 4 * max(1, width)
    if len(source) > 2 * window:
        source = source[:window] + source[-window:]
    return literal(source)
