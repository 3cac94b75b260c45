"""inspector.results.stream: a result.json's steps located, then read a page at a time."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from inspector.results import long_text
from inspector.results import stream as stream_module
from inspector.results.file_io import parse_json
from inspector.results.long_text import LongString
from inspector.results.problems import ResultFileError
from inspector.results.stream import NotStreamable, StepList, open_streamed
from inspector.views.paged import long_text_document, trajectory_document
from tests.app.test_big_attempt import MAKER
from tests.conftest import conformance_runs

REL = "attempt-1/result.json"


def _write(run: Path, payload: dict[str, Any], **dumps: Any) -> None:
    path = run / REL
    path.parent.mkdir(parents=True, exist_ok=True)
    options = {"indent": 2, "ensure_ascii": False, **dumps}
    path.write_text(json.dumps(payload, **options) + "\n", encoding="utf-8")


def _payload(steps: list[Any]) -> dict[str, Any]:
    return {
        "status": "completed",
        "metrics": {"correct": True},
        "final_answer": {"steps": [{"not": "these"}]},  # a "steps" list before the real one
        "trajectory": {
            "schema_version": "ACTF_v1.0",
            "steps": steps,
            "started_at": "2026-01-31 00:00:00",
            "finished_at": "2026-01-31 00:01:00",
        },
        "issues": [{"severity": "warning", "phase": "run", "code": "x", "message": "m"}],
        "artifacts": {"files": [{"name": "a"}, {"name": "b"}], "execution_diagnostics": "d\n"},
        "analysis_result": {},
        "meta": {"benchmark": {}, "harness": {"telemetry": {"n": 1}}},
        "retry_count": 0,
    }


def _step(index: int, text: str = "") -> dict[str, Any]:
    return {
        "step_id": index,
        "assistant_content": {"content": text or f"step {index}\n[bold]x[/bold] \x1b[31m"},
        "observation": [{"nested": [{"deep": index}]}],
    }


def test_steps_and_members_are_those_json_load_reads(tmp_path: Path) -> None:
    steps = [_step(i) for i in range(300)]
    _write(tmp_path, _payload(steps))
    attempt = open_streamed(tmp_path, REL)
    whole = json.loads((tmp_path / REL).read_text(encoding="utf-8"))
    payload = attempt.payload
    listed = payload["trajectory"]["steps"]
    assert isinstance(listed, StepList) and len(listed) == 300
    assert list(listed) == whole["trajectory"]["steps"]
    assert listed[7] == steps[7] and listed[-1] == steps[-1] and listed[10:13] == steps[10:13]
    payload["trajectory"] = {k: v for k, v in payload["trajectory"].items() if k != "steps"}
    del whole["trajectory"]["steps"]
    assert payload == whole and list(payload) == list(whole)
    assert list(payload["trajectory"]) == ["schema_version", "started_at", "finished_at"]


def test_pages_stay_within_their_byte_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream_module, "PAGE_BYTES", 2000)
    steps = [_step(i, "x" * (50 if i != 40 else 5000)) for i in range(100)]
    _write(tmp_path, _payload(steps))
    attempt = open_streamed(tmp_path, REL)
    covered = []
    for page in range(len(attempt.pages)):
        numbers = attempt.page_steps(page)
        covered.extend(numbers)
        end = attempt.starts[numbers.stop] if numbers.stop < 100 else attempt.steps_end
        assert end - attempt.starts[numbers.start] <= 2000 or len(numbers) == 1
    assert covered == list(range(100))


def test_steps_the_standard_library_reads_and_msgspec_refuses(tmp_path: Path) -> None:
    """NaN and a lone surrogate (json.dumps writes both; AgentCompass reads them)."""
    steps = [_step(0), {"step_id": 1, "value": float("nan")}, {"step_id": 2, "text": "\ud800x"}]
    _write(tmp_path, _payload(steps), ensure_ascii=True)
    listed = open_streamed(tmp_path, REL).payload["trajectory"]["steps"]
    assert listed[0] == steps[0]
    assert listed[1]["value"] != listed[1]["value"]  # NaN
    assert listed[2]["text"] == "\ufffd\ufffd\ufffdx"  # as the reader carries it (lossy)


def test_an_invalid_step_is_a_one_line_problem_naming_the_byte(tmp_path: Path) -> None:
    _write(tmp_path, _payload([_step(i) for i in range(5)]))
    path = tmp_path / REL
    data = path.read_bytes()
    at = data.index(b'"step_id": 3')
    path.write_bytes(data[:at] + b'"step_id" 3' + data[at + len(b'"step_id": 3') :])
    attempt = open_streamed(tmp_path, REL)
    assert attempt.read_steps(0, 3) == [_step(i) for i in range(3)]
    with pytest.raises(ResultFileError) as caught:
        attempt.read_steps(3, 1)
    line = caught.value.problem.line()
    assert (
        line
        == f"{REL}: step 4 is not valid JSON: Expecting ':' delimiter at byte {at + 10:,} of the file"
    )


@pytest.mark.parametrize(
    "options",
    [{"indent": None}, {"indent": 4}, {"indent": "\t"}],
    ids=["compact", "indent-4", "tabs"],
)
def test_other_layouts_are_not_streamed(tmp_path: Path, options: dict[str, Any]) -> None:
    _write(tmp_path, _payload([_step(i) for i in range(20)]), **options)
    with pytest.raises(NotStreamable):
        open_streamed(tmp_path, REL)


def test_an_empty_steps_list(tmp_path: Path) -> None:
    _write(tmp_path, _payload([]))
    attempt = open_streamed(tmp_path, REL)
    assert len(attempt.payload["trajectory"]["steps"]) == 0
    assert attempt.payload["artifacts"]["files"] == [{"name": "a"}, {"name": "b"}]


def test_long_text_members_are_left_in_the_file_and_read_in_pieces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """execution_diagnostics and eval_raw_data of LONG_BYTES or more: LongStrings whose
    pieces end after escaped newlines and give back the string; a long member elsewhere
    is parsed as it is."""
    monkeypatch.setattr(long_text, "LONG_BYTES", 1000)
    monkeypatch.setattr(long_text, "PIECE_BYTES", 300)
    line = 'a literal \\n, a "quote", \\\\ 数学 😀 \x1b[31m\t\\'
    text = "\n".join(f"{n}: {line}" for n in range(200)) + "\n"
    payload = _payload([_step(0)])
    payload["artifacts"]["execution_diagnostics"] = text
    payload["meta"]["benchmark"]["eval_raw_data"] = text[::-1]
    payload["meta"]["execution_diagnostics"] = text  # not where a diagnostics line belongs
    _write(tmp_path, payload)
    attempt = open_streamed(tmp_path, REL)
    for value, expected in (
        (attempt.payload["artifacts"]["execution_diagnostics"], text),
        (attempt.payload["meta"]["benchmark"]["eval_raw_data"], text[::-1]),
    ):
        assert isinstance(value, LongString) and len(value.cuts) > 5
        pieces = [value.piece(n) for n in range(len(value.cuts))]
        assert "".join(pieces) == expected
        assert all(piece.endswith("\n") for piece in pieces[:-1])
        document = long_text_document("x", value)
        assert document.lines(0, 10_000) == expected.split("\n")
    assert attempt.payload["meta"]["execution_diagnostics"] == text


def test_a_long_text_piece_that_is_not_json_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(long_text, "LONG_BYTES", 1000)
    monkeypatch.setattr(long_text, "PIECE_BYTES", 300)
    payload = _payload([_step(0)])
    payload["artifacts"]["execution_diagnostics"] = "".join(f"line {n}\n" for n in range(400))
    _write(tmp_path, payload)
    path = tmp_path / REL
    data = path.read_bytes()
    at = data.index(b"line 300\\n")
    path.write_bytes(data[:at] + b"line 300\\q" + data[at + 10 :])
    value = open_streamed(tmp_path, REL).payload["artifacts"]["execution_diagnostics"]
    lines = long_text_document("x", value).lines(0, 1000)
    problems = [n for n, line in enumerate(lines) if "not valid JSON" in line]
    assert len(problems) == 1 and lines[problems[0]].startswith(f"── {REL}: bytes ")
    first = problems[0]  # the piece holding line 300 is that one line
    assert 0 < first <= 300 and lines[:first] == [f"line {n}" for n in range(first)]
    after = int(lines[first + 1].removeprefix("line "))
    assert after > 300 and lines[first + 1 :] == [f"line {n}" for n in range(after, 400)] + [""]


def test_memory_is_bounded_by_the_pages_read_not_the_file(tmp_path: Path) -> None:
    """Opening a 5 MB attempt and reading four pages allocates about a page's worth (1.6 MiB
    measured); json.loads of the file, 21 MB."""
    result = MAKER.make(tmp_path / "run", 5, 0.5)
    run = tmp_path / "run"
    tracemalloc.start()
    try:
        attempt = open_streamed(run, result.relative_to(run).as_posix())
        trajectory = attempt.payload["trajectory"]
        document = trajectory_document(trajectory, trajectory["steps"])
        for _ in range(4):
            document.lines(document.line_count - 1, 1)  # each reads the next page
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(document._first) == 5  # four pages past the first
    assert peak < 16 * stream_module.PAGE_BYTES < result.stat().st_size // 2


def test_a_file_without_steps_is_not_streamed(tmp_path: Path) -> None:
    payload = _payload([])
    payload["trajectory"] = {}
    _write(tmp_path, payload)
    with pytest.raises(NotStreamable):
        open_streamed(tmp_path, REL)


def test_every_result_written_by_agentcompass_reads_as_a_whole_parse() -> None:
    """The layout rules hold on AgentCompass's own files (fixtures/conformance): each
    result.json with steps gives, through open_streamed, what parse_json gives."""
    streamed = 0
    for run in conformance_runs():
        for path in sorted(run.glob("details/*/*/attempt-*/result.json")):
            rel = path.relative_to(run).as_posix()
            try:
                attempt = open_streamed(run, rel)
            except NotStreamable:
                continue  # no steps: a small file, parsed whole by the screens
            whole = parse_json(path.read_bytes())
            trajectory = dict(whole["trajectory"])
            assert list(attempt.payload["trajectory"]["steps"]) == trajectory.pop("steps"), rel
            mine = dict(attempt.payload, trajectory=dict(attempt.payload["trajectory"]))
            del mine["trajectory"]["steps"]
            assert mine == dict(whole, trajectory=trajectory), rel
            assert list(mine) == list(whole) and list(mine["trajectory"]) == list(trajectory)
            streamed += 1
    assert streamed >= 50  # 70 in the repository's runs
