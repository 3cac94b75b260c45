"""The evidence behind one attempt: diagnostics, verifier output, retries, files, trajectory."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Header, Input, OptionList, Static
from textual.widgets.option_list import Option

from inspector.app.diagnostics import Source, attempt_sources
from inspector.app.handoff import hand_over_document
from inspector.app.host import InspectorScreen
from inspector.app.payloads import read_payload
from inspector.app.titles import place, session_title
from inspector.results.problems import ResultFileError
from inspector.session import Session
from inspector.views.documents import Document
from inspector.views.paged import STEP_MARK
from widgets.key_footer import KeyFooter
from widgets.literal import one_line
from widgets.plan_panel import broken
from widgets.text_pager import TextPager


@dataclass
class SourcesReady(Message):
    sources: list[Source]
    error: str | None
    """Why the sources are incomplete (no task folder, result.json unusable)."""


@dataclass
class DocumentReady(Message):
    key: str
    document: Document | None
    error: str | None


@dataclass
class MatchFound(Message):
    key: str | None
    """The source searched (a match in a document no longer shown is dropped)."""
    needle: str
    line: int | None


class DiagnosticsScreen(InspectorScreen):
    """Sources of evidence on the left, the selected one paged on the right."""

    HELP = """\
# Diagnostics
Everything recorded about one attempt, keyed by where it was found: the execution
diagnostics, the verifier's raw data (`meta.benchmark.eval_raw_data`), analyzer verdicts,
retry records and archived executions, artifact files, the trajectory step by step, and the
raw files. Text is read a page at a time and shown literally.
**,** / **.** switch to the previous / next attempt of the task (the same section stays
open when that attempt has it); **enter** reads the section, **escape** goes back to the
list of sections; **z** wraps long lines; **y** copies the document. **/** searches:
**enter** finds the first match and moves to the text, where **n** / **N** jump to the
next / previous one.
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "search", "Search", tooltip="Find text in this document"),
        Binding("comma", "attempt(-1)", "Prev attempt", tooltip="The previous attempt's evidence"),
        Binding("full_stop", "attempt(1)", "Next attempt", tooltip="The next attempt's evidence"),
        Binding("z", "wrap", "Wrap", tooltip="Wrap long lines (again: one line per line)"),
        Binding("n", "next_match", "Next", show=False),
        Binding("N", "previous_match", "Prev", show=False),
        Binding(
            "right_square_bracket",
            "step(False)",
            "Next step",
            tooltip="Jump to the next trajectory step",
        ),
        Binding(
            "left_square_bracket",
            "step(True)",
            "Prev step",
            show=False,
            tooltip="Jump to the previous trajectory step",
        ),
        Binding("o", "open_pager", "Pager: this", tooltip="Read this file in $PAGER"),
        Binding("e", "open_editor", "Editor: a copy", tooltip="Open a copy in $EDITOR"),
        Binding("y", "copy", "Copy", tooltip="Copy this document (first MiB) to the clipboard"),
        Binding("escape", "back", "Back", tooltip="Close search, then go back"),
    ]

    def __init__(
        self, session: Session, task_id: str, attempt: int, side: str | None = None
    ) -> None:
        super().__init__()
        self.session = session
        self.task_id = task_id
        self.attempt = attempt
        self.side = side
        """The side of a comparison the task was opened on ("side B: <label>"), if any."""
        self.sources: list[Source] = []
        self.current_key: str | None = None
        self.needle = ""

    def shown_sessions(self) -> tuple[Session, ...]:
        return (self.session,)

    @property
    def source_list(self) -> OptionList:
        return self.query_one("#sources", OptionList)

    @property
    def pager(self) -> TextPager:
        return self.query_one(TextPager)

    @property
    def search_input(self) -> Input:
        return self.query_one("#search", Input)

    @property
    def status(self) -> Static:
        return self.query_one("#pager-status", Static)

    @property
    def notice(self) -> Static:
        """Why the shown document is shown as it is (a file too large to parse, an error)."""
        return self.query_one("#pager-notice", Static)

    def show_notice(self, label: str | None, message: str | None) -> None:
        """Show ``label: message`` above the pager, or hide the notice line."""
        self.notice.set_class(bool(message), "-shown")
        if message:
            text = Text(f"{label}: " if label else "", "bold")
            self.notice.update(text + one_line(message, max_chars=400))
        else:
            self.notice.update("")

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="diagnostics-body"):
            yield OptionList(id="sources")
            with Vertical(id="pager-column"):
                yield Static(id="pager-notice")
                yield TextPager()
                yield Input(placeholder="search (enter: next match, escape: close)", id="search")
                yield Static(id="pager-status")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = session_title(self.session)
        self.show_attempt(self.attempt)

    @property
    def attempts(self) -> list[int]:
        """The attempts the task recorded (the ones this screen can switch between)."""
        rec = self.session.recomputation
        if rec is None or self.task_id not in rec.task_index():
            return [self.attempt]
        return sorted(rec.tasks[rec.task_index()[self.task_id]].attempts) or [self.attempt]

    def show_attempt(self, attempt: int) -> None:
        """List the sources of ``attempt`` (in a worker); the open section stays open."""
        self.attempt = attempt
        rec = self.session.recomputation
        k = rec.plan.k if rec is not None else attempt
        self.sub_title = place(
            f"attempt {attempt} of {k}", f"task {self.task_id}", "diagnostics", self.side
        )
        self.source_list.loading = True
        self._find_sources()

    def action_attempt(self, step: int) -> None:
        attempts = self.attempts
        position = attempts.index(self.attempt) if self.attempt in attempts else 0
        target = attempts[max(0, min(len(attempts) - 1, position + step))]
        if target == self.attempt:
            self.notify(f"Attempt {target} is the {'last' if step > 0 else 'first'} recorded.")
            return
        self.show_attempt(target)

    @work(
        thread=True,
        exclusive=True,
        exit_on_error=False,
        group="sources",
        description="list sources",
    )
    def _find_sources(self) -> None:
        run = self.session.run
        entry = run.entry_for(self.task_id)
        if entry is None:
            self.post_message(SourcesReady([], "the task folder is not in the run"))
            return
        payload: dict[str, Any] | None = None
        problem = None
        try:
            payload = read_payload(run, entry, self.attempt)
        except ResultFileError as exc:
            problem = exc.problem.message
        except Exception as exc:
            problem = f"{type(exc).__name__}: {exc}"
        try:
            sources = attempt_sources(run, entry, self.attempt, payload, payload_problem=problem)
        except Exception as exc:
            self.post_message(SourcesReady([], f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(SourcesReady(sources, None))

    @on(SourcesReady)
    def _sources_ready(self, message: SourcesReady) -> None:
        self.source_list.loading = False
        self.sources = message.sources
        keys = [s.key for s in self.sources]
        keep = self.current_key if self.current_key in keys else None
        pager_focused = self.focused is self.pager
        self.current_key = None  # open the section again: it is another attempt's now
        self.source_list.clear_options()
        room = 25 if self.size.width < 120 else 35  # the list's width (tcss) less its frame
        labels = [one_line(s.label, max_chars=60) for s in self.sources]
        for label, source in zip(labels, self.sources, strict=True):
            if not source.recorded:
                label.stylize("dim")
        self.source_list.add_options(  # a long name breaks after a dot, not inside a word
            Option(broken(label, room), id=s.key)
            for label, s in zip(labels, self.sources, strict=True)
        )
        self.show_notice(None, None)
        if message.error:
            self.show_notice("cannot list the sources", message.error)
        if self.sources:
            first = next((i for i, s in enumerate(self.sources) if s.recorded), 0)
            self.source_list.highlighted = keys.index(keep) if keep is not None else first
            (self.pager if pager_focused and keep is not None else self.source_list).focus()
        else:
            self.pager.show(None)

    @on(OptionList.OptionHighlighted, "#sources")
    def _source_highlighted(self, message: OptionList.OptionHighlighted) -> None:
        key = message.option.id
        source = next((s for s in self.sources if s.key == key), None)
        if source is not None and key != self.current_key:
            self.current_key = key
            self.refresh_bindings()
            self.pager.loading = True
            self._open_source(source)

    @on(OptionList.OptionSelected, "#sources")
    def _source_selected(self, message: OptionList.OptionSelected) -> None:
        self.pager.focus()

    @work(
        thread=True,
        exclusive=True,
        exit_on_error=False,
        group="document",
        description="open document",
    )
    def _open_source(self, source: Source) -> None:
        try:
            self.post_message(DocumentReady(source.key, source.open(), None))
        except ResultFileError as exc:
            self.post_message(DocumentReady(source.key, None, exc.problem.line()))
        except Exception as exc:
            self.post_message(DocumentReady(source.key, None, f"{type(exc).__name__}: {exc}"))

    @on(DocumentReady)
    def _document_ready(self, message: DocumentReady) -> None:
        if message.key != self.current_key:
            return
        self.pager.loading = False
        self.pager.show(message.document)
        if self.needle and message.document is not None:
            self._find(message.document, self.needle, -1, False)  # the search follows
        source = next((s for s in self.sources if s.key == message.key), None)
        if message.error:
            self.show_notice("cannot open", message.error)
        elif message.document is not None and message.document.notice:
            self.show_notice(message.document.title, message.document.notice)
        else:
            self.show_notice(None, source.notice if source is not None else None)

    @on(TextPager.Moved)
    def _moved(self, message: TextPager.Moved) -> None:
        document = self.pager.document
        text = Text()
        text.append(f"attempt {self.attempt} · ", "bold")
        if document is not None:
            text.append_text(one_line(document.title, max_chars=60))
            count = message.line_count
            more = getattr(document, "complete", True) is False  # read on as it is scrolled
            shown = f"{count - 1}+" if more else str(count)
            text.append(f" · line {min(message.top + 1, max(count, 1))} of {shown}")
        if message.match is not None:
            text.append(f" · match on line {message.match + 1}", "bold")
        elif self.needle:
            text.append(" · ")
            text.append_text(one_line(self.needle, max_chars=40))
            text.append(" not found", "yellow")
        if self.focused is self.pager:
            text.append(" · esc: sections", "dim")
        self.status.update(text)

    def action_search(self) -> None:
        self.set_class(True, "-searching")
        self.search_input.focus()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, message: Input.Submitted) -> None:
        """``enter``: search, and give the pager the focus so that n / N jump (the box
        stays open; / goes back to it)."""
        self.needle = message.value
        self._search(backwards=False)
        self.pager.focus()

    @on(TextPager.SearchRequested)
    def _search_again(self, message: TextPager.SearchRequested) -> None:
        self._search(backwards=message.backwards)

    def action_next_match(self) -> None:
        self._search(backwards=False)

    def action_previous_match(self) -> None:
        self._search(backwards=True)

    def _search(self, *, backwards: bool) -> None:
        document = self.pager.document
        if document is None or not self.needle:
            return
        start = (
            self.pager.match_line
            if self.pager.match_line is not None
            else int(self.pager.scroll_y) - 1
        )
        self._find(document, self.needle, start, backwards)

    def action_wrap(self) -> None:
        self.pager.wrap = not self.pager.wrap

    def action_step(self, backwards: bool) -> None:
        """Jump to the next (previous) ``── step N ──`` heading of a trajectory."""
        document = self.pager.document
        if document is None:
            return
        start = (
            self.pager.match_line if self.pager.match_line is not None else int(self.pager.scroll_y)
        )
        self._find(document, STEP_MARK, start, backwards)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "step":
            return self.current_key == "trajectory"
        if action in ("open_pager", "open_editor"):  # a browser has no terminal to hand over
            return not self.app.is_web
        return True

    @work(thread=True, exclusive=True, exit_on_error=False, group="search", description="search")
    def _find(self, document: Document, needle: str, start: int, backwards: bool) -> None:
        key = self.current_key
        line = document.find(needle, start, backwards=backwards)
        self.post_message(MatchFound(key, needle, line))

    @on(MatchFound)
    def _match_found(self, message: MatchFound) -> None:
        if message.key != self.current_key:
            return  # a search of a section no longer shown
        self.pager.set_match(message.needle, message.line)

    def action_back(self) -> None:
        """Close the search, else go from the text back to the sections, else leave."""
        if self.has_class("-searching"):
            self.set_class(False, "-searching")
            self.pager.focus()
            return
        if self.focused is self.pager and self.sources:
            self.source_list.focus()
            return
        self.app.pop_screen()

    # Hand-offs: $PAGER, $EDITOR, clipboard. The run directory is never written.
    def action_open_pager(self) -> None:
        hand_over_document(self.app, "PAGER", self.pager.document, copy=False)

    def action_open_editor(self) -> None:
        hand_over_document(self.app, "EDITOR", self.pager.document, copy=True)

    def action_copy(self) -> None:
        document = self.pager.document
        if document is None:
            return
        text = document.head()
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {len(text):,} characters.")
