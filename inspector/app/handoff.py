"""Hand the terminal to $PAGER or $EDITOR for a real file or folder of the run.

The inspector never writes into a run: a pager only reads, and what an editor does with a
file is the user's own act, so the screens say in their footer and on screen which file
or folder a key opens before it is pressed.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from textual.app import App, SuspendNotSupported

from inspector.results.file_io import open_regular
from inspector.views.documents import Document, FileDocument
from inspector.views.paged import PagedDocument
from inspector.views.visible import visible

DEFAULTS = {"PAGER": "less", "EDITOR": "vi"}


def command_of(variable: str) -> str:
    """The command ``$variable`` names (``less`` / ``vi`` when unset)."""
    return os.environ.get(variable) or DEFAULTS[variable]


def hand_over(app: App[object], variable: str, path: Path) -> bool:
    """Run ``$variable path`` with the terminal suspended; False (and a notice) when the
    program or the terminal cannot."""
    command = command_of(variable)
    words = shlex.split(command) if command.strip() else []
    if not words or not shutil.which(words[0]):
        app.notify(f"${variable} ({command}) is not available.", severity="warning", markup=False)
        return False
    try:
        with app.suspend():
            subprocess.run([*words, str(path)], check=False)
    except SuspendNotSupported:
        app.notify("This terminal cannot hand over to another program.", severity="warning")
        return False
    app.notify(f"{words[0]} {visible(str(path), one_line=True)}", title="Opened", markup=False)
    return True


# A document (the diagnostics screen's): the run's file, or a temporary copy of it.
HANDOFF_FILES: set[str] = set()
"""Temporary copies handed to $PAGER / $EDITOR and not yet removed (removed at exit)."""


def remove_handoff_file(path: str) -> None:
    """Remove a temporary hand-off copy (the program it was handed to has returned)."""
    HANDOFF_FILES.discard(path)
    with contextlib.suppress(OSError):
        os.unlink(path)


@atexit.register
def _remove_handoff_files() -> None:
    for path in list(HANDOFF_FILES):
        remove_handoff_file(path)


def handoff_file(document: Document, *, copy: bool) -> tuple[str, bool]:
    """The file to hand over for ``document``, and whether it is a temporary copy (removed
    afterwards): the run's own file for a pager, a copy for an editor or a built text."""
    if isinstance(document, FileDocument) and not copy:
        return str(document.full_path), False
    with tempfile.NamedTemporaryFile(suffix=".txt", prefix="inspector-", delete=False) as handle:
        HANDOFF_FILES.add(handle.name)
        if isinstance(document, FileDocument):
            with open_regular(document.full_path) as source:
                shutil.copyfileobj(source, handle)  # a chunk at a time
        elif isinstance(document, PagedDocument):  # a large trajectory: a page at a time
            for text in document.texts():
                handle.write(text.encode("utf-8", "replace"))
        else:
            handle.write(document.head(limit=1 << 62).encode("utf-8", "replace"))
    return handle.name, True


def hand_over_document(
    app: App[object], variable: str, document: Document | None, *, copy: bool
) -> None:
    """Run ``$variable`` on ``document`` (a copy when ``copy``; see :func:`handoff_file`) with
    the terminal suspended; a notice when the program or the terminal cannot."""
    command = command_of(variable)
    if not shutil.which(shlex.split(command)[0] if command.strip() else ""):
        app.notify(f"${variable} ({command}) is not available.", severity="warning")
        return
    if document is None:
        return
    path, temporary = handoff_file(document, copy=copy)
    try:
        with app.suspend():
            subprocess.run([*shlex.split(command), path], check=False)
    except SuspendNotSupported:
        app.notify("This terminal cannot hand over to another program.", severity="warning")
    finally:
        if temporary:
            remove_handoff_file(path)
