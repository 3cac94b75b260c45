"""AttemptCard: one attempt of a task — status, metrics, issues, retries, telemetry, answer."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from inspector.engine.model import Attempt
from widgets.literal import literal, one_line

SEVERITY_STYLES = {"fatal": "bold magenta", "error": "bold red", "warning": "yellow"}
ANSWER_CHARS = 600
MESSAGE_CHARS = 400


def json_scalar(value: Any) -> str:
    """A metric or telemetry value as JSON writes it (true, 0.5, "x")."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)
    except RecursionError:
        return "(nested too deeply to show here: see the diagnostics)"


def trajectory_duration(payload: Mapping[str, Any] | None) -> str | None:
    """Seconds between the trajectory's started_at and finished_at, if both parse."""
    trajectory = (payload or {}).get("trajectory")
    if not isinstance(trajectory, Mapping):
        return None
    started, finished = trajectory.get("started_at"), trajectory.get("finished_at")
    if not isinstance(started, str) or not isinstance(finished, str):
        return None
    try:
        seconds = (
            datetime.fromisoformat(finished) - datetime.fromisoformat(started)
        ).total_seconds()
    except (ValueError, TypeError, OverflowError):  # bad text; naive minus aware
        return None
    return f"{seconds:.1f} s"


class AttemptCard(Static, can_focus=True):
    """One attempt (or the gap where a planned attempt is missing)."""

    HELP = """\
## Attempt
Status, every metric observation (with the benchmark rule that made them, when one did:
the fallback recorded when an evaluation times out), issues (severity, phase, code, message), retries of this
attempt, duration and telemetry (`meta.harness.telemetry`) and the final answer.
A missing attempt says whether the pass early stop forgave it.
"""

    DEFAULT_CSS = """
    AttemptCard {
        width: 1fr;
        height: auto;
        border: round $panel;
        padding: 0 1;
    }
    AttemptCard:focus {
        border: round $accent;
    }
    AttemptCard.-missing {
        color: $text-muted;
    }
    """

    def __init__(self, index: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index = index
        self.border_title = f"attempt {index}"

    def show(
        self,
        attempt: Attempt | None,
        *,
        retries: int,
        payload: Mapping[str, Any] | None,
        payload_error: str | None = None,
        early_stopped: bool = False,
        rule: str | None = None,
    ) -> None:
        """Fill the card; ``payload`` is the attempt's result.json once it is loaded;
        ``rule`` names the benchmark rule its observations came from, if any."""
        self.set_class(attempt is None, "-missing")
        self.update(
            attempt_table(
                attempt,
                rule=rule,
                retries=retries,
                payload=payload,
                payload_error=payload_error,
                early_stopped=early_stopped,
            )
        )


def attempt_table(
    attempt: Attempt | None,
    *,
    retries: int,
    payload: Mapping[str, Any] | None,
    payload_error: str | None = None,
    early_stopped: bool = False,
    rule: str | None = None,
) -> Table:
    """What an :class:`AttemptCard` shows, as a Rich table (every result string literal)."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    if attempt is None:
        if early_stopped:
            grid.add_row("status", Text("not run: the pass strategy stopped early", "dim"))
        else:
            grid.add_row("status", Text("missing: no result", "bold red"))
        if retries:
            grid.add_row("retries", Text(f"{retries} (retry-only attempt)"))
        return grid
    grid.add_row("status", one_line(attempt.status))
    grid.add_row("retries", Text(str(retries)))
    metrics = Text()
    for name, value in attempt.metrics.items():
        metrics.append_text(one_line(name))
        metrics.append(f" = {json_scalar(value)}\n")
    metrics.rstrip()
    grid.add_row("metrics", metrics if attempt.metrics else Text("none observed", "dim"))
    if rule:
        grid.add_row("rule", Text(rule, "yellow"))
    issues = Text()
    for issue in attempt.issues:
        issues.append(issue.severity.upper(), SEVERITY_STYLES.get(issue.severity, ""))
        issues.append(" ")
        issues.append_text(one_line(f"{issue.phase}/{issue.code}"))
        issues.append("\n  ")
        issues.append_text(literal(issue.message, max_chars=MESSAGE_CHARS))
        issues.append("\n")
    issues.rstrip()
    grid.add_row("issues", issues if attempt.issues else Text("none", "dim"))
    if payload_error:
        grid.add_row("payload", literal(payload_error, multiline=True, max_chars=400))
    elif payload is None:
        grid.add_row("payload", Text("loading…", "dim"))
    else:
        _payload_rows(grid, payload)
    return grid


def _payload_rows(grid: Table, payload: Mapping[str, Any]) -> None:
    duration = trajectory_duration(payload)
    if duration:
        grid.add_row("duration", Text(duration))
    meta = payload.get("meta")
    harness = meta.get("harness") if isinstance(meta, Mapping) else None
    telemetry = harness.get("telemetry") if isinstance(harness, Mapping) else None
    if isinstance(telemetry, Mapping) and telemetry:
        lines = Text()
        for key, value in list(telemetry.items())[:12]:
            lines.append_text(one_line(key))
            lines.append(" = ")
            lines.append_text(one_line(json_scalar(value), max_chars=60))
            lines.append("\n")
        if len(telemetry) > 12:
            lines.append(f"… {len(telemetry) - 12} more\n", "dim")
        lines.rstrip()
        grid.add_row("telemetry", lines)
    answer = payload.get("final_answer")
    shown = answer if isinstance(answer, str) else json_scalar(answer)
    grid.add_row("answer", literal(shown, multiline=True, max_chars=ANSWER_CHARS))
    trajectory = payload.get("trajectory")
    steps = trajectory.get("steps") if isinstance(trajectory, Mapping) else None
    if isinstance(steps, Sequence) and not isinstance(steps, str):  # a list, or steps in a file
        grid.add_row("steps", Text(str(len(steps))))
