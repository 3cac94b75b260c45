"""An attempt's ``result.json`` parsed without building its trajectory (issue 11).

Nearly all of a ``result.json`` is its ``trajectory`` (the agent's steps), which scoring
never reads: it is only checked to be an object. :func:`attempt_payload` parses the file
with msgspec against a typed structure naming the nine fields AgentCompass writes, so the
trajectory is skipped where it lies (checked as JSON, never turned into Python objects)
and every other field is parsed as usual.

It answers only where the result is exactly what the careful reader
(:func:`~inspector.results.tasks.load_published`: orjson, then the standard library) gets
for every value the entry keeps; anything else gives None, and the careful reader reads
the file and says what is wrong. So it declines:

- a file msgspec cannot parse or whose fields are not the nine (an unknown one, a top
  level that is not an object), or with a trajectory that is not an object;
- bytes that are not UTF-8 (msgspec does not check the strings it skips; orjson and the
  standard library refuse the file);
- a run of digits the standard library may not turn into an integer
  (``sys.get_int_max_str_digits``; msgspec skips such numbers, the standard library
  refuses the file);
- an integer beyond 64 bits in ``metrics`` or ``retry_count`` (orjson makes it a float,
  and the careful reader parses again exactly), a large float there;
- ``artifacts`` (where scoring reads ``gdpval_ac_*`` values) is parsed by orjson itself,
  so its values are orjson's, big integers included.
"""

from __future__ import annotations

import sys
from typing import Any

import msgspec
import orjson

_UNSET: Any = msgspec.UNSET
_LOW, _HIGH = -(2**63), 2**64  # orjson keeps integers in this range exact
_BIG = float(2**63)
_DIGITS = bytes(48 if 48 <= byte < 58 else 32 for byte in range(256))  # digits as "0"


class _Result(msgspec.Struct, forbid_unknown_fields=True):
    """The fields of a result.json (a missing one stays unset: the careful reader's
    validation names it)."""

    status: Any = _UNSET
    metrics: Any = _UNSET
    final_answer: Any = _UNSET
    trajectory: msgspec.Raw = _UNSET
    issues: Any = _UNSET
    artifacts: msgspec.Raw = _UNSET
    analysis_result: Any = _UNSET
    meta: Any = _UNSET
    retry_count: Any = _UNSET


_decode = msgspec.json.Decoder(_Result).decode
_FIELDS = _Result.__struct_fields__


def attempt_payload(data: bytes) -> dict[str, Any] | None:
    """The parsed result.json (its trajectory, when an object, as ``{}``), or None when
    it must be read by the careful reader."""
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if _long_digit_run(data):
        return None
    try:
        parsed = _decode(data)
    except (msgspec.DecodeError, ValueError, RecursionError):
        return None
    payload: dict[str, Any] = {}
    for name in _FIELDS:
        value = getattr(parsed, name)
        if value is not _UNSET:
            payload[name] = value
    trajectory = payload.get("trajectory")
    if trajectory is not None:
        if bytes(memoryview(trajectory)[:1]) != b"{":
            return None
        payload["trajectory"] = {}
    artifacts = payload.get("artifacts")
    if artifacts is not None:
        try:
            payload["artifacts"] = orjson.loads(memoryview(artifacts))
        except orjson.JSONDecodeError:
            return None
    count = payload.get("retry_count")
    if type(count) is int and not _LOW <= count < _HIGH:
        return None
    metrics = payload.get("metrics")
    if type(metrics) is dict:
        for value in metrics.values():
            kind = type(value)
            if (kind is int and not _LOW <= value < _HIGH) or (kind is float and abs(value) >= _BIG):
                return None
    return payload


def _long_digit_run(data: bytes) -> bool:
    """True when ``data`` may hold more consecutive digits than the standard library turns
    into an integer. Any such run covers a multiple of the limit, so only the bytes at
    those offsets are looked at first."""
    limit = sys.get_int_max_str_digits()
    if limit <= 0 or len(data) <= limit:
        return False
    run = b"0" * (limit + 1)
    for at in range(limit, len(data), limit):
        if 48 <= data[at] < 58:
            window = data[max(0, at - limit) : at + limit + 1]
            if window.translate(_DIGITS).find(run) >= 0:
                return True
    return False
