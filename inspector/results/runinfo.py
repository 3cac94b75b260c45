"""Reading a large ``run_info.json`` without its per-task execution plans.

``run_info.json`` carries ``resolved_execution_plans`` — one entry per task and attempt —
which grows to hundreds of megabytes on large runs (about 190 MB at 50,000 tasks × k=3)
and is never needed for scoring. AgentCompass writes the file with ``sort_keys=True`` and
``indent=2``, so every top-level key starts a line with exactly two spaces; a raw newline
never occurs inside a JSON string. The section is cut out of the bytes before parsing and
parsed only when asked for; when the file does not have that shape, the whole file is
parsed as usual.
"""

from __future__ import annotations

import os
import re
from typing import Any

import msgspec
import orjson

from inspector.results.file_io import read_all
from inspector.results.lean import checked_decode

PLANS_KEY = b'\n  "resolved_execution_plans": '
MIN_SIZE = 1 << 20  # below 1 MiB parsing everything is cheap enough
# Not lower: AgentCompass reads run_info.json whole, so JSON broken inside the plans makes the
# run unreadable; below this size the inspector parses them too and says so (a lower cut
# scored such runs: docs/decisions/reading-results.md).
PLANS_MIN_SIZE = MIN_SIZE


def member_span(
    data: bytes, key: bytes = PLANS_KEY, min_size: int | None = None
) -> tuple[int, int] | None:
    """``(start, end)`` of one top-level member of an indent-2 JSON object (with its newline
    and trailing comma), or None when the file is smaller than ``min_size`` (default
    :data:`MIN_SIZE`) or not laid out that way."""
    if len(data) < (MIN_SIZE if min_size is None else min_size):
        return None
    start = data.find(key)
    if start < 0:
        return None
    # The member is large and the ones after it are small: find the next top-level line by
    # walking back from the end instead of scanning the member. A line starting with
    # exactly two spaces and a quote is a top-level key (a raw newline never occurs in a
    # JSON string; nested keys are indented further).
    end = -1
    cursor = len(data)
    while True:
        line = data.rfind(b'\n  "', start + 1, cursor)
        if line < 0:
            break
        if data.startswith(key, line):
            return None  # the key twice: not the layout we expect
        end, cursor = line, line
    if end < 0:
        return None  # the last member: keep the simple path
    return start, end


_LINE = b'\n  "'  # a top-level key starts a line so
# Searched for by a compiled pattern: bytes.find takes twice as long over the plans, whose
# every line starts with the newline and two spaces.
_NEXT_LINE = re.compile(re.escape(_LINE)).search
_CHUNK = 1 << 20


def read_without_plans(fd: int, size: int, max_bytes: int | None) -> bytes | None:
    """What :func:`~inspector.results.file_io.read_all` reads, with the
    ``resolved_execution_plans`` member cut out as :func:`plans_span` would cut it, without
    ever holding that member in memory (38 MB of a 10,000-task run's file, the largest
    thing its report would otherwise hold). Files smaller than :data:`PLANS_MIN_SIZE`, or
    not laid out as :func:`member_span` expects, are read whole; None when the file grows
    beyond ``max_bytes`` while read.

    The member ends where the first top-level line after its key starts; that line and
    everything after it are kept, and a second top-level key of the same name makes the
    file be read whole (as :func:`member_span` then declines)."""
    if size < PLANS_MIN_SIZE:
        return read_all(fd, size, max_bytes)
    total = 0

    def more() -> bytes:
        nonlocal total
        chunk = os.read(fd, _CHUNK)
        total += len(chunk)
        if max_bytes is not None and total > max_bytes:
            raise _TooLarge
        return chunk

    try:
        head = bytearray()
        start = -1
        while start < 0:
            chunk = more()
            if not chunk:
                return bytes(head)  # no such member: read whole
            searched = max(0, len(head) - len(PLANS_KEY) + 1)
            head += chunk
            start = head.find(PLANS_KEY, searched)
        rest = head[start + 1 :]
        del head[start:]
        found = _NEXT_LINE(rest)
        while found is None:
            rest = rest[-(len(_LINE) - 1) :]
            chunk = more()
            if not chunk:
                return _whole(fd, size, max_bytes)  # the last member: the simple path
            rest += chunk
            found = _NEXT_LINE(rest)
        tail = rest[found.start() :]
        while chunk := more():
            tail += chunk
    except _TooLarge:
        return None
    if PLANS_KEY in tail:
        return _whole(fd, size, max_bytes)  # the key twice: not the layout we expect
    head += tail
    return bytes(head)


class _TooLarge(Exception):
    """The file grew beyond the limit while read."""


def _whole(fd: int, size: int, max_bytes: int | None) -> bytes | None:
    os.lseek(fd, 0, os.SEEK_SET)
    return read_all(fd, size, max_bytes)


def plans_span(data: bytes, min_size: int = PLANS_MIN_SIZE) -> tuple[int, int] | None:
    """``(start, end)`` of the ``resolved_execution_plans`` member (of a file of at least
    ``min_size`` bytes)."""
    return member_span(data, PLANS_KEY, min_size)


_members = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode


def parse_result_without_trajectory(data: bytes) -> Any:
    """A large ``result.json`` parsed without its trajectory (replaced by ``{}``), or None
    (then the caller parses it whole, as a small file is: ``json.loads`` has the last word).

    Scoring never reads the trajectory, which is most of a large attempt file; skipping it
    keeps a 200 MB file from becoming gigabytes of Python objects. AgentCompass reads the
    file whole with ``json.loads``, so a trajectory that is not JSON makes it refuse the
    run: msgspec checks every byte of the file as JSON and builds none of the trajectory
    (with :func:`~inspector.results.lean.checked_decode`, which looks at the UTF-8 and the
    integers msgspec does not check in what it skips), and each other member is parsed by
    orjson. Wherever msgspec refuses (broken JSON, but also NaN, a lone surrogate, nesting
    near the recursion limit, which ``json.loads`` may accept) the answer is None, as it is
    for a trajectory that is not an object (left for validation to refuse). Raises what
    orjson raises.
    """
    members = checked_decode(_members, data)
    if members is None:
        return None
    trajectory = members.get("trajectory")
    if trajectory is None or bytes(memoryview(trajectory)[:1]) != b"{":
        return None
    value: dict[str, Any] = {}
    for name, member in members.items():
        value[name] = {} if name == "trajectory" else orjson.loads(memoryview(member))
    return value


def parse_without_plans(
    data: bytes, min_size: int = PLANS_MIN_SIZE
) -> tuple[Any, tuple[int, int] | None]:
    """The parsed document without ``resolved_execution_plans``, and where that section is
    (cut from files of at least ``min_size`` bytes).

    Returns ``(value, None)`` when the file was parsed whole. Raises what orjson raises for
    a document that is not JSON at all.
    """
    span = plans_span(data, min_size)
    if span is not None:
        start, end = span
        try:
            value = orjson.loads(data[:start] + data[end:])
        except orjson.JSONDecodeError:
            value = None
        if isinstance(value, dict) and "resolved_execution_plans" not in value:
            return value, span
    return orjson.loads(data), None


def run_info_without_plans(data: bytes) -> dict[str, Any] | None:
    """``run_info.json``'s members except ``resolved_execution_plans``, each as orjson
    parses it, or None (parse the file as before, :func:`parse_without_plans`).

    AgentCompass reads the file whole, so JSON broken anywhere in the plans makes the run
    unreadable, however small the file: msgspec checks the whole file as JSON (a third of
    the time orjson takes to build it) and builds none of the plans. It answers only where
    orjson parsing the file whole gives the same members: msgspec accepts less than orjson
    and ``json.loads`` (NaN, a lone surrogate, a document that is not an object, nesting
    short of orjson's limit: then None), except for the two things
    :func:`~inspector.results.lean.checked_decode` looks at first."""
    members = checked_decode(_members, data)
    if members is None:
        return None
    value: dict[str, Any] = {}
    for name, member in members.items():
        if name != "resolved_execution_plans":
            try:
                value[name] = orjson.loads(memoryview(member))
            except orjson.JSONDecodeError:
                return None
    return value
