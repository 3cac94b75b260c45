"""``run_info.json`` read for scoring without building its execution plans
(:func:`inspector.results.runinfo.run_info_without_plans`): wherever it answers,
``json.loads`` (AgentCompass's reader) accepts the whole file and the answer is what
parsing the whole file gave before (orjson), without the plans; where it cannot vouch for
that, it answers None and the file is parsed whole as before."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from inspector.results.runinfo import run_info_without_plans
from tests.conftest import FIXTURE_RUNS, conformance_runs
from tests.results.helpers import ALPHABET, mutated

PLANS = "resolved_execution_plans"
FILES = [
    path
    for root in [*sorted(FIXTURE_RUNS.iterdir()), *conformance_runs()]
    if (path := root / "run_info.json").is_file()
]


def _agrees(data: bytes, lean: dict[str, Any]) -> str | None:
    """Why ``lean`` is not the whole file parsed, less its plans, or why AgentCompass could
    not read the file (None: it is, and it could)."""
    try:
        json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        return f"json.loads refuses it: {exc}"
    value = orjson.loads(data)
    if type(value) is not dict:
        return "not an object"
    value.pop(PLANS, None)
    if value != lean or repr(value) != repr(lean):
        return f"{value!r} != {lean!r}"
    return None


def test_every_run_info_of_the_fixtures() -> None:
    answered = 0
    for path in FILES:
        data = path.read_bytes()
        lean = run_info_without_plans(data)
        if lean is not None:
            answered += 1
            assert PLANS not in lean
            assert _agrees(data, lean) is None, path
    assert answered > len(FILES) // 2, (answered, len(FILES))


PLAIN = json.dumps(
    {
        "finished_at": "2026-11-30T10:00:00Z",
        PLANS: {"cat/q1": {"1": {"seed": 3, "notes": ["think", 0.5]}}},
        "request": {"benchmark": {"id": "b"}, "execution": {"attempts": {"k": 3}}},
        "run_id": "run-1",
        "schema_version": "agentcompass.run_info.v3",
        "score": -0.0,
    },
    indent=2,
).encode()


def _with(old: bytes, new: bytes) -> bytes:
    assert old in PLAIN
    return PLAIN.replace(old, new, 1)


REFUSED = {
    "not UTF-8 in the plans": _with(b'"think"', b'"\xff"'),
    "an encoded surrogate in the plans": _with(b'"think"', b'"\xed\xa0\x80"'),
    "an integer longer than json.loads takes": _with(b'"seed": 3', b'"seed": ' + b"7" * 4301),
    "NaN in the plans": _with(b'"seed": 3', b'"seed": NaN'),
    "a lone surrogate escape in the plans": _with(b'"think"', b'"\\ud800"'),
    "a lone surrogate escape in a key": _with(b'"run_id"', b'"\\ud800"'),
    "broken JSON in the plans": _with(b'"seed": 3', b'"seed" 3'),
    "nested near the recursion limit": _with(b'"seed": 3', b'"seed": ' + b"[" * 1000 + b"]" * 1000),
    "trailing text": PLAIN + b" x",
    "not an object": b"[" + PLAIN + b"]",
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_what_it_cannot_vouch_for_is_parsed_whole(case: str) -> None:
    assert run_info_without_plans(REFUSED[case]) is None


def test_the_plain_file() -> None:
    lean = run_info_without_plans(PLAIN)
    assert lean is not None and _agrees(PLAIN, lean) is None
    assert repr(lean["score"]) == "-0.0"
    assert run_info_without_plans(_with(b'"score": -0.0', b'"score": 1, "score": 2'))["score"] == 2
    # Beyond 64 bits an integer becomes the float it did when the file was parsed whole.
    wide = _with(b'"run_id": "run-1"', b'"run_id": 18446744073709551616')
    assert repr(run_info_without_plans(wide)["run_id"]) == repr(orjson.loads(wide)["run_id"])


def test_mutated_files_it_answers_are_read_alike_by_json_loads() -> None:
    """Seeded random edits of real run_info files: wherever it answers, json.loads reads
    the same file and agrees with it."""
    bases = [path.read_bytes() for path in FILES[:12]] + [PLAIN]
    answered = 0
    for data in mutated(bases, seed=20261205, count=3000, alphabet=[*ALPHABET, b'"run_id": ']):
        lean = run_info_without_plans(data)
        if lean is not None:
            answered += 1
            assert _agrees(data, lean) is None, data
    assert answered > 300
