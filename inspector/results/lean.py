"""An attempt's ``result.json`` parsed for scoring only.

Nearly all of a result file is its trajectory, which scoring never reads. orjson builds
every object of it and then frees them; :func:`lean_result` parses the file with msgspec
against the shape of a plain attempt instead: the fields scoring keeps (``retry_count``,
``status``, ``metrics``, ``issues``) become Python values, the rest is checked as JSON and
as the kind of value shape_attempt wants (an object), and not built (faster than orjson:
docs/decisions/reading-results.md).

It answers only where the answer is the one ``json.loads`` gives (AgentCompass's reader):
- msgspec checks the JSON it skips except for two things, checked here first: that the
  bytes are UTF-8, and that no integer has more digits than ``json.loads`` converts
  (``sys.get_int_max_str_digits()``);
- integers are exact (orjson makes those beyond 64 bits floats), floats are correctly
  rounded, nesting fails near the recursion limit as ``json.loads`` does;
- anything else — a missing, unknown or other-typed field, NaN, a lone surrogate, scoring
  artifacts (kept whole) — gives None, and the caller parses the file as before.

:func:`checked_decode` is that check for any msgspec decoder (``run_info.json`` is checked
so by :func:`inspector.results.runinfo.run_info_without_plans`).
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Callable
from typing import Any

import msgspec

from inspector.engine.model import Attempt
from inspector.results.layout import is_canonical_attempt_key
from inspector.results.validate import SCORING_ARTIFACT_PREFIX, STATUS_OBJECTS

_UNSET = msgspec.UNSET
_Unset = msgspec.UnsetType


class _Object(msgspec.Struct):
    """Any JSON object: its contents are checked as JSON, not built."""


class _Meta(msgspec.Struct, forbid_unknown_fields=True):
    benchmark: _Object
    harness: _Object


class _Result(msgspec.Struct, forbid_unknown_fields=True):
    retry_count: int | _Unset = _UNSET
    status: str | _Unset = _UNSET
    metrics: dict[str, bool | int | float] | _Unset = _UNSET
    final_answer: msgspec.Raw | _Unset = _UNSET
    trajectory: _Object | _Unset = _UNSET
    issues: list[Any] | _Unset = _UNSET
    artifacts: dict[str, msgspec.Raw] | _Unset = _UNSET
    analysis_result: _Object | _Unset = _UNSET
    meta: _Meta | _Unset = _UNSET


_decode = msgspec.json.Decoder(_Result).decode
_DecodeError = msgspec.DecodeError
_DIGITS = range(48, 58)
_PLACEHOLDER_META: dict[str, dict[str, Any]] = {"benchmark": {}, "harness": {}}
_BIG = float(2**63)
# 0 means no limit: then no run is too long.
_MAX_DIGITS = sys.get_int_max_str_digits() or sys.maxsize


def lean_result(data: bytes) -> Any:
    """A result file's bytes decoded against the shape of a plain attempt (what
    :func:`payload_of` and :func:`plain_attempt` take), or None (parse it whole)."""
    result = checked_decode(_decode, data)
    return None if result is None or result.retry_count is _UNSET else result


def payload_of(result: Any) -> dict[str, Any] | None:
    """The payload scoring reads from a file :func:`lean_result` decoded, or None (parse it
    whole).

    The payload has the file's ``retry_count``, and, unless the file holds nothing else,
    its ``status``, ``metrics`` and ``issues``; ``final_answer``, ``trajectory``,
    ``artifacts`` (none of them scoring artifacts), ``analysis_result`` and ``meta``'s two
    namespaces are there as empty values of the kind they are, which is all that
    ``shape_attempt`` checks of them."""
    count = result.retry_count
    artifacts = result.artifacts
    others = (result.status, result.metrics, result.final_answer, result.trajectory,
              result.issues, artifacts, result.analysis_result, result.meta)  # fmt: skip
    if _UNSET in others:
        if all(value is _UNSET for value in others):
            return {"retry_count": count}  # a retry record alone
        return None
    if artifacts and any(name.startswith(SCORING_ARTIFACT_PREFIX) for name in artifacts):
        return None
    return {
        "retry_count": count,
        "status": result.status,
        "metrics": result.metrics,
        "final_answer": None,
        "trajectory": {},
        "issues": result.issues,
        "artifacts": {},
        "analysis_result": {},
        "meta": _PLACEHOLDER_META,
    }


def plain_attempt(result: Any, key: str) -> Attempt | None:
    """The attempt ``shape_attempt(payload_of(result), key)`` gives, made directly, for the
    usual attempt: every field there, a known status as written, no issue, no scoring
    artifact, and each observation named plainly, of its own type and under 2**63 in
    magnitude. None for any other (then the payload is shaped as usual, which says what
    is wrong)."""
    status = STATUS_OBJECTS.get(result.status) if type(result.status) is str else None
    metrics = result.metrics
    artifacts = result.artifacts
    if (
        status is None
        or type(metrics) is not dict
        or result.issues != []
        or type(artifacts) is not dict
        or _UNSET in (result.final_answer, result.trajectory, result.analysis_result, result.meta)
        or not is_canonical_attempt_key(key)
    ):
        return None
    if artifacts and any(name.startswith(SCORING_ARTIFACT_PREFIX) for name in artifacts):
        return None
    for name, value in metrics.items():
        if not name or name != name.strip():
            return None
        if type(value) is float and not -_BIG < value < _BIG:
            return None  # not finite (shape_attempt says so), or too large for the fast read
    return Attempt(int(key), status, metrics, (), {})


def stands_for_json_loads(data: bytes) -> bool:
    """True when msgspec accepting ``data`` means ``json.loads`` accepts it too, as far as
    this module's parsers ask: the bytes are UTF-8 and no integer has more digits than
    ``json.loads`` converts (msgspec checks neither in what it skips)."""
    if not data.isascii() and not _is_utf8(data):
        return False
    return not (len(data) > _MAX_DIGITS and _long_integer(data))


_UTF8_CHUNK = 1 << 16
_utf8_decode = codecs.utf_8_decode


def _is_utf8(data: bytes) -> bool:
    """True when ``data`` is UTF-8 (as ``data.decode()`` would say), decoded 64 KiB at a
    time: the text of a large file is built in the CPU's cache, not in a new string several
    times the file's size (docs/decisions/reading-results.md)."""
    view = memoryview(data)
    start, end = 0, len(data)
    try:
        while end - start > _UTF8_CHUNK:
            # Not final: a character cut by the chunk's end is left for the next chunk.
            start += _utf8_decode(view[start : start + _UTF8_CHUNK], "strict", False)[1]
        _utf8_decode(view[start:], "strict", True)
    except UnicodeDecodeError:
        return False
    return True


def checked_decode(decode: Callable[[bytes], Any], data: bytes) -> Any:
    """``decode(data)`` (a msgspec decoder), or None where that is not what ``json.loads``
    would accept (:func:`stands_for_json_loads`) or msgspec refuses it."""
    if not stands_for_json_loads(data):
        return None
    try:
        return decode(data)
    except (_DecodeError, RecursionError):
        return None


def _long_integer(data: bytes) -> bool:
    """True when ``data`` has a run of more digits than ``json.loads`` makes an integer
    of. Such a run covers one of the offsets 0, n, 2n… (n: the limit), so only the bytes
    there are looked at, and the runs through them measured."""
    end = len(data)
    for position in range(0, end, _MAX_DIGITS):
        if data[position] in _DIGITS:
            start = stop = position
            while start and data[start - 1] in _DIGITS:
                start -= 1
            while stop < end and data[stop] in _DIGITS:
                stop += 1
            if stop - start > _MAX_DIGITS:
                return True
    return False
