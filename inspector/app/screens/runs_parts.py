"""The runs screen's parts that need no widget: its reading, done in its workers (off the
UI thread) — the runs under the roots with what their last checks found, two marked runs
read, recomputed and compared — and the note above the table
(:mod:`inspector.app.screens.runs` shows them)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.text import Text

from inspector import loading
from inspector.answers.root import last_check
from inspector.app.messages import ComparisonFailed, ComparisonReady
from inspector.resolve import Overrides
from inspector.results.discover import RunSummary, is_run, summarize_run
from inspector.results.problems import RunReadError
from inspector.session import Session
from inspector.views.compare import compare
from inspector.views.compare_warnings import run_facts
from inspector.views.run_check import RunCheck
from inspector.views.runs_view import PENDING, RunRow

RUNS_HELP = """\
# Runs
The runs under the results root, newest first. Each run's headline value is first the one
stored in its metrics.json (marked *stored*), or what the run's last check found
(marked *cached*, its mark and counts dim: the last report the store keeps for the run,
not yet checked against its files); every run is then recomputed (or found unchanged) in the
background and its row shows the recomputed value, ✓ when the stored metrics.json equals
the recomputation (≠ when it differs, ! when the run cannot be recomputed, ∅ when it has
no stored report: metrics.json missing, the value still recomputed) and the tasks
counted error / unavailable / invalidated. The line under the table shows the whole row
under the cursor, with the first difference or the reason a run cannot be recomputed.

Type **/** to filter: words match anywhere; `model:`, `benchmark:`, `harness:`,
`status:`, `date:`, `check:` (ok, differs, unusable, unstored, pending), `plan:` and `run:`
match one field (`status:failed check:differs`). **s** sorts by the next of date, run, model,
benchmark, harness, status, check and value; **S** reverses the order. **enter** opens a
run; **g** opens the leaderboard (the grid of models × benchmarks); **t** every task over
the runs, flagged (never solved, always errors, verifier suspect, flips, one model only).
**m** marks a run (two at most) and **c** compares the two marked runs task by task:
series side by side, flips, state changes and paired statistics, with a warning when
their plans or benchmark params differ. **G** shows each run's publish-gate result (as
`inspector gate` judges it; the failed rules in the line under the table).
"""
"""The runs screen's help (``?``)."""


def list_runs(
    roots: list[Path], overrides: Overrides | None
) -> tuple[list[RunSummary], list[str], dict[str, RunCheck]]:
    """``(runs, errors, cached checks)``: every run under ``roots`` (a root that is a run
    is itself), the roots that cannot be listed, and what each run's last report in the
    store says its check found, not checked (:func:`inspector.answers.root.last_check`)."""
    runs: list[RunSummary] = []
    errors: list[str] = []
    for root in roots:
        try:
            if is_run(root):
                runs.append(summarize_run(root, root.name))
            else:
                runs.extend(loading.runs_under(root))
        except RunReadError as exc:
            errors.append(str(exc))
    cached = {str(run.path): last_check(str(run.path), run.relative, overrides) for run in runs}
    return runs, errors, {path: check for path, check in cached.items() if check is not None}


def compare_two(
    sides: tuple[tuple[Path, str], tuple[Path, str]],
    overrides: Overrides | None,
    progress: Callable[[str, int, int], None],
) -> ComparisonReady | ComparisonFailed:
    """Read and recompute runs A and B (``(path, label)`` each; ``progress(side, done,
    total)`` as their tasks are read), then align them: the comparison, or why it cannot
    be made (the first side that cannot be read or that AgentCompass would refuse)."""
    sessions: list[Session] = []
    for side, (path, label) in zip("AB", sides, strict=True):

        def read(done: int, total: int, side: str = side) -> None:
            progress(side, done, total)

        def on_event(event: loading.Event, read: Callable[[int, int], None] = read) -> None:
            if isinstance(event, loading.Progress):
                read(event.done, event.total)

        result = loading.read(path, overrides, on_event=on_event)
        if isinstance(result, loading.Failed):
            return ComparisonFailed(f"{label}: {result.message}")
        session = result.session
        if session.recomputation is None:
            return ComparisonFailed(
                f"{label}: AgentCompass would refuse this run: {session.refusal}"
            )
        sessions.append(session)
    a, b = sessions
    assert a.recomputation is not None and b.recomputation is not None
    (_, label_a), (_, label_b) = sides
    comparison = compare(
        a.recomputation, b.recomputation, label_a=label_a, label_b=label_b,
        facts=(run_facts(a.run), run_facts(b.run)),
    )  # fmt: skip
    return ComparisonReady(comparison, (a, b))


def runs_note(rows: list[RunRow], shown: int, sort_by: str, reverse: bool) -> Text:
    """The line above the table: how many runs are shown, how far their checks are (or what
    they found), and the order."""
    if not rows:
        return Text("No runs found here (a run has run_info.json or a details/ folder).", "yellow")
    note = Text(f"{shown} of {len(rows)} runs", "bold")
    waiting = sum(row.check_state == PENDING for row in rows)
    cached = sum(row.is_cached for row in rows)
    if cached:
        note.append(f" · checking {waiting} again… (cached values until then)", "dim")
    elif waiting:
        note.append(f" · recomputing {waiting}… (stored values until then)", "dim")
    else:
        counts = {state: 0 for state in ("ok", "differs", "unusable", "unstored")}
        for row in rows:
            counts[row.check_state] += 1
        note.append(f" · {counts['ok']} ✓", "dim")
        if counts["differs"]:
            note.append(f" · {counts['differs']} ≠ stored", "bold red")
        if counts["unstored"]:
            note.append(f" · {counts['unstored']} ∅ no stored report", "cyan")
        if counts["unusable"]:
            note.append(f" · {counts['unusable']} !", "bold yellow")
    direction = " (reversed)" if reverse else ""
    note.append(f" · sorted by {sort_by}{direction}", "dim")
    return note
