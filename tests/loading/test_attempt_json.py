"""The result.json parser that skips the trajectory (inspector/results/attempt_json.py)
answers only with what the careful reader gets (orjson, else the standard library, as
``load_published`` parses) for every field an entry keeps, and declines the rest."""

from __future__ import annotations

import json
import math
import os
import random
import sys
from typing import Any

import orjson
import pytest

from inspector.results.attempt_json import attempt_payload
from inspector.results.validate import DetailError, shape_attempt

REJECTED = object()


def careful(data: bytes) -> Any:
    """What the careful reader parses (inspector.results.layout.parse_json's order)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return REJECTED


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types (a bool is not an int, -0.0 is not 0.0), in order."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is float:
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return bool(a == b)


def kept(payload: dict[str, Any]) -> tuple[Any, ...]:
    """What a task entry keeps of a payload: its retry_count and the attempt as
    ``shape_attempt`` makes it (or the message it refuses it with)."""
    rest = dict(payload)
    count = rest.pop("retry_count", None)
    try:
        attempt = shape_attempt(rest, "1")
    except DetailError as exc:
        return (count, str(exc))
    issues = tuple((i.severity, i.phase, i.code, i.message) for i in attempt.issues)
    return (count, attempt.status, attempt.metrics, issues, attempt.scoring_artifacts)


def agrees(data: bytes) -> bool:
    """The quick answer is None, or keeps what the careful parse keeps (the trajectory an
    object in both)."""
    quick = attempt_payload(data)
    if quick is None:
        return True
    ref = careful(data)
    if type(ref) is not dict or set(ref) != set(quick):  # the order of fields is unused
        return False
    if "trajectory" in quick and (quick["trajectory"] != {} or type(ref["trajectory"]) is not dict):
        return False
    return same(kept(quick), kept(ref))


def document(**changes: Any) -> dict[str, Any]:
    steps = [
        {
            "step_id": n,
            "assistant_content": {"content": f"step {n} ü", "tool_calls": []},
            "metric": {"prompt_tokens_len": 900 + n, "cost": 0.25 * n},
        }
        for n in range(5)
    ]
    doc: dict[str, Any] = {
        "status": "completed",
        "metrics": {"correct": True, "score": 0.1, "n": 3},
        "final_answer": "Answer: 858",
        "trajectory": {"schema_version": "ACTF_v1.0", "steps": steps},
        "issues": [{"severity": "warning", "phase": "run", "code": "c", "message": "m"}],
        "artifacts": {"gdpval_ac_rate": 0.5, "other": [1, 2]},
        "analysis_result": {},
        "meta": {"benchmark": {"id": "b"}, "harness": {}},
        "retry_count": 1,
    }
    doc.update(changes)
    return doc


def encoded(**changes: Any) -> bytes:
    return json.dumps(document(**changes), indent=2, ensure_ascii=False).encode()


def test_a_plain_result_is_answered_as_the_careful_reader_parses_it() -> None:
    data = encoded()
    quick = attempt_payload(data)
    assert quick is not None
    expected = orjson.loads(data)
    expected["trajectory"] = {}
    assert same(quick, expected)


def test_a_retry_only_result_is_answered() -> None:
    assert attempt_payload(b'{"retry_count": 2}') == {"retry_count": 2}


def with_trajectory(text: bytes) -> bytes:
    """A plain result whose trajectory holds ``text`` as the value of one more key."""
    return encoded().replace(b'"trajectory": {', b'"trajectory": {"x": ' + text + b", ", 1)


DECLINED = {
    "not UTF-8 in the trajectory": with_trajectory(b'"\xff\xfe"'),
    "an encoded surrogate in the trajectory": with_trajectory(b'"\xed\xa0\x80"'),
    "an overlong encoding in the trajectory": with_trajectory(b'"\xc0\xaf"'),
    "past U+10FFFF in the trajectory": with_trajectory(b'"\xf4\x90\x80\x80"'),
    "more digits than int() takes in the trajectory": with_trajectory(
        b"7" * (sys.get_int_max_str_digits() + 1)
    ),
    "NaN in the trajectory": with_trajectory(b"NaN"),
    "a lone surrogate escape in the trajectory": with_trajectory(b'"\\ud800"'),
    "nested deeper than the readers go": with_trajectory(b"[" * 1100 + b"]" * 1100),
    "a trajectory that is a list": encoded(trajectory=[1]),
    "a trajectory that is null": encoded(trajectory=None),
    "an unknown field": encoded(error="boom"),
    "a top level that is a list": b"[1]",
    "an integer beyond 64 bits in metrics": encoded(metrics={"big": 2**64}),
    "an integer below 64 bits in metrics": encoded(metrics={"big": -(2**63) - 1}),
    "a large float in metrics": encoded(metrics={"big": 1e19}),
    "an integer beyond 64 bits as retry_count": encoded(retry_count=2**64),
    "an artifact orjson cannot parse": encoded().replace(
        b'"other": [', b'"other": [1e400, ', 1
    ),
    "not JSON after the document": encoded() + b" x",
    "a truncated file": encoded()[:-40],
}


@pytest.mark.parametrize("case", list(DECLINED))
def test_what_the_quick_parse_cannot_vouch_for_is_declined(case: str) -> None:
    assert attempt_payload(encoded()) is not None
    assert attempt_payload(DECLINED[case]) is None, case


def test_values_kept_are_orjsons_exactly() -> None:
    # artifacts are orjson's own (a big integer becomes its float there, as the careful
    # reader keeps it); integers inside 64 bits, -0.0, bools and key order as orjson's.
    data = encoded(
        artifacts={"gdpval_ac_n": 2**70, "gdpval_ac_z": -0.0},
        metrics={"b": True, "a": 1, "z": -0.0, "u64": 2**64 - 1, "small": 5e-324},
    )
    quick = attempt_payload(data)
    assert quick is not None
    assert type(quick["artifacts"]["gdpval_ac_n"]) is float
    assert agrees(data)
    # Duplicate keys: the last value, at the first one's place (both readers).
    dup = b'{"metrics": {"a": 1, "b": 2, "a": 3}, "status": "x", "status": "completed", "retry_count": 0}'
    assert attempt_payload(dup) == {"status": "completed", "metrics": {"a": 3, "b": 2}, "retry_count": 0}
    assert agrees(dup)


def test_the_longest_integer_int_takes_is_still_answered() -> None:
    # A run of digits the standard library still converts (orjson refuses the file, the
    # careful reader then parses it with the standard library): the same values.
    data = with_trajectory(b"7" * sys.get_int_max_str_digits())
    assert attempt_payload(data) is not None
    assert agrees(data)


TOKENS = [
    *(bytes([c]) for c in b'{}[]":,\\ 09-.eE+\x00\x01\x0b\x0c\x7f\xff\xc3\xa9\n\t\r'),
    b"1e400", b"true", b"nul", b"NaN", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf",
    b"\\u", b"\\ud800", b"\\udc00", b"\\ud83d\\ude00", b"\\u0000", b"\\x", b"\xc2\xa0",
    b"1" * 400, b"2" * 4301, b"3" * 4300, b'"status"', b'"metrics"', b'"trajectory"',
    b'"retry_count"', b'"artifacts"', b"-0.0", b"18446744073709551616", b"-9223372036854775809",
    b"1e-400", b'"a":1', b'{"a":' * 600, b"}" * 600, b"[" * 1100,
]  # fmt: skip


def test_mutated_results_are_answered_as_the_careful_reader_parses_them_or_declined() -> None:
    rng = random.Random(int(os.environ.get("FUZZ_SEED", "11")))
    bases = [encoded(), encoded(retry_count=0, issues=[]), b'{"retry_count": 0}']
    answered = 0
    for _ in range(int(os.environ.get("FUZZ_CASES", "6000"))):
        data = bytearray(rng.choice(bases))
        for _ in range(rng.choice((1, 1, 2, 3))):
            at = rng.randrange(len(data) + 1)
            token = rng.choice(TOKENS)
            choice = rng.random()
            if choice < 0.4:
                data[at:at] = token
            elif choice < 0.7:
                data[at : at + len(token)] = token
            else:
                del data[at : at + rng.choice((1, 2, 5))]
        answered += attempt_payload(bytes(data)) is not None
        assert agrees(bytes(data)), bytes(data)
    assert answered > 500  # many mutants still parse: the comparison is not vacuous
