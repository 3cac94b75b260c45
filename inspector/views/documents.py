"""Text documents the diagnostics pager shows a page at a time, never all at once.

A :class:`StringDocument` wraps text already in memory (a diagnostics string, a rendered
JSON value); a :class:`FileDocument` indexes a file's line offsets once (in a worker) and
then reads only the lines asked for. Very long lines are cut into chunks of at most
:data:`MAX_LINE_CHARS` characters so one line never becomes one huge widget row.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

from inspector.results.file_io import open_regular
from inspector.results.problems import LoadProblem, ResultFileError
from inspector.results.run_files import RunFiles

MAX_LINE_CHARS = 2000
MAX_LINE_BYTES = 8000
READ_CHUNK = 1 << 20
COPY_LIMIT = 1 << 20
SEARCH_BLOCK = 2048
MAX_DEPTH = 64
TOO_DEEP = f"… (nested deeper than {MAX_DEPTH} levels; open the raw file)"


class Document(Protocol):
    """Lines of text, read on demand."""

    title: str
    max_width: int
    notice: str | None
    """Why this document is shown as it is (e.g. a file too large to parse, paged raw)."""

    @property
    def line_count(self) -> int: ...

    def lines(self, start: int, count: int) -> list[str]: ...

    def find(self, needle: str, start: int, *, backwards: bool = False) -> int | None: ...

    def head(self, limit: int = COPY_LIMIT) -> str: ...


def _chunk(line: str) -> Iterator[str]:
    if len(line) <= MAX_LINE_CHARS:
        yield line
        return
    for start in range(0, len(line), MAX_LINE_CHARS):
        yield line[start : start + MAX_LINE_CHARS]


def _search_order(count: int, start: int, backwards: bool) -> Iterator[int]:
    if backwards:
        yield from range(start - 1, -1, -1)
        yield from range(count - 1, start - 1, -1)
    else:
        yield from range(start + 1, count)
        yield from range(0, start + 1)


class StringDocument:
    """Text already in memory, split into display lines."""

    def __init__(
        self, title: str, text: str, *, path: str | None = None, notice: str | None = None
    ) -> None:
        self.title = title
        self.path = path
        self.notice = notice
        self._text = text
        self._lines = [piece for line in text.split("\n") for piece in _chunk(line)]
        self.max_width = max(map(len, self._lines), default=0)

    @property
    def line_count(self) -> int:
        return len(self._lines)

    def lines(self, start: int, count: int) -> list[str]:
        return self._lines[max(0, start) : max(0, start) + count]

    def find(self, needle: str, start: int, *, backwards: bool = False) -> int | None:
        folded = needle.casefold()
        for index in _search_order(len(self._lines), start, backwards):
            if folded in self._lines[index].casefold():
                return index
        return None

    def head(self, limit: int = COPY_LIMIT) -> str:
        return self._text[:limit]


class FileDocument:
    """A text file of a run, indexed by line offsets and read a page at a time.

    Symbolic links are refused (the reader's rule); the file is opened read-only.
    """

    def __init__(self, title: str, run_path: Path, rel: str, *, notice: str | None = None) -> None:
        self.title = title
        self.path = rel
        self.notice = notice
        files = RunFiles(run_path)
        refused = files.link_load_problem(rel, strict=False, blocking=False)
        if refused is not None:
            raise ResultFileError(refused)
        self._file = files.path(rel)
        self._offsets = array("Q")
        self._size = 0
        self.indexed = False
        self.max_width = 0

    @property
    def full_path(self) -> Path:
        return self._file

    @property
    def line_count(self) -> int:
        return max(0, len(self._offsets) - 1)

    def index(self, cancelled: Callable[[], bool] = lambda: False) -> None:
        """Scan the file once for line starts (call from a worker)."""
        offsets = array("Q", [0])
        try:
            with open_regular(self._file) as stream:
                position = 0
                line_start = 0
                while True:
                    if cancelled():
                        return
                    data = stream.read(READ_CHUNK)
                    if not data:
                        break
                    cursor = 0
                    while True:
                        newline = data.find(b"\n", cursor)
                        end = newline if newline >= 0 else len(data)
                        # Cut lines that run past the byte limit at a UTF-8 boundary.
                        while position + end - line_start > MAX_LINE_BYTES:
                            cut = line_start + MAX_LINE_BYTES - position
                            while 0 < cut < len(data) and (data[cut] & 0xC0) == 0x80:
                                cut -= 1
                            if cut <= 0:
                                cut = line_start + MAX_LINE_BYTES - position
                            line_start = position + cut
                            offsets.append(line_start)
                        if newline < 0:
                            break
                        line_start = position + newline + 1
                        offsets.append(line_start)
                        cursor = newline + 1
                    position += len(data)
                self._size = position
        except OSError as exc:
            raise ResultFileError(
                LoadProblem(self.path, f"cannot be read: {exc.strerror or exc}", "", False)
            ) from exc
        if offsets[-1] != self._size:
            offsets.append(self._size)
        self._offsets = offsets
        self.max_width = max(
            (offsets[i + 1] - offsets[i] for i in range(len(offsets) - 1)), default=0
        )
        self.indexed = True

    def lines(self, start: int, count: int) -> list[str]:
        if not self.indexed:
            return []
        start = max(0, start)
        stop = min(self.line_count, start + count)
        if start >= stop:
            return []
        begin, end = self._offsets[start], self._offsets[stop]
        with open_regular(self._file) as stream:
            stream.seek(begin)
            data = stream.read(end - begin)
        out = []
        for i in range(start, stop):
            piece = data[self._offsets[i] - begin : self._offsets[i + 1] - begin]
            out.append(piece.rstrip(b"\n").decode("utf-8", errors="replace"))
        return out

    def find(self, needle: str, start: int, *, backwards: bool = False) -> int | None:
        folded = needle.casefold()
        count = self.line_count
        spans = [(0, start), (start, count)] if backwards else [(start + 1, count), (0, start + 1)]
        for low, high in spans:
            if backwards:
                for top in range(high, low, -SEARCH_BLOCK):
                    first = max(low, top - SEARCH_BLOCK)
                    lines = self.lines(first, top - first)
                    for i in range(len(lines) - 1, -1, -1):
                        if folded in lines[i].casefold():
                            return first + i
            else:
                for first in range(low, high, SEARCH_BLOCK):
                    lines = self.lines(first, min(SEARCH_BLOCK, high - first))
                    for i, line in enumerate(lines):
                        if folded in line.casefold():
                            return first + i
        return None

    def head(self, limit: int = COPY_LIMIT) -> str:
        with open_regular(self._file) as stream:
            return stream.read(limit).decode("utf-8", errors="replace")


def json_text(value: Any, indent: int = 0) -> str:
    """A JSON value as readable text: nested keys indented, multi-line strings as blocks."""
    lines: list[str] = []
    _json_lines(value, indent, lines, None, 0)
    return "\n".join(lines)


def _json_lines(value: Any, indent: int, out: list[str], key: str | None, depth: int) -> None:
    pad = "  " * indent
    prefix = f"{pad}{key}: " if key is not None else pad
    if depth > MAX_DEPTH and isinstance(value, dict | list):
        out.append(prefix + TOO_DEEP)
        return
    if isinstance(value, dict | list):
        if not value:
            out.append(prefix + ("{}" if isinstance(value, dict) else "[]"))
            return
        if key is not None:
            out.append(f"{pad}{key}:")
            indent += 1
        members = (
            [(str(k), v) for k, v in value.items()]
            if isinstance(value, dict)
            else [(f"[{i}]", v) for i, v in enumerate(value)]
        )
        for label, member in members:
            _json_lines(member, indent, out, label, depth + 1)
        return
    if isinstance(value, str) and "\n" in value:
        out.append(prefix + "|")
        inner = "  " * (indent + 1)
        out.extend(inner + line for line in value.split("\n"))
        return
    if isinstance(value, str):
        # Not JSON-escaped: the pager shows control characters visibly (widgets.literal).
        out.append(f'{prefix}"{value}"')
        return
    out.append(prefix + json.dumps(value, ensure_ascii=False))


def shown_count(text: str) -> int:
    """How many pager lines ``text`` makes: one a line, a line longer than
    :data:`MAX_LINE_CHARS` one a chunk of it (as :class:`StringDocument` cuts it)."""
    if len(text) <= MAX_LINE_CHARS:
        return text.count("\n") + 1
    return sum(-(-len(line) // MAX_LINE_CHARS) or 1 for line in text.split("\n"))


def json_text_count(value: Any, indent: int = 0) -> int:
    """``shown_count(json_text(value, indent))`` without making the text: the walk of
    :func:`json_text`, each line measured instead of written (a long string is not copied)."""
    return _json_count(value, indent, None, 0)


def _json_count(value: Any, indent: int, key: str | None, depth: int) -> int:
    if isinstance(value, dict | list) and value and depth <= MAX_DEPTH:
        count = 0
        if key is not None:  # "<pad><key>:"
            short = "\n" not in key and len(key) < MAX_LINE_CHARS - 2 * indent
            count += 1 if short else shown_count(f"{'  ' * indent}{key}:")
            indent += 1
        members = (
            ((str(k), v) for k, v in value.items())
            if isinstance(value, dict)
            else ((f"[{i}]", v) for i, v in enumerate(value))
        )
        room = MAX_LINE_CHARS - 2 * indent - 2  # the line's length less "<pad><key>: "
        inner = MAX_LINE_CHARS - 2 * indent - 2  # a text block's line: less its indent
        for label, member in members:
            kind = type(member)
            if kind is str and "\n" not in label and len(label) < room:
                if "\n" not in member:
                    width = len(label) + len(member) + 2  # a one-line string, quoted
                    count += 1 if width <= room else -(-(width - room) // MAX_LINE_CHARS) + 1
                elif len(member) <= inner:  # "<label>: |", then each line of the block
                    count += 2 + member.count("\n")
                else:
                    count += _json_count(member, indent, label, depth + 1)
            elif (
                (kind in _SHORT or (kind is int and -_BIG < member < _BIG))
                and "\n" not in label
                and len(label) + 24 <= room
            ):
                count += 1  # a float's repr is at most 24 characters ("-1.2345678901234567e-308")
            else:
                count += _json_count(member, indent, label, depth + 1)
        return count
    pad = "  " * indent
    prefix = f"{pad}{key}: " if key is not None else pad
    if isinstance(value, dict | list):
        if depth > MAX_DEPTH:
            return shown_count(prefix + TOO_DEEP)
        return shown_count(prefix + "{}")  # empty; "[]": as long
    if isinstance(value, str) and "\n" in value:
        inner = 2 * (indent + 1)
        lines = value.count("\n") + 1
        if inner + len(value) > MAX_LINE_CHARS:
            pieces = value.split("\n")
            if inner + max(map(len, pieces)) > MAX_LINE_CHARS:
                lines = sum(-(-(inner + len(piece)) // MAX_LINE_CHARS) or 1 for piece in pieces)
        return shown_count(prefix + "|") + lines
    if isinstance(value, str):
        return shown_count(f'{prefix}"{value}"')
    return shown_count(prefix + json.dumps(value, ensure_ascii=False))


_SHORT = (float, bool, type(None))
_BIG = 10**22  # an integer of fewer than 24 characters
