"""Searching a streamed trajectory (issue 53 item 3): the pages whose bytes cannot hold the
needle are counted, not made, and the search finds the same lines, in the same order, as
reading every page does (``PagedDocument.find`` without the test)."""

from __future__ import annotations

import json
import random
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from inspector.results.stream import StreamedAttempt, open_streamed
from inspector.views.paged import PagedDocument, trajectory_document
from inspector.views.step_search import FOLDS_TO_ASCII, anchor
from tests.app.test_big_attempt import MAKER

REL = "attempt-1/result.json"
DEEP = 70


def _nested(depth: int) -> Any:
    value: Any = "bottom"
    for level in range(depth):
        value = {f"level{level}": value} if level % 2 else [value, level]
    return value


SPECIAL: dict[int, dict[str, Any]] = {
    8: {"quote": 'say "hi" \\ back\tslash'},
    11: {"road": "Straße"},  # folds to strasse
    17: {"cjk": "数学 题目", "k" * 2500: {"x": 1}, "q" * 1999: "v\nw", "z" * 1990: 12345},
    23: {"unit": "\u212aelvin"},  # the Kelvin sign folds to k
    29: {"markup": "[bold]x[/bold] \x1b[31mred\x1b[0m \u202eltr"},
    35: {"room": "of\ufb01ce"},  # the ligature folds to fi
    41: {"key\nwith a newline": {"inner\nkey": "v"}, "empty": [{}, [], ""]},
    47: {"fruit": "Apple pie"},  # written \u0041pple pie
    53: {"step_id": "id-53"},
    59: {"step_id": [1, "x\x1by"]},  # Python prints it: 'x\x1by'
    71: {"step_id": {"k": None}},
    83: {"deep": _nested(DEEP)},
    88: {"path": "at a/b/c"},  # written at a\/b/c
    95: {"numbers": [0, -0.0, 1e-05, 1e20, float("inf"), float("-inf"), 10**30, 2.5, False]},
    100: {"step_id": 1.5e20},
    105: {"step_id": True},
}
"""The shapes the rendering treats apart, each in one step (its page alone can match)."""


def _step(index: int, rng: random.Random) -> dict[str, Any]:
    step: dict[str, Any] = {
        "step_id": index,
        "user_content": f"Step {index}: look at the output",
        "block": "first line\nsecond line\n" + "w" * rng.randrange(1990, 2100) + "\nend",
        "long": "y" * rng.randrange(1990, 4500),
        "observation": [{"role": "tool", "content": f"FAILED test_case[{index}]\n" * 30}],
        "list": [index, "a list member", None, f"a string {index}\nwith a second line"],
    }
    step.update(SPECIAL.get(index, {}))
    if index == 77:
        del step["step_id"]
    return step


PLANTED = [
    (b"Apple pie", b"\\u0041pple pie"),
    (b"at a/b", b"at a\\/b"),
    (b"1e-05,", b"0.00001,"),
    (b"2.5,", b"2.50,"),
    (b"1e+20,", b"100000000000000000000.0,"),
]
"""Text json.dumps writes otherwise, as another writer may: the file's bytes are not the
text shown (escapes a JSON reader takes, numbers Python prints otherwise)."""


def _write(run: Path, steps: list[Any], *, ensure_ascii: bool, planted: bool = True) -> Path:
    payload = {
        "status": "completed",
        "metrics": {"correct": True},
        "final_answer": "四十二",
        "trajectory": {
            "schema_version": "ACTF_v1.0",
            "steps": steps,
            "finished_at": "2026-01-31 00:09:00",
            "summary": "the trajectory's other fields: Kelvin last",
        },
        "issues": [],
        "meta": {},
    }
    path = run / REL
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(payload, indent=2, ensure_ascii=ensure_ascii).encode("utf-8") + b"\n"
    # Escapes json.dumps never writes, but a JSON reader takes: \u0041 for "A", \/ for "/".
    for plain, written in PLANTED if planted else []:
        assert data.count(plain) == 1, plain
        data = data.replace(plain, written)
    path.write_bytes(data)
    return path


@pytest.fixture(scope="module", params=["utf8", "ascii", "broken"])
def attempt(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """120 steps in 7 pages or more, non-ASCII written as it is or as \\u escapes; "broken":
    the last page (step 120) is not valid JSON (it is one line saying so)."""
    run = tmp_path_factory.mktemp("search")
    rng = random.Random(53)
    path = _write(run, [_step(i, rng) for i in range(120)], ensure_ascii=request.param == "ascii")
    if request.param == "broken":
        data = path.read_bytes()
        at = -1
        for _ in range(120):
            at = data.index(b'"user_content":', at + 1)
        path.write_bytes(data[: at + 14] + b" " + data[at + 15 :])
    return open_streamed(run, REL)


def _document(attempt: StreamedAttempt) -> PagedDocument:
    trajectory = attempt.payload["trajectory"]
    return trajectory_document(trajectory, trajectory["steps"])


def _every_page_read(attempt: StreamedAttempt) -> PagedDocument:
    """The same document, searched by reading every page (the search before this one)."""
    document = _document(attempt)
    return PagedDocument("trajectory", document._make_page, document._page_count)


def _matches(document: PagedDocument, needle: str, *, backwards: bool) -> list[int]:
    """Each line ``n`` (``N``) goes to from the top, until it comes round again."""
    found: list[int] = []
    line = document.find(needle, -1, backwards=backwards)
    while line is not None and line not in found:
        found.append(line)
        line = document.find(needle, line, backwards=backwards)
    return found


NEEDLES = [
    "apple pie",  # \u0041pple in the file
    "AT A/B/C",  # \/ in the file
    'say "hi"',
    "\\ back",
    "back\tslash",
    "strasse",  # Straße folds to strasse
    "STRASSE",
    "ss",
    "kelvin",  # the Kelvin sign folds to k
    "office",  # the ligature ﬁ folds to fi
    "数学 题目",
    "题目",
    "step",
    "step 12 (",
    "── step 3",
    "(id-53)",
    "1.5e+20",
    "(true)",
    "'x\\x1by'",  # a list step_id, printed by Python
    "{'k': none}",
    "[3]: 1e+20",
    "[7]: 2.5",
    "[7]",
    "e+20",
    "infinity",
    "-inf",
    "1e-05",
    "100000000000000000000",
    "2.5",
    "-0.0",
    "nested deeper",
    "level68",
    "bottom",
    "key",
    "inner",
    "with a newline",
    "newline:",
    "empty:",
    "{}",
    ": |",
    "[bold]x[/bold]",
    "\x1b[31mred",
    "\u202eltr",
    "wwwwwww",
    "yyyy",
    "test_case[119]",
    "test_case[1]",
    "a list member",
    "string 44",
    "not valid json",
    "steps 33",
    "second line",
    "other trajectory fields",
    "kelvin last",
    "schema_version: actf",
    "finished_at",
    "no step holds this",
    "two\nlines",
    "\t",
]


@pytest.mark.parametrize("needle", NEEDLES)
def test_the_same_lines_as_reading_every_page(attempt: StreamedAttempt, needle: str) -> None:
    """Forwards (n) and backwards (N), from the top: the lines the search stops at, in order."""
    for backwards in (False, True):
        expected = _matches(_every_page_read(attempt), needle, backwards=backwards)
        assert _matches(_document(attempt), needle, backwards=backwards) == expected


def test_the_needles_find_what_they_are_for(attempt: StreamedAttempt) -> None:
    """The comparison above is not of lists the test lets through anyway: each of these
    needles is in one step, and the pages' bytes let through a few pages only."""
    whole = _every_page_read(attempt)
    pages = len(attempt.pages)
    assert pages >= 6
    document = _document(attempt)
    assert document._count_page is not None
    broken = sum(document._count_page(page) is None for page in range(pages))
    for needle in (
        "apple pie", "AT A/B/C", 'say "hi"', "strasse", "kelvin", "office", "(id-53)",
        "'x\\x1by'", "{'k': none}", "nested deeper", "1e+20", "(true)",
    ):  # fmt: skip
        assert _matches(whole, needle, backwards=False), needle
        test = document._page_test(needle) if document._page_test else None
        if test is not None:
            # its page, the last (the other fields), the two of a list / object step_id and
            # the one of the broken file whose steps are not valid JSON
            assert sum(map(test, range(pages))) <= 4 + broken, needle
    for needle in ("no step holds this", "two\nlines"):
        assert not _matches(whole, needle, backwards=False)


def test_counted_pages_have_the_lines_made_pages_have(attempt: StreamedAttempt) -> None:
    document = _document(attempt)
    for page in range(document._page_count):
        counted = document._count_page
        assert counted is not None
        made = _every_page_read(attempt)
        made._count_to(page)  # pages made, in order
        lines = made._page(page)
        if counted(page) is None:  # steps not valid JSON: one line says so
            assert "not valid JSON" in lines[0] and not any("── step" in x for x in lines)
        else:
            assert counted(page) == len(lines), page


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> StreamedAttempt:
    """fixtures/make_big_attempt.py's attempt of 2 MB: 150 steps as AgentCompass writes them."""
    run = tmp_path_factory.mktemp("big") / "big"
    MAKER.make(run, 2, 0.1)
    result = MAKER.task_folder(run) / "attempt-1" / "result.json"
    return open_streamed(result.parent, result.name)


def test_a_search_makes_only_the_pages_that_can_match(
    big: StreamedAttempt, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A needle near the end, then one no step holds, then it again: the pages made are the
    first (shown) and the match's; the second search parses no step again."""
    attempt = big
    last = len(attempt.starts) - 1
    document = _document(attempt)
    made: list[int] = []
    make = document._make_page

    def counted_make(page: int) -> list[str]:
        made.append(page)
        return make(page)

    document._make_page = counted_make
    document.lines(0, 1)
    line = document.find(f"module_{last - 1}_7.py", 0)
    assert line is not None and f"module_{last - 1}_7.py" in document.lines(line, 1)[0]
    assert made == [0, document._page_of(line)]
    assert document._first[-1] > line  # the lines before it numbered, as made ones are
    assert document.lines(line, 1) == _every_page_read(attempt).lines(line, 1)
    reads: list[int] = []
    read = StreamedAttempt.read_steps

    def counted_read(self: StreamedAttempt, first: int, count: int) -> list[Any]:
        reads.append(first)
        return read(self, first, count)

    monkeypatch.setattr(StreamedAttempt, "read_steps", counted_read)
    made.clear()
    assert document.find("no step holds this", line) is None
    first_reads = len(reads)
    reads.clear()
    assert document.find("no step holds this", line) is None
    assert reads == [] and made == []  # every page counted once already: only bytes read
    assert first_reads <= document._page_count


def test_folds_to_ascii_is_every_such_character() -> None:
    found = "".join(
        chr(code)
        for code in range(0x80, sys.maxunicode + 1)
        if any("a" <= c <= "z" for c in chr(code).casefold())
    )
    assert found == FOLDS_TO_ASCII


@pytest.mark.parametrize(
    ("needle", "run"),
    [
        ("module_10419_7.py", "module_10419_7.py"),
        ('say "hi" now', "say"),
        ("Step 12: their", "their"),
        ("step 12", None),
        ("[12]", None),
        ("1e-05", None),
        ("-Infinity", None),
        ("数学", None),
        ("nested deeper than", None),
        ("FAILED tests", "failed"),
    ],
)
def test_the_run_looked_for(needle: str, run: str | None) -> None:
    from inspector.views.paged import SYNTHETIC

    assert anchor(needle, SYNTHETIC) == run


def test_a_search_of_a_big_attempt_holds_a_page_at_a_time(tmp_path: Path) -> None:
    """384 steps (5 MB): a needle in the last step and one no step holds; the peak of the
    search is a few pages, not the trajectory's text."""
    run = tmp_path / "big"
    MAKER.make(run, 5, 0.1)
    result = MAKER.task_folder(run) / "attempt-1" / "result.json"
    attempt = open_streamed(result.parent, result.name)
    document = _document(attempt)
    document.lines(0, 1)
    last = len(attempt.starts) - 1
    tracemalloc.start()
    try:
        line = document.find(f"module_{last}_7.py", 0)
        absent = document.find("no step holds this", 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert line is not None and f"module_{last}_7.py" in document.lines(line, 1)[0]
    assert absent is None
    assert peak < 4 * 1024**2 < result.stat().st_size


@pytest.mark.parametrize("needle", ["apple", "a/b", "step", "second line", "[7]", "kelvin"])
def test_the_same_line_from_anywhere(attempt: StreamedAttempt, needle: str) -> None:
    """From lines all through the document, forwards and backwards: the line found."""
    whole = _every_page_read(attempt)
    document = _document(attempt)
    whole.find("no step holds this", 0)  # every page made: the line count known
    count = whole.line_count
    for start in range(-1, count + 1, max(1, count // 40)):
        for backwards in (False, True):
            expected = whole.find(needle, start, backwards=backwards)
            assert document.find(needle, start, backwards=backwards) == expected, start


@pytest.mark.parametrize("needle", ["schema", "kelvin last", "nothing", "step"])
def test_a_trajectory_without_steps(tmp_path: Path, needle: str) -> None:
    """Its one page holds the trajectory's other fields only."""
    _write(tmp_path, [], ensure_ascii=False, planted=False)
    attempt = open_streamed(tmp_path, REL)
    assert len(attempt.starts) == 0
    for backwards in (False, True):
        expected = _matches(_every_page_read(attempt), needle, backwards=backwards)
        assert _matches(_document(attempt), needle, backwards=backwards) == expected
    assert _matches(_document(attempt), "kelvin last", backwards=True)
