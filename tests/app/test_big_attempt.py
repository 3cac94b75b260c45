"""A large attempt result.json (issue 53 item 3): the screens read its trajectory a page at a
time from the file, never the whole of it, and show it as they show a small one.

The run is fixtures/runs/hostile with one attempt's result.json grown to a few MB by
fixtures/make_big_attempt.py (the figures for 127 MB come from
benchmarks/bench_big_attempt.py).
"""

from __future__ import annotations

import json
import re
import shutil
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from inspector.app import payloads as payloads_module
from inspector.app.app import InspectorApp
from inspector.app.diagnostics import trajectory_text
from inspector.app.handoff import handoff_file, remove_handoff_file
from inspector.app.screens.diagnostics import DiagnosticsScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.task import TaskScreen
from inspector.results.stream import PAGE_BYTES, StreamedAttempt
from inspector.views.paged import KEEP_PAGES, PagedDocument, trajectory_document
from tests.app.helpers import pilot_test, settle, static_text
from tests.conftest import open_session as open_run
from tests.conftest import script

ROOT = Path(__file__).resolve().parents[2]
SIZE = (140, 45)
MB = 1024**2


def _maker() -> Any:
    return script("fixtures/make_big_attempt.py")


MAKER = _maker()
TASK = MAKER.TASK


@pytest.fixture(scope="module")
def big_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hostile run with a ~5 MB result.json (384 steps; 0.5 MB of diagnostics)."""
    run = tmp_path_factory.mktemp("big") / "big"
    MAKER.make(run, 5, 0.5)
    return run


def _result(run: Path) -> Path:
    return MAKER.task_folder(run) / "attempt-1" / "result.json"


async def _diagnostics(pilot: Any, source: str) -> DiagnosticsScreen:
    await settle(pilot)
    overview = pilot.app.screen
    assert isinstance(overview, OverviewScreen)
    diagnostics = DiagnosticsScreen(overview.session, TASK, 1)
    pilot.app.push_screen(diagnostics)
    await settle(pilot)
    keys = [s.key for s in diagnostics.sources]
    diagnostics.source_list.highlighted = keys.index(source)
    await settle(pilot)
    diagnostics.pager.focus()
    return diagnostics


def _whole_text(run: Path) -> list[str]:
    """The trajectory as the screens show a small result.json: parsed whole."""
    with _result(run).open(encoding="utf-8") as stream:
        trajectory = json.load(stream)["trajectory"]
    return [
        piece
        for line in trajectory_text(trajectory).split("\n")
        for piece in (line[i : i + 2000] for i in range(0, max(1, len(line)), 2000))
    ]


@pilot_test
async def test_pages_of_a_big_trajectory_are_the_steps_json_load_reads(
    big_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first page, and each page the end key reads on to, hold the lines the whole
    parse gives; the file is never parsed whole and at most KEEP_PAGES pages are held."""

    def never(*args: Any) -> None:
        raise AssertionError("the screens parsed the whole result.json")

    monkeypatch.setattr(payloads_module, "read_attempt_payload", never)
    read: list[tuple[int, int]] = []
    original = StreamedAttempt.read_steps

    def counted(self: StreamedAttempt, first: int, count: int) -> list[Any]:
        read.append((first, count))
        return original(self, first, count)

    monkeypatch.setattr(StreamedAttempt, "read_steps", counted)
    expected = _whole_text(big_run)
    app = InspectorApp([big_run])
    async with app.run_test(size=SIZE) as pilot:
        diagnostics = await _diagnostics(pilot, "trajectory")
        document = diagnostics.pager.document
        assert isinstance(document, PagedDocument)
        assert not document.complete
        first = document.line_count - 1
        assert 0 < first < len(expected) // 4
        assert document.lines(0, first) == expected[:first]
        assert sum(count for _, count in read) < 100  # the first page's steps, not 384
        status = " ".join(static_text(diagnostics.status).split())
        assert f"line 1 of {first}+" in status
        counts = [document.line_count]
        for _ in range(3):
            await pilot.press("end")
            # The page past the end is read when the screen is next drawn (a timer): on a
            # loaded machine that can come after one settle (a full suite: [1863, 1863, ...]).
            for _ in range(50):
                await settle(pilot)
                if document.line_count > counts[-1]:
                    break
                await pilot.pause(0.02)
            counts.append(document.line_count)
        assert counts == sorted(set(counts)), counts  # each end read a further page
        top = int(diagnostics.pager.scroll_y)
        shown = document.lines(top, 40)
        assert shown == expected[top : top + 40] and shown
        assert diagnostics.pager.virtual_size.height == document.line_count
        assert len(document._kept) <= KEEP_PAGES
        assert sum(count for _, count in read) < 384 // 2


@pilot_test
async def test_the_task_screen_and_diagnostics_come_from_the_streamed_file(
    big_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without parsing the file whole: the card counts the steps and shows the answer;
    execution_diagnostics is listed first and shown (it comes after the trajectory)."""

    def never(*args: Any) -> None:
        raise AssertionError("the screens parsed the whole result.json")

    monkeypatch.setattr(payloads_module, "read_attempt_payload", never)
    app = InspectorApp([big_run])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        task = TaskScreen(overview.session, TASK, overview.selected_series or "")
        app.push_screen(task)
        await settle(pilot)
        with _result(big_run).open(encoding="utf-8") as stream:
            whole = json.load(stream)
        card = " ".join(static_text(task.query_one("#attempt-1")).split())
        assert f"steps {len(whole['trajectory']['steps'])}" in card
        assert "answer 四十二" in card and "parses for display" not in card
        await pilot.press("d")
        await settle(pilot)
        diagnostics = app.screen
        assert isinstance(diagnostics, DiagnosticsScreen)
        assert diagnostics.current_key == "diagnostics"
        document = diagnostics.pager.document
        assert document is not None
        diagnostics_lines = whole["artifacts"]["execution_diagnostics"].split("\n")
        assert document.lines(0, 30) == diagnostics_lines[:30]
        assert isinstance(document, PagedDocument)  # 0.5 MB: left in the file, paged
        assert document.lines(0, len(diagnostics_lines) + 1) == diagnostics_lines


@pilot_test
async def test_markup_and_control_characters_of_a_streamed_step_are_shown_literally(
    big_run: Path,
) -> None:
    app = InspectorApp([big_run])
    async with app.run_test(size=SIZE) as pilot:
        diagnostics = await _diagnostics(pilot, "trajectory")
        document = diagnostics.pager.document
        assert isinstance(document, PagedDocument)
        line = next(
            i
            for i, text in enumerate(document.lines(0, 400))
            if "FAILED" in text and "[bold]" in text
        )
        diagnostics.pager.go_to_line(line)
        await settle(pilot)
        rows = ["".join(s.text for s in diagnostics.pager.render_line(y)) for y in range(0, 30)]
        row = next(r for r in rows if "FAILED" in r)
        assert "␛[31mFAILED␛[0m" in row and "[bold]expected[/bold]" in row
        assert "\x1b" not in "".join(rows) and "\r" not in "".join(rows)


def _break(result: Path, step: int) -> None:
    """Take the ':' after "stop_reason" out of step ``step`` (from 1) of ``result``."""
    data = bytearray(result.read_bytes())
    at = -1
    for _ in range(step):
        at = data.index(b'"stop_reason":', at + 1)
    data[at + len(b'"stop_reason"')] = ord(" ")
    result.write_bytes(bytes(data))
    with pytest.raises(json.JSONDecodeError):
        json.loads(data)


def test_the_reader_refuses_a_run_with_an_invalid_byte_deep_in_a_trajectory(
    big_run: Path, tmp_path: Path
) -> None:
    """Whether the run scores is the reader's to say (AgentCompass refuses such a file): one
    line naming the file."""
    run = tmp_path / "broken"
    shutil.copytree(big_run, run)
    _break(_result(run), 301)
    session = open_run(run)
    assert session.recomputation is None and session.refusal
    problem = session.run.problems[0].line()
    assert problem.startswith(_result(run).relative_to(run).as_posix() + ": not valid JSON")


@pilot_test
async def test_an_invalid_byte_deep_in_the_trajectory_is_one_line_where_it_is_reached(
    big_run: Path, tmp_path: Path
) -> None:
    """The run is read and scored; then step 301 of the file goes bad. The task screen and
    the first pages still show; the page holding step 301 is one line naming the steps and
    the byte; the pages after it show their steps; the scores stay the reader's."""
    run = tmp_path / "later_broken"
    shutil.copytree(big_run, run)
    broken = 301
    with _result(run).open(encoding="utf-8") as stream:
        count = len(json.load(stream)["trajectory"]["steps"])
    app = InspectorApp([run])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        assert overview.session.recomputation is not None
        expected = overview.session.recomputation.report
        _break(_result(run), broken)
        task = TaskScreen(overview.session, TASK, overview.selected_series or "")
        app.push_screen(task)
        await settle(pilot)
        card = " ".join(static_text(task.query_one("#attempt-1")).split())
        assert "status completed" in card and f"steps {count}" in card
        app.pop_screen()
        diagnostics = await _diagnostics(pilot, "trajectory")
        document = diagnostics.pager.document
        assert isinstance(document, PagedDocument)
        line = document.find("not valid JSON", 0)
        assert line is not None
        problem = document.lines(line, 1)[0]
        match = re.fullmatch(
            r"── (\S+): steps (\d+)–(\d+) are not valid JSON: .+ at byte [\d,]+ of the file ──",
            problem,
        )
        assert match is not None, problem
        assert match[1] == _result(run).relative_to(run).as_posix()
        first, last = int(match[2]), int(match[3])
        assert first <= broken <= last
        assert document.lines(line + 1, 1)[0].startswith(f"── step {last + 1} ")
        before = document.find(f"── step {first - 1} ", line, backwards=True)
        assert before is not None and before < line
        assert document.find(f"── step {broken} ", 0) is None  # its page is the one line
        assert document.find("not valid JSON", line) == line  # and the only one
        assert app.screen is diagnostics
        assert overview.session.recomputation.report == expected


def test_a_file_not_in_agentcompass_layout_is_parsed_whole(tmp_path: Path) -> None:
    """Compact JSON of 3 MB: no streaming; the screens get the whole payload, as before."""
    run = tmp_path / "compact"
    MAKER.make(run, 3, 0.1)
    result = _result(run)
    value = json.loads(result.read_text(encoding="utf-8"))
    result.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    session = open_run(run)
    entry = session.run.entry_for(TASK)
    assert entry is not None
    payload = payloads_module.read_payload(session.run, entry, 1)
    assert payload == value


def test_pager_and_copy_get_the_whole_trajectory_text(big_run: Path) -> None:
    """o ($PAGER) writes the trajectory a page at a time (never the whole text in memory):
    the text of the whole parse; y copies its head."""
    session = open_run(big_run)
    entry = session.run.entry_for(TASK)
    assert entry is not None
    trajectory = payloads_module.read_payload(session.run, entry, 1)["trajectory"]
    document = trajectory_document(trajectory, trajectory["steps"])
    with _result(big_run).open(encoding="utf-8") as stream:
        whole = trajectory_text(json.load(stream)["trajectory"])
    tracemalloc.start()
    try:
        path, temporary = handoff_file(document, copy=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # A page at a time (parsed, then its text): 2.9 MiB here; the whole text at once, 27 MiB.
    assert peak < 16 * PAGE_BYTES < len(whole)
    try:
        assert temporary and Path(path).read_bytes().decode("utf-8") == whole + "\n"
    finally:
        remove_handoff_file(path)
    assert document.head(5000) == whole[:5000]
