"""Tasks across runs: per benchmark under a results root, one row per task id over
every finished run of it — the runs, models and attempts behind it, how its attempts ended,
its mean value — and flags, each with a one-line reason.

Each run is first reduced to a :class:`RunTasks` (in the process that read it: small, sent
back whole) from the engine's own per-task reductions of the run's headline series, the
ones the overview shows; :func:`item_rows` then puts the runs of each benchmark together.

An attempt ends in exactly one of four ways (so solved + failed + errored + unavailable =
the attempts seen):

- ``errored``: it was recorded and carries an ERROR or FATAL issue;
- ``unavailable``: it was never recorded (a missing attempt the engine counts; the attempts
  a ``pass`` run did not need after a success are not counted), or it was recorded without
  an error issue and without the primary metric;
- ``solved``: else, when its primary observation is a success (binary: true; scalar:
  above 0);
- ``failed``: else.

Pure: no I/O, no textual, no rich.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from inspector.engine import strict_json
from inspector.engine.aggregation import mean as mean_of
from inspector.engine.contract import BINARY
from inspector.engine.model import TaskRecord
from inspector.engine.recomputation import Recomputation
from inspector.engine.reduction import TaskReduction
from inspector.engine.strategies import HEADLINE
from inspector.engine.vocabulary import EVALUATED, plural
from inspector.views.csv_cells import csv_writer
from inspector.views.fingerprints import fingerprint
from inspector.views.text_cells import cell_width, pad, tell_twins_apart
from inspector.views.visible import visible

NEVER_SOLVED = "never_solved"
ALWAYS_ERRORS = "always_errors"
VERIFIER_SUSPECT = "verifier_suspect"
FLIPS_WITHIN_MODEL = "flips_within_model"
ONE_MODEL_ONLY = "one_model_only"
FLAGS = (NEVER_SOLVED, ALWAYS_ERRORS, VERIFIER_SUSPECT, FLIPS_WITHIN_MODEL, ONE_MODEL_ONLY)
MIN_MODELS = 3
"""``never_solved`` needs the task evaluated by at least this many models (``--min-models``)."""
MIN_ATTEMPTS = 2
"""``never_solved`` and ``always_errors`` need at least this many attempts: one attempt that
failed or errored is an outcome, not a pattern."""
FINISHED = ("completed", "failed")
"""The ``run_info.json`` statuses of a finished run (failed: it ended with FATAL issues)."""
VERIFIER_PHASE = "evaluate"
FORMATS = ("table", "json", "csv")


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    """One task in one run: how its attempts ended and the engine's headline reduction."""

    task_id: str
    solved: int
    failed: int
    errored: int
    unavailable: int
    value: float | None
    state: str
    verifier: tuple[str, ...]
    """Per recorded attempt, its evaluate-phase fingerprints joined by newlines ("" none)."""

    @property
    def attempts(self) -> int:
        return self.solved + self.failed + self.errored + self.unavailable


@dataclass(frozen=True, slots=True)
class RunTasks:
    """One finished run, reduced for :func:`item_rows`."""

    run: str
    model: str
    benchmark: str
    plan: str
    """``strategy@k``: runs with the same plan are comparable (``flips_within_model``)."""
    binary: bool
    tasks: tuple[TaskOutcome, ...]


def _success(value: object, binary: bool) -> bool:
    if binary:
        return value is True
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def task_outcome(
    task: TaskRecord, reduction: TaskReduction, primary: str, binary: bool
) -> TaskOutcome:
    """How the attempts of ``task`` ended (the module's four ways) beside its reduction."""
    solved = failed = errored = unavailable = 0
    verifier = []
    for index in sorted(task.attempts):
        attempt = task.attempts[index]
        prints = sorted(
            {
                fingerprint(i.phase, i.code, i.message)
                for i in attempt.issues
                if i.phase == VERIFIER_PHASE
            }
        )
        verifier.append("\n".join(prints))
        if attempt.has_error_issue:
            errored += 1
        elif primary not in attempt.metrics:
            unavailable += 1
        elif _success(attempt.metrics[primary], binary):
            solved += 1
        else:
            failed += 1
    unavailable += max(reduction.missing_attempts, 0)
    return TaskOutcome(
        task.task_id, solved, failed, errored, unavailable, reduction.value, reduction.state,
        tuple(verifier),
    )  # fmt: skip


def run_tasks(run: str, rec: Recomputation) -> RunTasks | None:
    """One scored run reduced for :func:`item_rows`; None when it has no headline series."""
    series = next((s for s in rec.report.series if s.role == HEADLINE), None)
    if series is None:
        return None
    reductions = rec.reductions[series.series_id]
    contract = rec.plan.contract
    binary = contract.primary.kind == BINARY
    tasks = tuple(
        task_outcome(task, reduction, contract.primary_id, binary)
        for task, reduction in zip(rec.tasks, reductions, strict=True)
    )
    plan = f"{rec.plan.strategy}@{rec.plan.k}"
    return RunTasks(run, rec.plan.model_id, rec.plan.benchmark_id, plan, binary, tasks)


@dataclass(frozen=True, slots=True)
class Flag:
    flag: str
    reason: str


@dataclass(frozen=True, slots=True)
class Mark:
    """The task in one run (the strip of marks of a row)."""

    run: str
    model: str
    plan: str
    outcome: TaskOutcome


@dataclass(frozen=True, slots=True)
class ItemRow:
    """One task id of one benchmark over every finished run of it."""

    benchmark: str
    task_id: str
    runs: int
    models: int
    attempts: int
    solved: int
    failed: int
    errored: int
    unavailable: int
    mean: float | None
    """The mean over the runs that evaluated it of the engine's headline value."""
    flags: tuple[Flag, ...]
    marks: tuple[Mark, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "benchmark": self.benchmark,
            "task_id": self.task_id,
            "runs": self.runs,
            "models": self.models,
            "attempts": self.attempts,
            "solved": self.solved,
            "failed": self.failed,
            "errored": self.errored,
            "unavailable": self.unavailable,
            "mean": self.mean,
            "flags": [{"flag": f.flag, "reason": f.reason} for f in self.flags],
        }


def _names(items: Iterable[str]) -> str:
    names = sorted(set(items))
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _flags(marks: Sequence[Mark], binary: bool, min_models: int) -> tuple[Flag, ...]:
    outcomes = [m.outcome for m in marks]
    attempts = sum(o.attempts for o in outcomes)
    solved = sum(o.solved for o in outcomes)
    errored = sum(o.errored for o in outcomes)
    evaluated_by = {m.model for m in marks if m.outcome.state == EVALUATED}
    solved_by = {m.model for m in marks if m.outcome.solved}
    tried_by = {m.model for m in marks if m.outcome.solved or m.outcome.failed}
    evidence = f"{plural(attempts, 'attempt')} in {plural(len(marks), 'run')}"
    flags = []
    if len(evaluated_by) >= min_models and not solved and attempts >= MIN_ATTEMPTS:
        flags.append(Flag(NEVER_SOLVED, f"evaluated by {plural(len(evaluated_by), 'model')} "
                          f"({_names(evaluated_by)}); none of its {evidence} succeeded"))  # fmt: skip
    always_errors = attempts >= MIN_ATTEMPTS and errored == attempts
    if always_errors:
        flags.append(Flag(ALWAYS_ERRORS, f"all {evidence} ended in error"))
    suspect = _verifier_suspect(outcomes, binary, always_errors)
    if suspect:
        flags.append(Flag(VERIFIER_SUSPECT, suspect))
    flips = _flips(marks)
    if flips:
        flags.append(Flag(FLIPS_WITHIN_MODEL, flips))
    if len(solved_by) == 1 and len(tried_by) >= 2:
        flags.append(Flag(ONE_MODEL_ONLY, f"solved only by {_names(solved_by)} of the "
                          f"{plural(len(tried_by), 'model')} with a scored attempt"))  # fmt: skip
    return tuple(flags)


def _verifier_suspect(outcomes: Sequence[TaskOutcome], binary: bool, always_errors: bool) -> str:
    recorded = [v for o in outcomes for v in o.verifier]
    if len(recorded) >= 2 and recorded[0] and all(v == recorded[0] for v in recorded):
        said = recorded[0].split("\n")[0]
        runs = sum(1 for o in outcomes if any(o.verifier))
        return (f"the same verifier output on all {plural(len(recorded), 'recorded attempt')} "
                f"in {plural(runs, 'run')}: {said}")  # fmt: skip
    if binary:
        outside = [o.value for o in outcomes if o.value is not None and not 0 <= o.value <= 1]
        if outside:
            return f"value {outside[0]!r} outside the binary contract's range [0, 1]"
    if outcomes and not always_errors and not any(o.state == EVALUATED for o in outcomes):
        return f"evaluated by none of its {plural(len(outcomes), 'run')}"
    return ""


def _flips(marks: Sequence[Mark]) -> str:
    """The first model that solved the task in one run and failed it in another run with
    the same plan (a run "fails" the task when it has a failed attempt and no solved one)."""
    by_model: dict[tuple[str, str], list[Mark]] = {}
    for mark in marks:
        by_model.setdefault((mark.model, mark.plan), []).append(mark)
    for (model, plan), group in sorted(by_model.items()):
        won = [m.run for m in group if m.outcome.solved]
        lost = [m.run for m in group if m.outcome.failed and not m.outcome.solved]
        if won and lost:
            return f"{model} ({plan}) solved it in {_names(won)} and failed it in {_names(lost)}"
    return ""


def item_rows(
    runs: Sequence[RunTasks], *, benchmark: str | None = None, min_models: int = MIN_MODELS
) -> list[ItemRow]:
    """Rows for every task id of every benchmark (or only ``benchmark``) over ``runs``,
    flagged rows first (by their first flag, in the order of :data:`FLAGS`), then by
    benchmark and task id."""
    found: dict[tuple[str, str], list[Mark]] = {}
    binary: dict[str, bool] = {}
    for run in runs:
        if benchmark is not None and run.benchmark != benchmark:
            continue
        binary[run.benchmark] = binary.get(run.benchmark, True) and run.binary
        for outcome in run.tasks:
            mark = Mark(run.run, run.model, run.plan, outcome)
            found.setdefault((run.benchmark, outcome.task_id), []).append(mark)
    rows = []
    for (bench, task_id), marks in found.items():
        outcomes = [m.outcome for m in marks]
        values = [o.value for o in outcomes if o.state == EVALUATED and o.value is not None]
        rows.append(
            ItemRow(
                benchmark=bench,
                task_id=task_id,
                runs=len(marks),
                models=len({m.model for m in marks}),
                attempts=sum(o.attempts for o in outcomes),
                solved=sum(o.solved for o in outcomes),
                failed=sum(o.failed for o in outcomes),
                errored=sum(o.errored for o in outcomes),
                unavailable=sum(o.unavailable for o in outcomes),
                mean=mean_of(values),
                flags=_flags(marks, binary[bench], min_models),
                marks=tuple(marks),
            )
        )
    rows.sort(key=sort_key)
    return rows


def sort_key(row: ItemRow) -> tuple[int, str, str]:
    first = FLAGS.index(row.flags[0].flag) if row.flags else len(FLAGS)
    return (first, row.benchmark, row.task_id)


# -- outputs ------------------------------------------------------------------------------

COLUMNS = ("benchmark", "task_id", "runs", "models", "attempts", "solved", "failed", "errored",
           "unavailable", "mean", "flags")  # fmt: skip


def _mean(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def as_json(rows: Sequence[ItemRow]) -> str:
    return strict_json.dumps([row.to_json() for row in rows], ensure_ascii=False, indent=2) + "\n"


def as_csv(rows: Sequence[ItemRow]) -> str:
    """One line per row; ``flags`` the flag names joined by ``;``, ``reasons`` their reasons
    joined by `` | ``."""
    out = io.StringIO()
    writer = csv_writer(out)
    writer.writerow([*COLUMNS, "reasons"])
    for row in rows:
        data = row.to_json()
        writer.writerow(
            [*(data[c] for c in COLUMNS[:-1]), ";".join(f.flag for f in row.flags),
             " | ".join(f.reason for f in row.flags)]
        )  # fmt: skip
    return out.getvalue()


def as_table(rows: Sequence[ItemRow]) -> str:
    """A plain table: the counts, the mean and the flags; each flag's reason on its own
    indented line. Text from result files is shown literally, on a terminal or not (a table
    is read by a person: ``| less -R``, ``| tee``, a CI log), one row per line."""
    shown = functools.partial(visible, one_line=True)
    head = ("benchmark", "task", "runs", "models", "att", "solved", "failed", "errored", "unav",
            "mean", "flags")  # fmt: skip
    cells = [
        (shown(r.benchmark), shown(r.task_id), str(r.runs), str(r.models), str(r.attempts),
         str(r.solved), str(r.failed), str(r.errored), str(r.unavailable), _mean(r.mean),
         ",".join(f.flag for f in r.flags))
        for r in rows
    ]  # fmt: skip
    twins = tell_twins_apart(c[1] for c in cells)  # task ids that read the same
    cells = [(c[0], twins.get(c[1], c[1]), *c[2:]) for c in cells] if twins else cells
    widths = [max([len(h)] + [cell_width(c[i]) for c in cells]) for i, h in enumerate(head)]
    lines = ["  ".join(pad(h, w) for h, w in zip(head, widths, strict=True)).rstrip()]
    for row, line in zip(rows, cells, strict=True):
        lines.append("  ".join(pad(c, w) for c, w in zip(line, widths, strict=True)).rstrip())
        lines += [f"    {f.flag}: {shown(f.reason)}" for f in row.flags]
    flagged = sum(1 for r in rows if r.flags)
    lines.append(f"{plural(len(rows), 'task')}, {flagged} flagged")
    return "\n".join(lines) + "\n"


# -- the screen ---------------------------------------------------------------------------

MARKS = {"solved": "✓", "mixed": "◐", "failed": "✗", "errored": "!", "none": "·"}


def mark_of(outcome: TaskOutcome) -> str:
    """One run's mark for the task: ! an attempt ended in error (whatever the others did),
    else ✓ every scored attempt solved it, ◐ some did, ✗ none did, · nothing scored."""
    if outcome.errored:
        return MARKS["errored"]
    if outcome.solved:
        return MARKS["solved"] if not outcome.failed else MARKS["mixed"]
    if outcome.failed:
        return MARKS["failed"]
    return MARKS["none"]


def filter_rows(rows: Sequence[ItemRow], text: str) -> list[ItemRow]:
    """The rows every word of ``text`` is found in (task id, benchmark or a flag's name),
    case-insensitively; ``flagged`` keeps the flagged rows."""
    words = text.casefold().split()
    kept = []
    for row in rows:
        hay = " ".join([row.task_id, row.benchmark, *(f.flag for f in row.flags)]).casefold()
        if row.flags:
            hay += " flagged"
        if all(word in hay for word in words):
            kept.append(row)
    return kept
