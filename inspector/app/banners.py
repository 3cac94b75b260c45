"""The lines of the overview's banners: refusal, failed evaluation / derived plan, and the
stored metrics.json disagreeing with the recomputation. Text from result files goes
through :func:`widgets.literal.one_line`."""

from __future__ import annotations

from rich.text import Text

from inspector.engine.vocabulary import plural
from inspector.session import Difference, Session
from widgets.literal import one_line

SHOWN_DIFFERENCES = 5


def refusal_lines(session: Session) -> list[Text]:
    if not session.refusal:
        return []
    return [
        Text("AgentCompass would refuse this run: ", "bold")
        + one_line(f"{session.refusal_path}: {session.refusal}", max_chars=400)
    ]


def status_lines(session: Session) -> list[Text]:
    """The run's own status when it did not simply complete: cancelled, failed or never
    finished, with AgentCompass's error text (a failed run must not look finished)."""
    info = session.run.run_info or {}
    status = info.get("status")
    error = info.get("error")
    if status == "completed" and not error:
        return []
    line = Text("Run status: ", "bold")
    if isinstance(status, str) and status:
        line += one_line(status, max_chars=40)
    else:
        line.append("not finished", "bold yellow")
        line.append(" (run_info.json has no final status)", "dim")
    if isinstance(error, str) and error and error != status:
        line.append(" · AgentCompass: ", "bold")
        line += one_line(error, max_chars=300)
    return [line]


def failed_lines(session: Session) -> list[Text]:
    lines = status_lines(session)
    rec = session.recomputation
    if rec is not None and rec.report.evaluation_failed:
        lines.append(
            Text(
                "Evaluation failed: no official score. Values marked (reference) exclude every "
                "invalidated task (a FATAL issue in some attempt).",
                "bold",
            )
        )
    if rec is not None and rec.plan.derived:
        lines.append(Text("Derived plan: ", "bold") + one_line(rec.plan.derived))
    return lines


def difference_lines(differences: list[Difference]) -> list[Text]:
    if not differences:
        return []
    count = len(differences)
    lines = [
        Text(
            f"The stored metrics.json disagrees with the recomputation in "
            f"{plural(count, 'place')}:",
            "bold",
        )
    ]
    for difference in differences[:SHOWN_DIFFERENCES]:
        lines.append(Text("  ") + one_line(difference.line(), max_chars=200))
    if count > SHOWN_DIFFERENCES:
        lines.append(Text(f"  … and {count - SHOWN_DIFFERENCES} more", "dim"))
    return lines
