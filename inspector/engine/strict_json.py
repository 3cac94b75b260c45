"""JSON as every JSON parser reads it: the one way the inspector writes JSON.

Python's :mod:`json` writes a float that is not finite as ``NaN`` or ``Infinity``, which
standard parsers (``JSON.parse``, jq, ``json.loads(..., parse_constant=...)`` refusing them)
reject. Statistics that cannot be computed in floats are ``null`` with a reason where they
are made (:data:`inspector.views.stats.TOO_LARGE`); this is the safety net under every
output written as JSON (``--format json`` / ``jsonl``, exports, ``report --json``): a
non-finite float that still reaches it is written as ``null`` (``allow_nan=False``: never
as ``NaN``).
"""

from __future__ import annotations

import json
import math
from typing import IO, Any


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps(value, **options)`` with every non-finite float as ``null``."""
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError as exc:
        if "JSON compliant" not in str(exc):  # "Out of range float values are not ..."
            raise
    return json.dumps(finite(value), allow_nan=False, **options)


def dump(value: Any, stream: IO[str], **options: Any) -> None:
    """:func:`dumps` written to ``stream``."""
    stream.write(dumps(value, **options))


def finite(value: Any) -> Any:
    """``value`` with every float that is not finite (in dicts, lists and tuples) as None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value
