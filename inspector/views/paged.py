"""Documents made a page at a time: a long trajectory read from its file as it is scrolled.

A :class:`PagedDocument` asks for page ``n`` only when a line of it is wanted, pages in
order: it keeps the first line number of every page it has seen (8 bytes a page) and the
lines of the last :data:`KEEP_PAGES` pages it made, never the whole text. Its line count
grows as it is read: until the last page is made it counts one line more than it has, the
line whose reading makes the next page (a pager scrolled to the end reads on).
"""

from __future__ import annotations

import json
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from inspector.results.long_text import LongString
from inspector.results.problems import ResultFileError
from inspector.results.stream import StepList
from inspector.views.documents import (
    COPY_LIMIT,
    MAX_LINE_CHARS,
    TOO_DEEP,
    json_text,
    json_text_count,
    shown_count,
)
from inspector.views.step_search import page_test

INF, NAN = float("inf"), float("nan")

STEP_MARK = "── step "
"""How each trajectory step starts in the trajectory document."""
SYNTHETIC = " ".join(
    [STEP_MARK, TOO_DEEP, "| {} []", *(json.dumps(v) for v in (INF, -INF, NAN)), f"{-INF} {NAN}"]
)
"""Words the trajectory document adds to the steps' own text (a search cannot look for them
in the file's bytes): the headings, the note of a value nested too deep, the marks of a
text block and an empty value, floats as they are written (digits aside)."""
KEEP_PAGES = 4
TRAJECTORY_HEAD = ("schema_version", "started_at", "finished_at")


def _chunks(line: str) -> Iterator[str]:
    for start in range(0, max(1, len(line)), MAX_LINE_CHARS):
        yield line[start : start + MAX_LINE_CHARS]


class PagedDocument:
    """Lines made by ``make_page(n)`` for ``n`` in ``range(page_count)``, read on demand.

    Safe to read from a worker (a search) and the screen at once: pages are made under a
    lock.
    """

    def __init__(
        self,
        title: str,
        make_page: Callable[[int], list[str]],
        page_count: int,
        *,
        notice: str | None = None,
        count_page: Callable[[int], int | None] | None = None,
        page_test: Callable[[str], Callable[[int], bool] | None] | None = None,
    ) -> None:
        self.title = title
        self.notice = notice
        self.max_width = 0
        self._make_page = make_page
        self._page_count = page_count
        self._count_page = count_page
        """The lines page ``n`` makes, without making them (None: it must be made)."""
        self._page_test = page_test
        """For a needle, a test of page ``n``: False when it cannot hold the needle."""
        self._first = array("Q", [0])
        """The first line of each page seen, and the line after the last one."""
        self._kept: OrderedDict[int, list[str]] = OrderedDict()
        self._lock = threading.RLock()

    @property
    def complete(self) -> bool:
        """Every page has been made once (the line count is final)."""
        return len(self._first) - 1 >= self._page_count

    @property
    def line_count(self) -> int:
        return self._first[-1] + (0 if self.complete else 1)

    def _page(self, page: int) -> list[str]:
        with self._lock:
            lines = self._kept.get(page)
            if lines is not None:
                self._kept.move_to_end(page)
                return lines
            lines = []
            for line in self._make_page(page):
                if len(line) > MAX_LINE_CHARS:
                    lines.extend(_chunks(line))
                else:
                    lines.append(line)
            if page == len(self._first) - 1:
                self._first.append(self._first[-1] + len(lines))
            self.max_width = max(self.max_width, max(map(len, lines), default=0))
            self._kept[page] = lines
            while len(self._kept) > KEEP_PAGES:
                self._kept.popitem(last=False)
            return lines

    def _page_of(self, line: int) -> int | None:
        """The page holding ``line``, making the pages before it as needed (None: past the end)."""
        with self._lock:
            while line >= self._first[-1] and not self.complete:
                self._page(len(self._first) - 1)
            if line >= self._first[-1]:
                return None
            low, high = 0, len(self._first) - 2
            while low < high:  # the last page whose first line is at most `line`
                middle = (low + high + 1) // 2
                if self._first[middle] <= line:
                    low = middle
                else:
                    high = middle - 1
            return low

    def _count_to(self, page: int) -> None:
        """Know the first line of ``page``: the pages before it counted (made, when they
        cannot be counted)."""
        while len(self._first) - 1 < min(page, self._page_count):
            with self._lock:  # a page at a time: the screen reads lines meanwhile
                known = len(self._first) - 1
                if known >= min(page, self._page_count):
                    break
                count = self._count_page(known) if self._count_page is not None else None
                if count is None:
                    self._page(known)
                else:
                    self._first.append(self._first[-1] + count)

    def lines(self, start: int, count: int) -> list[str]:
        out: list[str] = []
        line = max(0, start)
        with self._lock:
            while len(out) < count:
                page = self._page_of(line)
                if page is None:
                    break
                lines = self._page(page)
                offset = line - self._first[page]
                taken = lines[offset : offset + count - len(out)]
                out.extend(taken)
                line += len(taken)
                if not taken:
                    break
        return out

    def find(self, needle: str, start: int, *, backwards: bool = False) -> int | None:
        """The next line after ``start`` (before it, ``backwards``) holding ``needle``,
        wrapping round; reads the pages in turn (all of them when it wraps backwards), or,
        with a page test for the needle, only the pages it lets through."""
        folded = needle.casefold()
        test = self._page_test(needle) if self._page_test is not None and needle else None
        if test is not None:
            return self._find_tested(folded, start, backwards, test)
        if not backwards:
            found = self._scan(folded, start + 1, None)
            return found if found is not None else self._scan(folded, 0, start + 1)
        found = self._scan_back(folded, start - 1, 0)
        if found is not None:
            return found
        self._page_of(1 << 62)  # the last page: every page made once
        return self._scan_back(folded, self._first[-1] - 1, max(0, start))

    def _find_tested(
        self, folded: str, start: int, backwards: bool, test: Callable[[int], bool]
    ) -> int | None:
        """:meth:`find` reading only the pages ``test`` lets through (and the page it starts
        on): the same lines in the same order; the pages before a match counted, not made."""
        last = self._page_count - 1
        line = start - 1 if backwards else start + 1
        here = self._page_of(line) if line >= 0 else None
        if here is None:  # past an end: every page, from the far one
            here = self._page_count if backwards else -1
        pages = (
            [*range(here, -1, -1), *range(last, here - 1, -1)]
            if backwards
            else [*range(here, last + 1), *range(0, here + 1)]
        )
        for turn, page in enumerate(pages):
            if not 0 <= page <= last or (turn and not test(page)):
                continue
            self._count_to(page)
            lines, first = self._page(page), self._first[page]
            low, high = first, first + len(lines) - 1
            if turn == 0:  # from the line after (before) the start; round again, all of it
                low, high = (low, min(high, line)) if backwards else (max(low, line), high)
            numbers = range(high, low - 1, -1) if backwards else range(low, high + 1)
            for number in numbers:
                if folded in lines[number - first].casefold():
                    return number
        return None

    def _scan(self, folded: str, line: int, stop: int | None) -> int | None:
        """The first line from ``line`` (to ``stop``, else the end) holding ``folded``."""
        while stop is None or line < stop:
            page = self._page_of(line)
            if page is None:
                return None
            lines, first = self._page(page), self._first[page]
            for index in range(line - first, len(lines)):
                if stop is not None and first + index >= stop:
                    return None
                if folded in lines[index].casefold():
                    return first + index
            line = first + len(lines)
        return None

    def _scan_back(self, folded: str, line: int, stop: int) -> int | None:
        """The last line from ``line`` down to ``stop`` holding ``folded``."""
        while line >= stop:
            page = self._page_of(line)
            if page is None:
                return None
            lines, first = self._page(page), self._first[page]
            for index in range(line - first, max(stop - first, 0) - 1, -1):
                if folded in lines[index].casefold():
                    return first + index
            line = first - 1
        return None

    def texts(self) -> Iterator[str]:
        """The whole text, a page at a time (its lines uncut, each newline-ended)."""
        for page in range(self._page_count):
            lines = self._make_page(page)
            if lines:
                yield "\n".join(lines) + "\n"

    def head(self, limit: int = COPY_LIMIT) -> str:
        parts: list[str] = []
        size = 0
        for text in self.texts():
            parts.append(text)
            size += len(text)
            if size >= limit:
                break
        return "".join(parts)[:limit].removesuffix("\n")


def step_heading(number: int, step: Any) -> str:
    """``── step N (step_id) ──``: how step ``number`` (from 1) starts."""
    step_id = step.get("step_id") if isinstance(step, Mapping) else None
    return f"{STEP_MARK}{number}{f' ({step_id})' if step_id is not None else ''} ──"


def step_lines(number: int, step: Any) -> list[str]:
    """Step ``number`` (from 1) under its ``── step N ──`` heading."""
    return [step_heading(number, step), json_text(step, 1)]


def trajectory_head(trajectory: Mapping[str, Any]) -> list[str]:
    return [f"{key}: {trajectory[key]}" for key in TRAJECTORY_HEAD if key in trajectory]


def trajectory_rest(trajectory: Mapping[str, Any]) -> list[str]:
    rest = {k: v for k, v in trajectory.items() if k not in (*TRAJECTORY_HEAD, "steps")}
    return ["── other trajectory fields ──", json_text(rest, 1)] if rest else []


def trajectory_document(trajectory: Mapping[str, Any], steps: StepList) -> PagedDocument:
    """The trajectory whose steps are in a file, made a page of steps at a time: the same
    lines as the whole trajectory's text (``app.diagnostics.trajectory_text``). A page
    that cannot be read is one line saying why, where its steps would be."""
    attempt = steps.attempt
    count = len(attempt.pages)

    def make(page: int) -> list[str]:
        lines = trajectory_head(trajectory) if page == 0 else []
        numbers = attempt.page_steps(page) if page < count else range(0)
        try:
            parsed = attempt.read_steps(numbers.start, len(numbers)) if numbers else []
        except ResultFileError as exc:
            lines.append(f"── {exc.problem.line()} ──")
        else:
            for number, step in zip(numbers, parsed, strict=True):
                lines.extend(step_lines(number + 1, step))
        if page >= count - 1:
            lines.extend(trajectory_rest(trajectory))
        return "\n".join(lines).split("\n") if lines else []

    readable = bytearray(max(count, 1))
    """Whether each page's steps parse: 0 not yet tried, 1 they do, 2 they do not."""

    def steps_of(page: int) -> tuple[range, list[Any] | None]:
        numbers = attempt.page_steps(page) if page < count else range(0)
        try:
            parsed = attempt.read_steps(numbers.start, len(numbers)) if numbers else []
        except ResultFileError:
            readable[page] = 2
            return numbers, None
        readable[page] = 1
        return numbers, parsed

    def count_page(page: int) -> int | None:
        """The lines ``make(page)`` gives, without making them (its steps parsed); None
        when they cannot be read (the page is the one line saying why)."""
        numbers, parsed = steps_of(page)
        if parsed is None:
            return None
        lines = trajectory_head(trajectory) if page == 0 else []
        if page >= count - 1:
            lines.extend(trajectory_rest(trajectory))
        return sum(map(shown_count, lines)) + sum(
            shown_count(step_heading(number + 1, step)) + json_text_count(step, 1)
            for number, step in zip(numbers, parsed, strict=True)
        )

    def test_for(needle: str) -> Callable[[int], bool] | None:
        """Page ``n`` may hold ``needle``: its bytes say so, or it is one line saying why
        its steps cannot be read."""
        test = page_test(attempt, needle, SYNTHETIC)
        if test is None:
            return None
        folded = needle.casefold()
        head = any(folded in line.casefold() for line in trajectory_head(trajectory))
        rest = any(folded in line.casefold() for line in trajectory_rest(trajectory))

        def may_hold(page: int) -> bool:
            if (head and page == 0) or (rest and page >= count - 1):
                return True
            if page >= count:
                return False  # no steps: the trajectory's other fields only
            if test(page):
                return True
            if not readable[page]:
                steps_of(page)  # parsed, not counted: is it the line saying why it cannot be?
            return readable[page] == 2

        return may_hold

    return PagedDocument(
        "trajectory", make, max(count, 1), count_page=count_page, page_test=test_for
    )


def long_text_document(title: str, text: LongString) -> PagedDocument:
    """A long string left in its file, a piece at a time: the lines of the whole string
    (a piece that cannot be read is one line saying why)."""
    last = len(text.cuts) - 1

    def make(page: int) -> list[str]:
        try:
            lines = text.piece(page).split("\n")
        except ResultFileError as exc:
            return [f"── {exc.problem.line()} ──"]
        return lines[:-1] if page < last and lines and not lines[-1] else lines

    return PagedDocument(title, make, len(text.cuts))
