"""The long text members of a large result.json, left in the file and read a piece at a time.

``artifacts.execution_diagnostics`` and ``meta.benchmark.eval_raw_data`` (the verifier's
output) can be megabytes of text. In AgentCompass's layout (``json.dumps(indent=2)``) each
sits on its own line, ``    "execution_diagnostics": "…"`` (``eval_raw_data`` two spaces
deeper), since a JSON string holds no raw newline. :func:`lift` takes such a string of
:data:`LONG_BYTES` or more out of the bytes before they are parsed, leaving a placeholder,
and :func:`place` puts a :class:`LongString` in its place: the string's byte range and where
its pieces start (each right after an escaped newline, about every :data:`PIECE_BYTES`).
A piece is parsed when it is shown; one that is not valid JSON raises
:class:`~inspector.results.problems.ResultFileError` naming the bytes.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from inspector.results.file_io import JsonError, open_regular, parse_json
from inspector.results.problems import RULE_JSON, LoadProblem, ResultFileError

LONG_BYTES = 256 * 1024
PIECE_BYTES = 64 * 1024
LONG_KEYS = {
    b'\n    "execution_diagnostics": "': ("artifacts", "execution_diagnostics"),
    b'\n      "eval_raw_data": "': ("meta", "benchmark", "eval_raw_data"),
}
"""The text members left in the file: their line's start, and where they sit in the payload."""
_PLACEHOLDER = "\x00long text {}"
_BACKSLASH = 0x5C

_DECODER = msgspec.json.Decoder()


def decode(data: bytes | bytearray) -> Any:
    """``data`` parsed as AgentCompass's ``json.loads`` would: msgspec first (it holds about
    the text's size while parsing; orjson up to 15 times it), then
    :func:`~inspector.results.file_io.parse_json` for what msgspec refuses and the standard
    library accepts (``NaN``, lone surrogates, integers beyond 64 bits).

    Raises:
        JsonError: not JSON.
    """
    try:
        return _DECODER.decode(data)
    except msgspec.DecodeError:
        return parse_json(bytes(data))


def read_range(full_path: Path, rel: str, begin: int, stop: int) -> bytes:
    """Bytes ``begin`` to ``stop`` of a run's file (``rel``: its name in problems).

    Raises:
        ResultFileError: it cannot be read.
    """
    try:
        with open_regular(full_path) as stream:
            stream.seek(begin)
            return stream.read(stop - begin)
    except OSError as exc:
        message = f"cannot be read: {exc.strerror or exc}"
        raise ResultFileError(LoadProblem(rel, message, RULE_JSON, False)) from exc


@dataclass(frozen=True, eq=False)
class LongString:
    """A JSON string left in a file: its content is bytes ``cuts[0]`` to ``end``."""

    full_path: Path
    rel: str
    end: int
    cuts: array[int]
    """Where each piece starts (byte offsets of the file)."""

    @property
    def size(self) -> int:
        return self.end - self.cuts[0]

    def piece(self, index: int) -> str:
        """Piece ``index``: whole lines, each newline kept (the last piece: to the end)."""
        begin = self.cuts[index]
        stop = self.cuts[index + 1] if index + 1 < len(self.cuts) else self.end
        data = read_range(self.full_path, self.rel, begin, stop)
        try:
            text = decode(b'"' + data + b'"')
        except JsonError as exc:
            raise self._error(f"bytes {begin:,}–{stop:,} are {exc}") from None
        if not isinstance(text, str):
            raise self._error(f"bytes {begin:,}–{stop:,} are not a JSON string")
        return text

    def _error(self, message: str) -> ResultFileError:
        return ResultFileError(LoadProblem(self.rel, message, RULE_JSON, False))


Lifted = list[tuple[tuple[str, ...], int, int, "array[int]"]]
"""Each string taken out: its path in the payload, its content's range (offsets of the
bytes given to :func:`lift`) and its pieces' starts (offsets of the file)."""


def lift(data: bytes | bytearray, base: int) -> tuple[bytes | bytearray, Lifted]:
    """``data`` (bytes ``base`` on of a file) with every long text member's string replaced
    by a placeholder, and what was taken out."""
    found: Lifted = []
    for needle, path in LONG_KEYS.items():
        at = data.find(needle)
        while at >= 0:
            start = at + len(needle)
            line_end = data.find(b"\n", start)
            stop = len(data) if line_end < 0 else line_end
            stop -= data[stop - 1 : stop] == b","
            if stop - start >= LONG_BYTES and data[stop - 1] == ord('"'):
                found.append((path, start, stop - 1, _cuts(data, start, stop - 1, base)))
            at = data.find(needle, at + 1)
    if not found:
        return data, found
    found.sort(key=lambda item: item[1])
    parts: list[bytes | bytearray] = []
    last = 0
    for number, (_, start, stop, _cut) in enumerate(found):
        parts += [
            data[last:start],
            _PLACEHOLDER.format(number).encode().replace(b"\x00", b"\\u0000"),
        ]
        last = stop
    parts.append(data[last:])
    return b"".join(parts), found


def place(
    value: Any, found: Lifted, data: bytes | bytearray, full_path: Path, rel: str, base: int
) -> None:
    """Put a :class:`LongString` where each placeholder of ``value`` (the parsed bytes
    :func:`lift` gave) is; a placeholder found elsewhere than its line said (a long
    ``execution_diagnostics`` of ``meta``) gets its string back, parsed from ``data``."""
    misplaced: dict[str, str] = {}
    for number, (path, start, stop, cuts) in enumerate(found):
        parent = value
        for key in path[:-1]:
            parent = parent.get(key) if isinstance(parent, dict) else None
        placeholder = _PLACEHOLDER.format(number)
        if isinstance(parent, dict) and parent.get(path[-1]) == placeholder:
            parent[path[-1]] = LongString(full_path, rel, base + stop, cuts)
        else:
            misplaced[placeholder] = decode(b'"' + data[start:stop] + b'"')
    if misplaced:
        _restore(value, misplaced)


def _restore(value: Any, strings: dict[str, str]) -> None:
    """Replace each placeholder in ``value`` (nested lists and objects) by its string."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in list(items):
        if isinstance(item, str) and item in strings:
            value[key] = strings[item]
        elif isinstance(item, dict | list):
            _restore(item, strings)


def _cuts(data: bytes | bytearray, start: int, stop: int, base: int) -> array[int]:
    """Where the pieces of the string ``data[start:stop]`` start: after the first escaped
    newline from every PIECE_BYTES (a line longer than that stays whole in its piece)."""
    cuts: array[int] = array("Q", [base + start])
    position = start
    while stop - position > PIECE_BYTES:
        at = data.find(b"\\n", position + PIECE_BYTES, stop)
        while at >= 0 and _escaped(data, at, position):
            at = data.find(b"\\n", at + 1, stop)
        if at < 0:
            break
        position = at + 2
        if position < stop:
            cuts.append(base + position)
    return cuts


def _escaped(data: bytes | bytearray, at: int, low: int) -> bool:
    """True when the backslash at ``at`` is itself escaped (an odd run of them before it)."""
    run = 0
    while at - run - 1 >= low and data[at - run - 1] == _BACKSLASH:
        run += 1
    return run % 2 == 1
