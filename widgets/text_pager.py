"""TextPager: a large text shown a screenful at a time, searchable, never loaded whole."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from inspector.views.documents import MAX_LINE_CHARS, Document
from widgets.literal import literal

PAGE_LINES = 256
MATCH_STYLE = Style(reverse=True)
GUTTER_STYLE = Style(dim=True)


class TextPager(ScrollView, can_focus=True):
    """Lines of a :class:`Document`, read on demand page by page.

    Every line is shown literally (escape sequences, bidi overrides made visible).
    """

    HELP = """\
## Pager
Large text is read a page at a time. Scroll with the arrow keys, **page up/down**,
**home/end**; **/** searches, **n** / **N** jump to the next / previous match.
"""

    DEFAULT_CSS = """
    TextPager {
        height: 1fr;
        background: $surface;
    }
    TextPager:focus {
        background-tint: $foreground 3%;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "next_match", "Next match", tooltip="Jump to the next match"),
        Binding("N", "previous_match", "Prev match", tooltip="Jump to the previous match"),
    ]

    @dataclass
    class Moved(Message):
        """The top line or the match changed (for a status line)."""

        pager: TextPager
        top: int
        line_count: int
        match: int | None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._document: Document | None = None
        self._pages: LRUCache[int, list[str]] = LRUCache(16)
        self._strips: LRUCache[tuple[int, int, int], Strip] = LRUCache(512)
        self._wrapped: LRUCache[tuple[int, int, int], list[Strip]] = LRUCache(512)
        self.match_line: int | None = None
        self.needle = ""
        self._gutter = 6
        self._wrap = False

    @property
    def wrap(self) -> bool:
        """Long lines continue on the next rows (scrolling then moves a line at a time)."""
        return self._wrap

    @wrap.setter
    def wrap(self, value: bool) -> None:
        self._wrap = value
        self._strips.clear()
        self._wrapped.clear()
        self._resize_virtual()
        self.refresh()

    def _resize_virtual(self) -> None:
        document = self._document
        count = document.line_count if document is not None else 0
        longest = document.max_width if document is not None else 0
        width = min(MAX_LINE_CHARS, longest) + self._gutter + 1
        if self._wrap:
            width = 0  # nothing to scroll sideways
        self.virtual_size = Size(width, count)

    def _grown(self) -> None:
        count = self._document.line_count if self._document is not None else 0
        gutter = len(str(max(count, 1))) + 1
        if gutter != self._gutter:
            self._gutter = gutter
            self._strips.clear()
            self._wrapped.clear()
        self._resize_virtual()
        self.refresh()
        self._post_moved()

    @property
    def document(self) -> Document | None:
        return self._document

    def show(self, document: Document | None) -> None:
        """Show ``document`` from its first line."""
        self._document = document
        self._pages.clear()
        self._strips.clear()
        self._wrapped.clear()
        self.match_line = None
        count = document.line_count if document is not None else 0
        self._gutter = len(str(max(count, 1))) + 1
        self._resize_virtual()
        self.scroll_to(0, 0, animate=False)
        self.refresh()
        self._post_moved()

    def _line(self, index: int) -> str | None:
        if self._document is None or index >= self._document.line_count:
            return None
        page = index // PAGE_LINES
        lines = self._pages.get(page)
        if lines is None:
            lines = self._document.lines(page * PAGE_LINES, PAGE_LINES)
            self._pages[page] = lines
            if self._document.line_count != self.virtual_size.height:
                # A document read as it is scrolled (a long trajectory) has grown.
                self.call_later(self._grown)
        offset = index - page * PAGE_LINES
        return lines[offset] if offset < len(lines) else None

    def _wrapped_rows(self, index: int, width: int) -> list[Strip]:
        """Line ``index`` cut into rows of ``width`` cells, the gutter on the first."""
        line = self._line(index)
        if line is None:
            return []
        text = self._styled(index, line)
        text.no_wrap = False
        room = max(1, width - self._gutter)
        rows = text.wrap(self.app.console, room, overflow="fold") if text.plain else [text]
        out = []
        for number, row in enumerate(rows):
            label = f"{index + 1:>{self._gutter - 1}} " if number == 0 else " " * self._gutter
            segments = [Segment(label, GUTTER_STYLE), *row.render(self.app.console)]
            strip = Strip(segments).crop(0, width).extend_cell_length(width)
            out.append(strip.apply_style(self.rich_style))
        return out

    def _styled(self, index: int, line: str) -> Text:
        text = literal(line)
        if index == self.match_line and self.needle:
            # Literal substitutions can shift columns; highlight in the shown text.
            shown = text.plain.casefold().find(self.needle.casefold())
            if shown >= 0:
                text.stylize(MATCH_STYLE, shown, shown + len(self.needle))
        return text

    def _render_wrapped(self, y: int) -> Strip:
        """Row ``y`` of the screen with wrapping: the lines from the top line on, each
        taking as many rows as it needs."""
        width = self.scrollable_content_region.width
        index = int(self.scroll_y)
        row = 0
        while True:
            key = (index, -1, width)
            rows = self._wrapped.get(key)
            if rows is None or index == self.match_line:
                rows = self._wrapped_rows(index, width)
                self._wrapped[key] = rows
            if not rows:
                return Strip.blank(width, self.rich_style)
            if row + len(rows) > y:
                return rows[y - row]
            row += len(rows)
            index += 1

    def render_line(self, y: int) -> Strip:
        if self._wrap:
            return self._render_wrapped(y)
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        key = (index, scroll_x, width)
        cached = self._strips.get(key)
        if cached is not None and index != self.match_line:
            return cached
        line = self._line(index)
        if line is None:
            return Strip.blank(width, self.rich_style)
        text = literal(line)
        if index == self.match_line and self.needle:
            folded = line.casefold()
            start = folded.find(self.needle.casefold())
            if start >= 0:
                # Literal substitutions can shift columns; highlight in the shown text.
                shown = text.plain.casefold().find(self.needle.casefold())
                if shown >= 0:
                    text.stylize(MATCH_STYLE, shown, shown + len(self.needle))
        gutter = Segment(f"{index + 1:>{self._gutter - 1}} ", GUTTER_STYLE)
        segments = [gutter, *text.render(self.app.console)]
        strip = Strip(segments).crop(scroll_x, scroll_x + width).extend_cell_length(width)
        strip = strip.apply_style(self.rich_style)
        self._strips[key] = strip
        return strip

    def go_to_line(self, index: int) -> None:
        self.scroll_to(y=max(0, index - 2), animate=False)
        self.refresh()
        self._post_moved()

    def set_match(self, needle: str, line: int | None) -> None:
        """Highlight ``needle`` on ``line`` and bring it into view."""
        found_first = needle != self.needle
        self.needle = needle
        self.match_line = line
        if found_first:
            self.refresh_bindings()
        self._strips.clear()
        self._wrapped.clear()
        if line is not None:
            self.go_to_line(line)
        else:
            self.refresh()
            self._post_moved()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._post_moved()

    def _post_moved(self) -> None:
        count = self._document.line_count if self._document else 0
        self.post_message(self.Moved(self, int(self.scroll_y), count, self.match_line))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """n / N are shown once a search has a needle."""
        if action in ("next_match", "previous_match"):
            return bool(self.needle)
        return True

    def action_next_match(self) -> None:
        self.post_message(self.SearchRequested(self, backwards=False))

    def action_previous_match(self) -> None:
        self.post_message(self.SearchRequested(self, backwards=True))

    @dataclass
    class SearchRequested(Message):
        """Search again for the current needle (the owner runs the search in a worker)."""

        pager: TextPager
        backwards: bool
