"""Large and deep inputs stay bounded in the task and diagnostics screens (issue 7).

The figures for a real 200 MB result.json come from ``benchmarks/bench_hostile.py``; here
the same paths are proven with small files and a lowered parse limit: a result.json over
the limit is never parsed (the raw file is paged from disk, with a notice), a file's line
index reads a chunk at a time, a 1 MB line is cut into display lines, and JSON nested past
any parser's limit is a message, not a crash.
"""

from __future__ import annotations

import json
import shutil
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from inspector.app import payloads as payloads_module
from inspector.app.app import InspectorApp
from inspector.app.payloads import PayloadTooLarge, read_payload
from inspector.app.screens.diagnostics import DiagnosticsScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.task import TaskScreen
from inspector.results.problems import ResultFileError
from inspector.results.reader import read_run
from inspector.views.documents import (
    MAX_DEPTH,
    MAX_LINE_BYTES,
    MAX_LINE_CHARS,
    FileDocument,
    StringDocument,
    json_text,
)
from tests.app.helpers import pilot_test, settle, static_text
from tests.conftest import FIXTURE_RUNS
from widgets.attempt_card import json_scalar
from widgets.literal import literal, one_line

SIZE = (140, 45)
TASK = "数学/题目-7"  # the hostile run's plainest task, under details/normal/7--<sha>
MIB = 1024**2


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A private copy of fixtures/runs/hostile (tests may add files to it)."""
    run = tmp_path / "hostile"
    shutil.copytree(FIXTURE_RUNS / "hostile", run)
    return run


def _attempt(run: Path) -> Path:
    return next((run / "details" / "normal").glob("7--*")) / "attempt-1"


def _rel(run: Path, path: Path) -> str:
    return path.relative_to(run).as_posix()


def test_payload_over_the_limit_is_not_parsed(
    hostile: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = read_run(hostile)
    entry = run.entry_for(TASK)
    assert entry is not None
    size = (_attempt(hostile) / "result.json").stat().st_size
    assert read_payload(run, entry, 1, limit=size)["status"] == "completed"

    def never(*args: Any) -> None:
        raise AssertionError("a result.json over the limit was parsed")

    monkeypatch.setattr(payloads_module, "read_attempt_payload", never)
    with pytest.raises(PayloadTooLarge) as caught:
        read_payload(run, entry, 1, limit=size - 1)
    problem = caught.value.problem
    assert problem.path == _rel(hostile, _attempt(hostile) / "result.json")
    assert "the inspector parses" in problem.message and "$PAGER" in problem.message
    assert "\n" not in problem.message


@pilot_test
async def test_screens_page_a_too_large_result_raw(
    hostile: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over the limit: the task card says so, the diagnostics screen opens on the raw file
    (paged from disk) with the notice, and result.json is never parsed by the screens."""
    monkeypatch.setattr(payloads_module, "PARSE_LIMIT", 1024)
    app = InspectorApp([hostile])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)

        def never(*args: Any) -> None:
            raise AssertionError("the screens parsed a result.json over the limit")

        monkeypatch.setattr(payloads_module, "read_attempt_payload", never)
        task = TaskScreen(overview.session, TASK, overview.selected_series or "")
        app.push_screen(task)
        await settle(pilot)
        card = " ".join(static_text(task.query_one("#attempt-1")).split())
        assert "status completed" in card
        assert "KiB, more than the 1.0 KiB the inspector parses for display; d pages" in card

        await pilot.press("d")
        await settle(pilot)
        diagnostics = app.screen
        assert isinstance(diagnostics, DiagnosticsScreen)
        assert diagnostics.sources[0].key == "raw:result.json"
        document = diagnostics.pager.document
        assert isinstance(document, FileDocument) and document.line_count > 10
        notice = " ".join(static_text(diagnostics.notice).split())
        assert notice.startswith("result.json: ") and "paged from disk" in notice
        assert diagnostics.notice.has_class("-shown")
        diagnostics.pager.focus()
        await pilot.press("end")
        await settle(pilot)
        assert diagnostics.pager.scroll_y > 0


@pilot_test
async def test_unreadable_retry_record_is_shown_raw_with_the_reason(hostile: Path) -> None:
    """A retry record nested 100,000 levels deep: the notice names the problem and the raw
    text is paged (it used to be an empty pager with the error overwritten)."""
    attempt = _attempt(hostile)
    (attempt / "retries").mkdir()
    record = attempt / "retries" / f"{attempt.parent.name}.attempt1.retry1.attempt.json"
    record.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    app = InspectorApp([hostile])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        diagnostics = DiagnosticsScreen(overview.session, TASK, 1)
        app.push_screen(diagnostics)
        await settle(pilot)
        keys = [s.key for s in diagnostics.sources]
        diagnostics.source_list.highlighted = keys.index(f"retry:{_rel(hostile, record)}")
        await settle(pilot)
        document = diagnostics.pager.document
        assert isinstance(document, FileDocument)
        assert document.line_count == -(-200_000 // MAX_LINE_BYTES)
        notice = " ".join(static_text(diagnostics.notice).split())
        assert "nested too deeply to parse" in notice and "shown as raw text" in notice
        diagnostics.source_list.highlighted = keys.index("raw:result.json")
        await settle(pilot)
        assert not diagnostics.notice.has_class("-shown")


def test_file_index_reads_a_chunk_at_a_time(tmp_path: Path) -> None:
    """Indexing a 24 MiB file allocates about one read chunk plus 8 bytes a line."""
    run = tmp_path / "run"
    run.mkdir()
    line = b"x" * 1000 + b"\n"
    (run / "big.log").write_bytes(line * (24 * MIB // len(line)))
    document = FileDocument("big.log", run, "big.log")
    tracemalloc.start()
    try:
        document.index()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    lines = 24 * MIB // len(line)
    assert document.line_count == lines
    assert peak < 3 * MIB + 16 * lines, peak
    assert document.lines(lines - 1, 5) == ["x" * 1000]


def test_a_megabyte_line_without_newline_becomes_display_lines(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "one-line.log").write_bytes("数".encode() * (MIB // 3))
    document = FileDocument("one-line.log", run, "one-line.log")
    document.index()
    assert document.line_count == -(-(MIB // 3 * 3) // MAX_LINE_BYTES)
    assert all(len(text.encode()) <= MAX_LINE_BYTES for text in document.lines(0, 200))
    assert "\ufffd" not in "".join(document.lines(0, 200))  # cut at character boundaries

    text = StringDocument("answer", "y\x1b[2J" * (MIB // 5))
    assert text.line_count == -(-(MIB // 5 * 5) // MAX_LINE_CHARS)
    assert max(len(line) for line in text.lines(0, text.line_count)) == MAX_LINE_CHARS


def test_one_line_looks_at_a_bounded_prefix() -> None:
    huge = "\u202e" + "z\x1b" * MIB
    shown = one_line(huge, max_chars=40)
    assert shown.cell_len == 40 and shown.plain.endswith("…")
    assert shown.plain.startswith("<U+202E>z␛")
    zero_width = "e" + "\u0301" * 10_000  # combining marks take no cells
    assert one_line(zero_width, max_chars=10).plain.endswith("…")


def _deep(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def test_deep_values_are_cut_not_crashes() -> None:
    deep = _deep(5000)
    assert "nested deeper than" in json_text({"answer": deep})
    assert len(json_text(deep).splitlines()) <= MAX_DEPTH + 2
    assert "nested too deeply" in json_scalar(deep)
    assert "nested too deeply" in literal(deep).plain
    assert "nested too deeply" in one_line(deep).plain


def test_deep_json_files_are_problems(hostile: Path) -> None:
    attempt = _attempt(hostile)
    run = read_run(hostile)
    entry = run.entry_for(TASK)
    assert entry is not None
    result = attempt / "result.json"
    payload = json.loads(result.read_text(encoding="utf-8"))
    payload["final_answer"] = "@@"
    result.write_text(
        json.dumps(payload).replace('"@@"', "[" * 100_000 + "]" * 100_000), encoding="utf-8"
    )
    with pytest.raises(ResultFileError) as caught:
        read_payload(run, entry, 1)
    assert "nested too deeply" in caught.value.problem.message
