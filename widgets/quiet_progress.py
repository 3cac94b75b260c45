"""QuietProgressBar: a progress bar that wakes nothing once the work it shows has ended."""

from __future__ import annotations

from textual import events
from textual.widgets import ProgressBar


class QuietProgressBar(ProgressBar):
    """Textual's ProgressBar without its once-a-second timer, which only refreshes the
    ETA (never shown here: ``show_eta=False``) and would run for as long as the screen
    lives, hidden or not. ``finish()`` makes the bar determinate (full) when the work ends:
    an indeterminate bar animates 15 times a second, on screen or not, until it is given a
    total. So an app that has loaded its run uses no CPU while the user reads it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, show_eta=False)

    def on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # ProgressBar.on_mount would start the ETA timer
        self.update()

    def finish(self) -> None:
        """The work ended (done, failed or cancelled): no animation goes on behind it."""
        self.update(total=1, progress=1)
