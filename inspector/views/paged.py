"""Documents made a page at a time: a long trajectory read from its file as it is scrolled.

A :class:`PagedDocument` asks for page ``n`` only when a line of it is wanted, pages in
order: it keeps the first line number of every page it has seen (8 bytes a page) and the
lines of the last :data:`KEEP_PAGES` pages it made, never the whole text. Its line count
grows as it is read: until the last page is made it counts one line more than it has, the
line whose reading makes the next page (a pager scrolled to the end reads on).
"""

from __future__ import annotations

import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from inspector.results.long_text import LongString
from inspector.results.problems import ResultFileError
from inspector.results.stream import StepList
from inspector.views.documents import COPY_LIMIT, MAX_LINE_CHARS, json_text

STEP_MARK = "── step "
"""How each trajectory step starts in the trajectory document."""
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
    ) -> None:
        self.title = title
        self.notice = notice
        self.max_width = 0
        self._make_page = make_page
        self._page_count = page_count
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
        wrapping round; reads the pages in turn (all of them when it wraps backwards)."""
        folded = needle.casefold()
        if not backwards:
            found = self._scan(folded, start + 1, None)
            return found if found is not None else self._scan(folded, 0, start + 1)
        found = self._scan_back(folded, start - 1, 0)
        if found is not None:
            return found
        self._page_of(1 << 62)  # the last page: every page made once
        return self._scan_back(folded, self._first[-1] - 1, max(0, start))

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


def step_lines(number: int, step: Any) -> list[str]:
    """Step ``number`` (from 1) under its ``── step N ──`` heading."""
    step_id = step.get("step_id") if isinstance(step, Mapping) else None
    heading = f"{STEP_MARK}{number}{f' ({step_id})' if step_id is not None else ''} ──"
    return [heading, json_text(step, 1)]


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

    return PagedDocument("trajectory", make, max(count, 1))


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
