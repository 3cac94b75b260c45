"""FingerprintLines: the error fingerprints of one issue (phase and code) under the issues
screen's table — each fingerprint with the attempts carrying it and one example message,
shown literally (:func:`widgets.literal.one_line`)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from inspector.views.attribution import IssueRow
from inspector.views.fingerprints import FingerprintGroup
from widgets.literal import one_line


def fingerprint_lines(row: IssueRow, prints: Sequence[FingerprintGroup], most: int = 3) -> Text:
    """The fingerprints of the row's phase and code (the messages with numbers, ids, paths
    and quoted values replaced), each with its attempts and one literal example (when it
    differs from the fingerprint)."""
    mine = [p for p in prints if (p.phase, p.code) == (row.phase, row.code)]
    lines = []
    for p in mine[:most]:
        line = Text(f"{p.attempts} att · ", "dim") + one_line(p.fingerprint, max_chars=120)
        if not p.fingerprint.endswith(": " + p.example):  # else the example says nothing more
            line += Text(" e.g. ", "dim") + one_line(p.example, max_chars=80)
        lines.append(line)
    if len(mine) > most:
        lines.append(Text(f"{len(mine) - most} more fingerprints (inspector errors RUN)", "dim"))
    return Text("\n").join(lines)


class FingerprintLines(Static):
    """The fingerprints of the issue under the cursor (set :attr:`prints`, then :meth:`show`),
    one line each (cut with an ellipsis: the line above and ``inspector errors`` say it all)."""

    DEFAULT_CSS = """
    FingerprintLines {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    prints: tuple[FingerprintGroup, ...] = ()

    def show(self, row: IssueRow | None) -> None:
        self.update(fingerprint_lines(row, self.prints) if row is not None else "")
