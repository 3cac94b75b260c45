"""The bytes a large result.json's skipping parse skips are checked as JSON (issue 53, item 4).

AgentCompass reads every result.json whole with ``json.loads``: JSON broken anywhere in a
trajectory makes it refuse the run, and what ``json.loads`` accepts (NaN, a lone surrogate)
it reads. A 2 MB file (over the size from which the trajectory is skipped) must get the
answer the same file gets when parsed whole, and that answer must be ``json.loads``'s.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from inspector.results import runinfo
from inspector.results.file_io import JsonError, parse_json
from inspector.results.reader import read_run
from tests.conftest import FIXTURE_RUNS

MARK = b'"PLANTED"'

# What replaces MARK (a string value inside the trajectory), and whether json.loads accepts it.
SHAPES = {
    "a stray byte": (b'"x" @', False),
    "a truncated string": (b'"never closed', False),
    "a bare control character": (b'"tab\there"', False),
    "a NUL byte in a string": (b'"nul\x00here"', False),
    "an invalid UTF-8 byte": (b'"caf\xe9"', False),
    "an overlong UTF-8 encoding": (b'"\xc0\xaf"', False),
    "a trailing comma": (b"[1, 2,]", False),
    "a single-quoted string": (b"'single'", False),
    "an integer too long for json.loads": (b"1" * 5000, False),
    "nesting past the recursion limit": (b"[" * 1100 + b"]" * 1100, False),
    "NaN": (b"NaN", True),
    "-Infinity": (b"-Infinity", True),
    "a lone surrogate escape": (b'"\\ud800"', True),
    "a large exponent (inf)": (b"1e400", True),
    "valid JSON": (b'{"fine": [1, "two", null]}', True),
}


def _plant(run: Path, snippet: bytes) -> Path:
    """Give one attempt a 2 MB trajectory with ``snippet`` in the middle of it."""
    result = sorted(run.glob("details/normal/*/attempt-1/result.json"))[0]
    payload = json.loads(result.read_text(encoding="utf-8"))
    steps: list[dict[str, object]] = [
        {"step_id": i, "observation": "x" * 2000} for i in range(1000)
    ]
    steps.insert(500, {"step_id": -1, "observation": "PLANTED"})
    payload["trajectory"] = {"schema_version": "ACTF_v1.0", "steps": steps}
    data = (json.dumps(payload, indent=2, ensure_ascii=False) + "\n").encode()
    assert data.count(MARK) == 1
    result.write_bytes(data.replace(MARK, snippet))
    assert result.stat().st_size >= 2_000_000 > runinfo.MIN_SIZE
    return result


def _answer(run: Path, rel: str) -> list[tuple[str, str, bool]]:
    """The problems reported for the planted file: (message, rule, blocking)."""
    loaded = read_run(run)
    return [(p.message, p.rule, p.blocking) for p in loaded.problems if p.path == rel]


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_skipped_trajectory_is_checked_as_agentcompass_reads_it(
    shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snippet, loads_accepts = SHAPES[shape]
    run = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    result = _plant(run, snippet)
    rel = result.relative_to(run).as_posix()
    try:
        json.loads(result.read_bytes().decode("utf-8"))
        accepted = True
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError included
        accepted = False
    assert accepted is loads_accepts  # the shape is what it says it is

    big = _answer(run, rel)
    big_tasks = read_run(run).tasks
    monkeypatch.setattr("inspector.results.tasks.MIN_SIZE", 10**12)  # parse it whole
    whole = _answer(run, rel)
    assert big == whole
    assert read_run(run).tasks == big_tasks
    # Refused exactly when json.loads refuses, with a blocking problem on that file.
    assert any(blocking for _, _, blocking in big) is not accepted


def test_the_comma_after_the_skipped_trajectory_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bytes cut out with the trajectory include the comma that separates it from the
    next member: a file without that comma is not JSON, and is refused on either path."""
    run = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    result = _plant(run, b"1")
    data = result.read_bytes()
    cut = data.index(b'\n  "', data.index(b'\n  "trajectory": ') + 1)
    assert data[cut - 1 : cut] == b","
    result.write_bytes(data[: cut - 1] + data[cut:])
    rel = result.relative_to(run).as_posix()
    with pytest.raises(json.JSONDecodeError):
        json.loads(result.read_bytes())
    big = _answer(run, rel)
    monkeypatch.setattr("inspector.results.tasks.MIN_SIZE", 10**12)
    assert big == _answer(run, rel)
    assert any(blocking for _, _, blocking in big)


def _trajectory_free(data: bytes) -> tuple[str, object]:
    """What the careful reader makes of a large file: the trajectory-free parse, else the
    file parsed whole (as tasks._read_result does)."""
    try:
        value = runinfo.parse_result_without_trajectory(data)
    except ValueError:
        value = None
    return ("parsed", value) if value is not None else _whole(data)


def _whole(data: bytes) -> tuple[str, object]:
    """What the careful reader makes of a small file, the trajectory put aside."""
    try:
        value = parse_json(data)
    except JsonError as exc:
        return ("refused", str(exc))
    if isinstance(value, dict) and isinstance(value.get("trajectory"), dict):
        value["trajectory"] = {}
    return ("parsed", value)


def test_random_damage_to_a_large_trajectory_gets_the_whole_parse_answer() -> None:
    """Bytes inserted, replaced or deleted at seeded random places of a 1.2 MB file's
    trajectory: the trajectory-free parse answers as the whole parse does, which accepts
    exactly what json.loads accepts."""
    steps = [{"step_id": i, "text": "résumé — ok", "v": [1.5, -2, None, True]} for i in range(9000)]
    payload = {"status": "completed", "metrics": {"score": 1.0}, "trajectory": {"steps": steps}}
    payload["retry_count"] = 0
    base = (json.dumps(payload, indent=2, ensure_ascii=False) + "\n").encode()
    assert len(base) > runinfo.MIN_SIZE
    low, high = base.index(b'"trajectory"'), base.index(b'\n  "retry_count"')
    alphabet = [bytes([b]) for b in b'\x00\x01\t\n "\\{}[],:-.0123456789eENaI'] + [
        b"\xff",
        b"\xc3",
        b"\x80",
        b"\xed\xa0\x80",
        b"\\u",
        b"\\ud800",
        b"NaN",
        b"true",
    ]
    rnd = random.Random(53)
    seen = {"parsed": 0, "refused": 0}
    for _ in range(120):
        at = rnd.randrange(low, high)
        piece = rnd.choice(alphabet)
        cut = rnd.choice((0, 0, 1, len(piece)))  # insert, or replace, or delete
        data = base[:at] + (b"" if cut == 1 and rnd.random() < 0.3 else piece) + base[at + cut :]
        whole = _whole(data)
        assert _trajectory_free(data) == whole, data[at - 20 : at + 20]
        try:
            json.loads(data.decode("utf-8"))
            loads_accepts = True
        except (ValueError, RecursionError):
            loads_accepts = False
        assert (whole[0] == "parsed") is loads_accepts, data[at - 20 : at + 20]
        seen[whole[0]] += 1
    assert min(seen.values()) > 20, seen
