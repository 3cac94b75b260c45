"""A large attempt ``result.json`` read for the screens without building its trajectory.

AgentCompass writes ``result.json`` with ``json.dumps(indent=2)``, the payload's members in
order (``status``, ``metrics``, ``final_answer``, ``trajectory``, then ``issues``,
``artifacts``, ``analysis_result``, ``meta``, ``retry_count``). A JSON string never holds a
raw newline, so every newline of the file is layout, and a line is as deep as its
indentation says: in such a file the trajectory's steps open on lines ``      {`` (six
spaces) and the steps list closes on the first line ``    ]`` (four spaces) after it opens.

:func:`open_streamed` reads the file once, a chunk at a time, and keeps:

* everything before the steps (the head) and everything after them (the tail), each
  parsed as JSON (the parse is the check that the cut points are where the layout says);
* the byte offset of every step (8 bytes a step) and the steps grouped into pages of at
  most :data:`PAGE_BYTES` (or one step, if larger).

The steps themselves are parsed a page at a time (:meth:`StreamedAttempt.read_steps`), when
a screen shows them; a page that is not valid JSON is a :class:`ResultFileError` naming the
steps and the byte where it fails. Whether the run scores is decided by the reader, which
reads the whole file as AgentCompass does; this module only serves the screens. A file in
another layout raises :class:`NotStreamable` (the screens then parse it whole when it is
small enough).
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from io import BufferedReader
from pathlib import Path
from typing import Any, BinaryIO, cast, overload

from inspector.results.file_io import JsonError, open_regular
from inspector.results.long_text import decode, lift, place, read_range
from inspector.results.problems import RULE_JSON, LoadProblem, ResultFileError
from inspector.results.run_files import RunFiles

CHUNK = 1 << 20
PAGE_BYTES = 128 * 1024
"""The most bytes of steps parsed for one page (a larger step is a page of its own)."""
PAGE_STEPS = 32
HEAD_LIMIT = 4 * 1024**2
"""The most bytes read looking for the steps (before them: status, metrics, final_answer)."""
TAIL_LIMIT = 32 * 1024**2
"""The most bytes after the steps that are parsed (the screens' limit for a whole file)."""

STEPS_KEY = b'\n    "steps": ['
STEP_START = b"\n      {"
STEPS_CLOSE = b"\n    ]"
_OVERLAP = len(STEP_START) - 1
_WHITESPACE = b" \t\r\n"


class NotStreamable(Exception):
    """The file is not laid out as AgentCompass writes it; the message says where not."""


@dataclass(eq=False)
class StreamedAttempt:
    """One ``result.json`` with its steps located, not parsed."""

    rel: str
    full_path: Path
    size: int
    payload: dict[str, Any]
    """The parsed file, except ``trajectory.steps``: a :class:`StepList` over the file."""
    starts: array[int]
    """The byte offset of each step's ``{``."""
    steps_end: int
    """The byte offset of the newline before the ``]`` closing the steps."""
    pages: array[int] = field(default_factory=lambda: array("Q"))
    """The first step of each page."""

    def page_steps(self, page: int) -> range:
        """The steps of page ``page``."""
        stop = self.pages[page + 1] if page + 1 < len(self.pages) else len(self.starts)
        return range(self.pages[page], stop)

    def page_span(self, page: int) -> tuple[int, int]:
        """The bytes of the file page ``page``'s steps take (from the first's ``{``)."""
        steps = self.page_steps(page)
        end = self.starts[steps.stop] if steps.stop < len(self.starts) else self.steps_end
        return self.starts[steps.start], end

    def read_steps(self, first: int, count: int) -> list[Any]:
        """Steps ``first`` to ``first + count - 1`` (from 0), parsed.

        Raises:
            ResultFileError: they are not valid JSON (the message names the steps and the
                byte of the file where the parse fails) or the file cannot be read.
        """
        stop = min(len(self.starts), first + count)
        if first >= stop:
            return []
        begin = self.starts[first]
        end = self.starts[stop] if stop < len(self.starts) else self.steps_end
        body = read_range(self.full_path, self.rel, begin, end).rstrip(_WHITESPACE)
        if stop < len(self.starts):
            body = body.removesuffix(b",")
        one = stop - first == 1
        what = f"step {first + 1} is" if one else f"steps {first + 1}–{stop} are"
        try:
            steps = decode(b"[" + body + b"]")
        except JsonError:
            raise self._error(f"{what} {_where(body, begin)}") from None
        if not isinstance(steps, list) or len(steps) != stop - first:
            raise self._error(f"{what} not laid out as AgentCompass writes them")
        return steps

    def _error(self, message: str) -> ResultFileError:
        return ResultFileError(LoadProblem(self.rel, message, RULE_JSON, False))


def _where(body: bytes, begin: int) -> str:
    """Why ``[body]`` is not JSON and where, as a byte of the file (``begin``: body's offset)."""
    text = body.decode("utf-8", errors="surrogateescape")
    try:
        json.loads("[" + text + "]")
    except json.JSONDecodeError as exc:
        offset = begin + len(("[" + text)[: exc.pos].encode("utf-8", "surrogateescape")) - 1
        return f"not valid JSON: {exc.msg} at byte {offset:,} of the file"
    except (ValueError, RecursionError) as exc:
        return f"cannot be read: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
    return "not valid UTF-8"


class StepList(Sequence[Any]):
    """``trajectory.steps`` of a :class:`StreamedAttempt`: its length is known, a step is
    parsed from the file when asked for (a page at a time through ``attempt``)."""

    def __init__(self, attempt: StreamedAttempt) -> None:
        self.attempt = attempt

    def __len__(self) -> int:
        return len(self.attempt.starts)

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            first, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(first, stop, step)]
            return self.attempt.read_steps(first, max(0, stop - first))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self.attempt.read_steps(index, 1)[0]

    def __iter__(self) -> Iterator[Any]:
        for page in range(len(self.attempt.pages)):
            steps = self.attempt.page_steps(page)
            yield from self.attempt.read_steps(steps.start, len(steps))

    def __repr__(self) -> str:
        return f"<{len(self)} steps of {self.attempt.rel}>"


def open_streamed(run_path: Path, rel: str) -> StreamedAttempt:
    """Locate the steps of ``rel`` (one read of the file, a chunk at a time) and parse
    everything else.

    Raises:
        NotStreamable: the file is not in AgentCompass's layout, or its head or tail is
            larger than the screens parse.
        ResultFileError: the file cannot be read (a refused link, a FIFO, an I/O error).
    """
    files = RunFiles(run_path)
    refused = files.link_load_problem(rel, strict=True, blocking=False)
    if refused is not None:
        raise ResultFileError(refused)
    full = files.path(rel)
    try:
        with open_regular(full) as stream:
            size = os.fstat(stream.fileno()).st_size
            head, opened = _head(stream)
            starts, close = _steps(stream, opened)
            if size - close > TAIL_LIMIT:
                raise NotStreamable("the members after the trajectory's steps are too large")
            stream.seek(close)
            tail = _tail(stream, size - close, full, rel)
    except OSError as exc:
        message = f"cannot be read: {exc.strerror or exc}"
        raise ResultFileError(LoadProblem(rel, message, RULE_JSON, False)) from exc
    attempt = StreamedAttempt(rel, full, size, {}, starts, close)
    attempt.pages = _pages(starts, close)
    attempt.payload = _merge(head, tail, StepList(attempt))
    return attempt


def _head(stream: BinaryIO) -> tuple[dict[str, Any], int]:
    """The payload up to the steps (parsed, the steps list empty) and where they start."""
    data = bytearray()  # grown in place (a bytes += would copy it all at every chunk)
    searched = 0
    while len(data) <= HEAD_LIMIT:
        more = stream.read(max(64 * 1024, len(data)))  # the head is small, mostly
        data += more
        at = data.find(STEPS_KEY, max(0, searched - len(STEPS_KEY)))
        while at >= 0:
            opened = at + len(STEPS_KEY)
            head = _parsed(data[:opened] + b"]}}")
            trajectory = head.get("trajectory") if isinstance(head, dict) else None
            if (
                isinstance(trajectory, dict)
                and list(head)[-1] == "trajectory"
                and list(trajectory)[-1] == "steps"
            ):
                return head, opened
            at = data.find(STEPS_KEY, at + 1)
        searched = len(data)
        if not more:
            break
    raise NotStreamable("no trajectory steps where AgentCompass writes them")


def _steps(stream: BinaryIO, opened: int) -> tuple[array[int], int]:
    """The offset of each step's ``{`` and of the newline closing the steps list.

    Every step after the first follows a ``,``; the first line ``    ]`` after the last
    step closes the list (a line that shallow cannot be inside a step)."""
    starts: array[int] = array("Q")
    keep = len(STEP_START)
    data = bytearray(keep + CHUNK)  # one buffer, filled in place: no copy of the file
    view = memoryview(data)
    reader = cast(BufferedReader, stream)  # open_regular's
    stream.seek(opened)
    length = reader.readinto(view[:CHUNK])
    first = bytes(view[: min(length, 4096)]).lstrip(_WHITESPACE)
    if first.startswith(b"]"):  # "steps": [] (written on one line)
        return starts, opened + min(length, 4096) - len(first)
    base, skip = opened, 0  # data[0] is byte `base` of the file
    while True:
        found = data.find(STEP_START, skip, length)
        ended = False
        while found >= 0:
            if starts and data[found - 1] != ord(","):
                ended = True  # a list of objects after the steps
                break
            starts.append(base + found + len(STEP_START) - 1)
            found = data.find(STEP_START, found + 1, length)
        last = starts[-1] - base if starts and starts[-1] >= base else 0
        close = data.find(STEPS_CLOSE, last, length)
        if close >= 0 and (not ended or close < found):
            close += base
            break
        kept = min(length, keep)
        data[:kept] = data[length - kept : length]
        more = reader.readinto(view[kept : kept + CHUNK])
        if not more or ended:
            raise NotStreamable("the trajectory's steps do not end where AgentCompass writes it")
        base += length - kept
        length = kept + more
        skip = 1  # a match at 0 lies in the bytes kept, found already
    del view
    stream.seek(opened)
    lead = stream.read((starts[0] if starts else close) - opened)
    if lead.strip(_WHITESPACE):
        raise NotStreamable("a trajectory step is not laid out as AgentCompass writes it")
    return starts, close


def _tail(stream: BinaryIO, size: int, full: Path, rel: str) -> dict[str, Any]:
    """The payload after the steps (``size`` bytes from the stream's position), parsed; a
    long text member left in the file (:mod:`inspector.results.long_text`)."""
    opening = b'{"trajectory": {"steps": ['
    base = stream.tell() - len(opening)  # the file offset of data[0]
    data = bytearray(len(opening) + size)  # read in place: no second copy of a long tail
    data[: len(opening)] = opening
    cast(BufferedReader, stream).readinto(memoryview(data)[len(opening) :])  # open_regular's
    lifted, found = lift(data, base)
    tail = _parsed(lifted)
    if found and isinstance(tail, dict):
        place(tail, found, data, full, rel, base)
    del data, lifted
    trajectory = tail.get("trajectory") if isinstance(tail, dict) else None
    if (
        not isinstance(tail, dict)
        or not isinstance(trajectory, dict)
        or next(iter(tail)) != "trajectory"
        or next(iter(trajectory)) != "steps"
        or trajectory["steps"] != []
    ):
        raise NotStreamable("the trajectory's steps do not end where AgentCompass writes it")
    return tail


def _parsed(data: bytes | bytearray) -> Any:
    try:
        return decode(data)
    except JsonError:
        return None


def _pages(starts: array[int], close: int) -> array[int]:
    """The first step of each page: at most PAGE_STEPS steps and PAGE_BYTES bytes."""
    pages: array[int] = array("Q")
    first = 0
    for index in range(len(starts)):
        end = starts[index + 1] if index + 1 < len(starts) else close
        if index == first:
            pages.append(first)
        elif index - first >= PAGE_STEPS or end - starts[first] > PAGE_BYTES:
            first = index
            pages.append(first)
    return pages


def _merge(head: dict[str, Any], tail: dict[str, Any], steps: StepList) -> dict[str, Any]:
    payload = dict(head)
    trajectory = dict(head["trajectory"])
    trajectory["steps"] = steps
    for key, value in tail["trajectory"].items():
        if key != "steps":
            trajectory[key] = value
    payload["trajectory"] = trajectory
    for key, value in tail.items():
        if key != "trajectory":
            payload[key] = value
    return payload
