"""Hand the terminal to $PAGER or $EDITOR for a real file or folder of the run.

The inspector never writes into a run: a pager only reads, and what an editor does with a
file is the user's own act, so the screens say in their footer and on screen which file
or folder a key opens before it is pressed.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

from textual.app import App, SuspendNotSupported

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
