"""Flags say their evidence and need at least two attempts; the strip marks an errored
attempt (issue 49, item 7)."""

from __future__ import annotations

from pathlib import Path

from inspector.views.items import (
    ALWAYS_ERRORS,
    MARKS,
    NEVER_SOLVED,
    RunTasks,
    TaskOutcome,
    item_rows,
    mark_of,
)


def _outcome(
    solved: int = 0, failed: int = 0, errored: int = 0, state: str = "error"
) -> TaskOutcome:
    value = None if state != "evaluated" else float(solved > 0)
    return TaskOutcome(
        "t", solved, failed, errored, 0, value, state, ("",) * (solved + failed + errored)
    )


def _runs(*outcomes: TaskOutcome) -> list[RunTasks]:
    return [
        RunTasks(f"m{n}/run", f"m{n}", "hle", "avg@1", True, (o,)) for n, o in enumerate(outcomes)
    ]


def _flags(rows) -> dict[str, str]:  # type: ignore[no-untyped-def]
    [row] = rows
    return {f.flag: f.reason for f in row.flags}


def test_always_errors_needs_two_attempts_and_says_its_evidence() -> None:
    assert ALWAYS_ERRORS not in _flags(item_rows(_runs(_outcome(errored=1))))
    reason = _flags(item_rows(_runs(_outcome(errored=2))))[ALWAYS_ERRORS]
    assert reason == "all 2 attempts in 1 run ended in error"


def test_never_solved_needs_two_attempts_and_says_its_evidence() -> None:
    one = item_rows(_runs(_outcome(failed=1, state="evaluated")), min_models=1)
    assert NEVER_SOLVED not in _flags(one)
    three = _runs(*(_outcome(failed=1, state="evaluated") for _ in range(3)))
    reason = _flags(item_rows(three))[NEVER_SOLVED]
    assert reason.endswith("none of its 3 attempts in 3 runs succeeded"), reason


def test_a_run_with_an_errored_attempt_is_marked_as_errored() -> None:
    assert mark_of(_outcome(solved=1, errored=1, state="evaluated")) == MARKS["errored"]
    assert mark_of(_outcome(solved=1, failed=1, errored=1, state="evaluated")) == MARKS["errored"]
    assert mark_of(_outcome(solved=1, state="evaluated")) == MARKS["solved"]
    assert mark_of(_outcome(failed=1, state="evaluated")) == MARKS["failed"]


def test_one_plural_function() -> None:
    """Every "1 task" / "2 tasks" goes through inspector.engine.vocabulary.plural."""
    import re

    root = Path(__file__).resolve().parents[2]
    inline = re.compile(r"""else ['"]s['"]|['"]s['"] if """)
    found = [
        f"{path.relative_to(root)}:{n}"
        for folder in ("inspector", "widgets")
        for path in sorted((root / folder).rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if inline.search(line) and path.name != "vocabulary.py"
    ]
    assert found == []
