"""What the header says: where you are (run, series, task, attempt, side A/B).

Each screen's title is the run it shows (``namespace/run_id``, never an absolute path) and
its sub-title the place inside it, most specific first, so a narrow header still says it.
"""

from __future__ import annotations

from pathlib import Path

from textual.dom import DOMNode

from inspector.app.host import host_of
from inspector.engine.recomputation import Recomputation
from inspector.engine.vocabulary import plural as plural  # the one plural (re-exported)
from inspector.session import Session
from widgets.literal import literal_plain

RUN_LABEL_CELLS = 40
"""A run label longer than this is shortened: its namespace first, in the middle (the run's
own folder tells the runs of one namespace apart), then the folder, in the middle."""


def run_label(path: Path) -> str:
    """``namespace/run_id`` — never an absolute path."""
    return "/".join(path.parts[-2:])


def middle(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters in the middle ("gpt_sci…_000007"), keeping
    more of the end, where run folders and task ids differ."""
    if len(text) <= width or width < 5:
        return text if len(text) <= width else text[:width]
    tail = (width - 1) * 3 // 5
    head = width - 1 - tail
    return f"{text[:head]}…{text[len(text) - tail :]}"


def run_title(path: Path) -> str:
    """``namespace/run_id`` in at most :data:`RUN_LABEL_CELLS` characters, the run's folder
    whole while it fits (``qwen3-co…amespace/syn_alpha_avg_fatal_hierarchy``)."""
    label = literal_plain(run_label(path))
    namespace, slash, folder = label.rpartition("/")
    room = RUN_LABEL_CELLS - len(folder) - 1
    if len(label) <= RUN_LABEL_CELLS or not slash or room < 5:
        return middle(label, RUN_LABEL_CELLS)
    return f"{middle(namespace, room)}/{folder}"


def session_title(session: Session) -> str:
    """The run of ``session`` as a screen title."""
    return run_title(session.run.path)


def title_of(node: DOMNode, recomputation: Recomputation) -> str | None:
    """The title of the run ``recomputation`` belongs to (None: the app's own title)."""
    host = host_of(node)
    session = host.session_for(recomputation) if host is not None else None
    return session_title(session) if session is not None else None


def place(*parts: str | None) -> str:
    """Sub-title parts joined with " · " (empty parts left out); text from result files
    (task ids, series ids) is made literal and long parts are cut in the middle."""
    return " · ".join(middle(literal_plain(part), 48) for part in parts if part)
