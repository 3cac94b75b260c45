"""The issue table's rows: its columns, the short headers and styles, and the status line
that says the cursor's row in full (:mod:`inspector.app.screens.issues` arranges them)."""

from __future__ import annotations

from rich.text import Text

from inspector.app.titles import plural
from inspector.views.attribution import EFFECTS, NO_ISSUE, IssueRow
from widgets.literal import one_line
from widgets.record_table import Field

PUSHED = ("invalidated", "error", "unavailable", "evaluated")
"""The counts an issue can push its tasks into, most severe first."""

SEVERITY_STYLES = {"fatal": "bold magenta", "error": "red", "warning": "yellow", NO_ISSUE: "dim"}

SHORT_EFFECTS = {"fatal": "invalidates", "error": "error", "warning": "none", NO_ISSUE: "rule"}
"""The effect column; the title spells out :data:`inspector.views.attribution.EFFECTS`."""


SHORT_COUNTS = {"invalidated": "inv", "error": "err", "unavailable": "unav", "evaluated": "eval"}
"""Count headers below ~120 columns (the status line under the table says them in full)."""


def _pushed(name: str) -> Field[IssueRow]:
    def text(row: IssueRow) -> str:
        return str(len(row.pushed.get(name, ()))) if name in row.pushed else ""

    return Field(name, name, text, justify="right", short=SHORT_COUNTS[name])


# fmt: off
ISSUE_FIELDS: tuple[Field[IssueRow], ...] = (
    Field("severity", "severity", lambda r: r.severity, short="sev",
          style=lambda r: SEVERITY_STYLES.get(r.severity, "")),
    Field("phase", "phase", lambda r: r.phase),
    Field("code", "code", lambda r: r.code, max_chars=40, shrink=12, cut="middle"),
    Field("attempts", "attempts", lambda r: str(len(r.attempts)), justify="right", short="att"),
    Field("tasks", "tasks", lambda r: str(len(r.task_ids)), justify="right"),
    *(_pushed(name) for name in PUSHED),
    Field("effect", "effect", lambda r: SHORT_EFFECTS.get(r.severity, r.effect),
          style=lambda r: "dim", fold=1),
)
# fmt: on
"""Ids and counts never fold; below ~80 columns the effect column (said above) goes first."""


def cursor_text(row: IssueRow, column: str) -> Text:
    """The whole issue under the cursor, and what its cell counts, in words."""
    text = Text()
    text.append(row.severity, SEVERITY_STYLES.get(row.severity, ""))
    text.append(" · ")
    text.append_text(one_line(row.phase))
    text.append(" · ")
    text.append_text(one_line(row.code))
    if row.reason is not None:
        return _reason_text(row, column, text)
    tasks = plural(len(row.task_ids), "carrying task")
    said = _in_count(row, column, tasks) or f"{plural(len(row.attempts), 'attempt')} on {tasks}"
    text.append(f" — {said}; effect: {EFFECTS.get(row.severity, row.effect)}", "dim")
    return text


def _in_count(row: IssueRow, column: str, tasks: str) -> str | None:
    """On a count column: how many of the row's ``tasks`` are in that count; else None."""
    if column not in PUSHED:
        return None
    if column not in row.pushed:
        return f"not in {column}"
    return f"{len(row.pushed[column])} of {tasks} in {column}"


def _reason_text(row: IssueRow, column: str, text: Text) -> Text:
    """A row with no issue behind it: the engine's reason for its first task, and the count."""
    text.append(" — ", "dim")
    text.append_text(one_line(row.task_ids[0], max_chars=40))
    text.append(": ")
    text.append_text(one_line(row.reason_texts[0]))
    if len(row.task_ids) > 1:
        text.append(f" (and {plural(len(row.task_ids) - 1, 'more task')})")
    tasks = plural(len(row.task_ids), "task")
    said = _in_count(row, column, tasks) or f"{tasks}, no issue behind them"
    text.append(f"; {said}; {row.effect}; enter lists them", "dim")
    return text
