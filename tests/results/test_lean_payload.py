"""The lean parse of result files (inspector/results/lean.py) answers only as
``json.loads`` (AgentCompass's reader) does: the fields scoring keeps equal, the fields it
skips of the kind it says, and None for anything it cannot vouch for."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from inspector.results import lean
from inspector.results.lean import lean_result, payload_of, plain_attempt
from inspector.results.validate import DetailError, shape_attempt
from tests.conftest import FIXTURE_RUNS, conformance_runs
from tests.results.helpers import mutated

KEPT = ("retry_count", "status", "metrics", "issues")
OBJECTS = ("trajectory", "analysis_result", "meta")
FIELDS = {*KEPT, *OBJECTS, "final_answer", "artifacts"}


def lean_payload(data: bytes) -> dict[str, Any] | None:
    """What the quick reader takes from a result file (``results/quick.py``): the payload of
    the file :func:`lean_result` decodes, or None (the file is parsed whole)."""
    result = lean_result(data)
    return None if result is None else payload_of(result)


def _result_files() -> list[Path]:
    roots = [*sorted(FIXTURE_RUNS.iterdir()), *conformance_runs()]
    return [
        path for root in roots for path in sorted(root.glob("details/*/*/attempt-*/result.json"))
    ]


RESULTS = _result_files()


def _loads(data: bytes) -> Any:
    return json.loads(data.decode("utf-8"))


def _agrees(data: bytes, lean: dict[str, Any]) -> str | None:
    """Why ``lean`` is not what ``json.loads`` makes of ``data`` (None: it is)."""
    try:
        value = _loads(data)
    except (ValueError, RecursionError) as exc:
        return f"json.loads refuses it: {exc}"
    if type(value) is not dict:
        return "not an object"
    if set(lean) == {"retry_count"}:
        return None if value == lean else f"a retry record, but the file has {sorted(value)}"
    if set(value) != FIELDS:
        return f"fields {sorted(value)}"
    for name in KEPT:
        if value[name] != lean[name] or repr(value[name]) != repr(lean[name]):
            return f"{name}: {value[name]!r} != {lean[name]!r}"
    for name in OBJECTS:
        if type(value[name]) is not dict:
            return f"{name} is {type(value[name]).__name__}"
    meta = value["meta"]
    if set(meta) != {"benchmark", "harness"} or any(type(v) is not dict for v in meta.values()):
        return f"meta {meta!r}"
    if type(value["artifacts"]) is not dict or any(
        k.startswith("gdpval_ac_") for k in value["artifacts"]
    ):
        return "artifacts"
    return None


def test_every_result_file_of_the_fixtures() -> None:
    answered = 0
    for path in RESULTS:
        data = path.read_bytes()
        lean = lean_payload(data)
        if lean is not None:
            answered += 1
            assert _agrees(data, lean) is None, path
    assert answered > len(RESULTS) // 2, (answered, len(RESULTS))


PLAIN = json.dumps(
    {
        "status": "completed",
        "metrics": {"correct": True, "score": 0.25},
        "final_answer": "42",
        "trajectory": {"steps": [{"content": "think", "n": 3}]},
        "issues": [],
        "artifacts": {},
        "analysis_result": {},
        "meta": {"benchmark": {"x": 1}, "harness": {}},
        "retry_count": 0,
    }
).encode()


def _with(old: bytes, new: bytes) -> bytes:
    assert old in PLAIN
    return PLAIN.replace(old, new, 1)


REFUSED = {
    "not UTF-8 in the trajectory": _with(b'"think"', b'"\xff"'),
    "an encoded surrogate": _with(b'"think"', b'"\xed\xa0\x80"'),
    "an integer longer than json.loads takes": _with(b'"n": 3', b'"n": ' + b"7" * 4301),
    "NaN in the trajectory": _with(b'"n": 3', b'"n": NaN'),
    "a lone surrogate escape": _with(b'"think"', b'"\\ud800"'),
    "a null trajectory": _with(b'{"steps": [{"content": "think", "n": 3}]}', b"null"),
    "a null meta namespace": _with(b'"harness": {}', b'"harness": null'),
    "an unknown field": _with(b'"retry_count": 0', b'"retry_count": 0, "error": "x"'),
    "a missing field": _with(b'"final_answer": "42", ', b""),
    "no retry_count": _with(b', "retry_count": 0', b""),
    "a scoring artifact": _with(b'"artifacts": {}', b'"artifacts": {"gdpval_ac_rate": 1}'),
    "a null metric": _with(b'"score": 0.25', b'"score": null'),
    "a boolean retry_count": _with(b'"retry_count": 0', b'"retry_count": true'),
    "nested near the recursion limit": _with(b'"n": 3', b'"n": ' + b"[" * 1000 + b"]" * 1000),
    "trailing text": PLAIN + b" x",
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_what_it_cannot_vouch_for_is_parsed_whole(case: str) -> None:
    assert lean_payload(REFUSED[case]) is None


def test_the_plain_payload_and_a_retry_record() -> None:
    lean = lean_payload(PLAIN)
    assert lean is not None and _agrees(PLAIN, lean) is None
    assert lean["metrics"] == {"correct": True, "score": 0.25}
    assert lean_payload(b'{"retry_count": 2}') == {"retry_count": 2}
    digits = _with(b'"n": 3', b'"n": ' + b"7" * 4300)  # as long as json.loads takes
    assert lean_payload(digits) is not None
    assert (
        lean_payload(_with(b'"score": 0.25', b'"score": 18446744073709551616'))["metrics"]["score"]
        == 2**64
    )


def test_mutated_files_it_answers_are_read_alike_by_json_loads() -> None:
    """Seeded random edits of real result files: wherever the lean parse answers, json.loads
    reads the same file and agrees with it."""
    bases = [path.read_bytes() for path in RESULTS[:40]] + [PLAIN]
    answered = 0
    for data in mutated(bases, seed=20261203, count=6000):
        lean = lean_payload(data)
        if lean is not None:
            answered += 1
            assert _agrees(data, lean) is None, data
    assert answered > 500


def test_a_long_integer_is_found_wherever_it_lies() -> None:
    """Only some offsets are looked at: a run one digit too long is still found at every
    position (every padding up to the limit and past it)."""
    for pad in range(4302):
        data = _with(b'"n": 3', b'"pad": "' + b"x" * pad + b'", "n": ' + b"7" * 4301)
        assert lean_payload(data) is None, pad
        assert lean_payload(data.replace(b"7" * 4301, b"7" * 4300)) is not None, pad


def test_utf8_is_checked_across_every_chunk_boundary(monkeypatch: pytest.MonkeyPatch) -> None:
    """The UTF-8 check decodes a chunk at a time: a character cut by a chunk's end, or a
    bad byte at any offset, gets the answer ``bytes.decode`` gives (chunks of 7 bytes, so
    every offset in a character of 1-4 bytes meets a boundary)."""
    monkeypatch.setattr(lean, "_UTF8_CHUNK", 7)
    pieces = [b"a", b"\xc3\xa9", b"\xe2\x80\x94", b"\xf0\x9f\x98\x80"]
    broken = [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x80", b"\xc3", b"\x80"]
    rnd = random.Random(53)
    seen = {True: 0, False: 0}
    for _ in range(20_000):
        choices = pieces if rnd.random() < 0.6 else pieces + broken
        data = b"".join(rnd.choice(choices) for _ in range(rnd.randint(0, 14)))
        try:
            data.decode("utf-8")
            valid = True
        except UnicodeDecodeError:
            valid = False
        assert lean.stands_for_json_loads(data) is valid, data
        seen[valid] += 1
    assert min(seen.values()) > 1000


def _shaped(data: bytes, key: str) -> str:
    """What shaping the lean payload of ``data`` gives: the attempt's repr (which tells
    ``True`` from ``1``), or why there is none."""
    result = lean_result(data)
    payload = None if result is None else payload_of(result)
    if payload is None:
        return "parsed whole"
    payload = dict(payload)
    payload.pop("retry_count")
    if not payload:
        return "a retry record"
    try:
        return repr(shape_attempt(payload, key))
    except DetailError as exc:
        return f"refused: {exc}"


MADE_ELSEWHERE = {
    "an issue": _with(b'"issues": []', b'"issues": [{"severity": "warning"}]'),
    "a status not as written": _with(b'"completed"', b'" completed"'),
    "an unknown status": _with(b'"completed"', b'"finished"'),
    "a name with spaces around it": _with(b'"score"', b'" score"'),
    "an empty name": _with(b'"score"', b'""'),
    "an infinite observation": _with(b"0.25", b"1e999"),
    "an observation beyond 2**63": _with(b"0.25", b"9.3e18"),
    "a scoring artifact": _with(b'"artifacts": {}', b'"artifacts": {"gdpval_ac_rate": 1}'),
    "a retry record": b'{"retry_count": 2}',
}


@pytest.mark.parametrize("case", list(MADE_ELSEWHERE))
def test_only_the_usual_attempt_is_made_at_once(case: str) -> None:
    result = lean_result(MADE_ELSEWHERE[case])
    assert result is None or plain_attempt(result, "1") is None


def test_an_attempt_made_at_once_is_what_shape_attempt_makes() -> None:
    """Every fixture result file, the cases above and seeded random edits: wherever
    plain_attempt answers, shaping the payload gives the same attempt (and under a key
    that is not canonical it never answers)."""
    files = [path.read_bytes() for path in RESULTS]
    edits = mutated([*files[:40], PLAIN], seed=20261205, count=4000)
    answered = 0
    for data in [*files, PLAIN, *MADE_ELSEWHERE.values(), *edits]:
        result = lean_result(data)
        if result is None:
            continue
        assert plain_attempt(result, "01") is None
        attempt = plain_attempt(result, "2")
        if attempt is not None:
            answered += 1
            assert repr(attempt) == _shaped(data, "2"), data
    assert answered > len(files) // 2
