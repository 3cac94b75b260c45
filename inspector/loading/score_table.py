"""The score table of a run: what reopening it after a few task folders changed needs
of every other folder, kept beside its report (issue 11).

After a run is scored, the report cache keeps beside the run's report (and its snapshot of
every file) a *score table* (:func:`table_of`): what was read of the run-level files, and
for each task folder in listing order the task id it was read as, whether its task is the
one scored for that id, its category key, its load problems and, per series, the three
fields of its reduction the report is aggregated from
(:class:`~inspector.engine.aggregation.TaskOutcome`). It is plain data, checked for its
shape and types before use (:meth:`Table.from_data`): anything else is a miss.
:mod:`inspector.loading.reopen` answers from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.engine.benchmarks import OVERRIDES
from inspector.engine.strategies import resolve_attempt_strategy
from inspector.engine.vocabulary import STATES
from inspector.results.problems import LoadProblem
from inspector.results.reader import Run
from inspector.results.tasks import TaskEntry

if TYPE_CHECKING:  # pragma: no cover
    from inspector.session import Session

FORMAT = 1
_NONE = type(None)
_VALUE_TYPES = frozenset({float, int, _NONE})
_STATE_VALUES = frozenset({*STATES, None})


def entry_problems(entry: TaskEntry) -> tuple[tuple[Any, ...], ...]:
    """An entry's load problems as plain data (a table row's)."""
    return tuple((p.path, p.message, p.rule, p.blocking) for p in entry.problems)


def table_of(session: Session) -> tuple[Any, ...] | None:
    """The score table of a run just read and scored with its plan as given (no derived
    plan), or None when :func:`inspector.loading.reopen.answer` could not use one."""
    run, rec = session.run, session.recomputation
    if rec is None or session.refusal is not None or rec.plan.derived:
        return None
    plan = rec.plan
    if plan.benchmark_id in OVERRIDES:
        return None
    series = [
        sp.series_id
        for sp in resolve_attempt_strategy(plan.strategy).resolve(plan.contract, plan.k).series
    ]
    entries = run.entries
    count = sum(1 for entry in entries if entry.state != "running")
    if any(entry.state == "running" for entry in entries[:count]):
        return None  # not candidates then running/ folders, as the snapshot lists them
    ids: list[str | None] = []
    won: list[bool] = []
    cats: list[str | None] = []
    probs = []
    columns: list[tuple[list[Any], list[Any], list[Any]]] = [([], [], []) for _ in series]
    reductions = [rec.reductions[series_id] for series_id in series]
    tasks, keys, scored = rec.tasks, rec.category_keys, 0
    for entry in entries[:count]:
        record = entry.record
        ids.append(record.task_id if record is not None else None)
        probs.append(entry_problems(entry) if entry.problems else ())
        if record is not None and scored < len(tasks) and tasks[scored] is record:
            won.append(True)
            cats.append(keys[scored])
            for (values, states, errors), column in zip(columns, reductions, strict=True):
                reduction = column[scored]
                values.append(reduction.value)
                states.append(reduction.state)
                errors.append(reduction.has_error)
            scored += 1
        else:
            won.append(False)
            cats.append(None)
            for values, states, errors in columns:
                values.append(None)
                states.append(None)
                errors.append(None)
    if scored != len(tasks):
        return None
    level = _run_level(run, probs)
    if level is None:
        return None
    return (
        FORMAT,
        level,
        tuple(series),
        tuple(ids),
        tuple(won),
        tuple(cats),
        tuple(probs),
        tuple((tuple(v), tuple(s), tuple(e)) for v, s, e in columns),
    )


def _run_level(run: Run, probs: list[Any]) -> tuple[Any, ...] | None:
    """What was read of the run-level files, as plain data: a reopen whose run-level
    files are unchanged takes them from here instead of reading them (run_info.json can
    be hundreds of megabytes). None when the run's problems are not, in order, those of
    the run-level files, of the listing and of the entries."""
    if run.listing is None:
        return None
    listing = list(run.listing[2])
    tail = listing + [p for row in probs for p in row]
    tail += [p for e in run.entries if e.state == "running" for p in entry_problems(e)]
    problems = [(p.path, p.message, p.rule, p.blocking) for p in run.problems]
    level = len(problems) - len(tail)
    if level < 0 or problems[level:] != tail:
        return None
    return (
        run.run_info,
        run.params,
        run.stored_metrics,
        run.stored_metrics_text,
        run.stored_summary,
        tuple(problems[:level]),
    )


_JSON_SCALARS = (str, int, float, bool, _NONE)


def _json_like(value: Any, depth: int = 0) -> bool:
    """True when ``value`` is what parsing JSON gives (dicts with str keys, lists, str,
    numbers, booleans, None)."""
    kind = type(value)
    if kind in _JSON_SCALARS:
        return True
    if depth > 200:
        return False
    if kind is dict:
        return all(type(k) is str and _json_like(v, depth + 1) for k, v in value.items())
    if kind is list:
        return all(_json_like(v, depth + 1) for v in value)
    return False


def level_run(root: Path, data: Any) -> Run | None:
    """The run as its run-level files were read (:func:`_run_level`), or None when
    ``data`` is not of that shape."""
    try:
        run_info, params, metrics, metrics_text, summary, problems = data
    except (TypeError, ValueError):
        return None
    if not all(value is None or type(value) is dict for value in (run_info, params, metrics)):
        return None
    if not all(text is None or type(text) is str for text in (metrics_text, summary)):
        return None
    if not (_json_like(run_info) and _json_like(params) and _json_like(metrics)):
        return None
    if type(problems) is not tuple or not all(is_problem(p) for p in problems):
        return None
    run = Run(path=root, run_info=run_info, params=params, stored_metrics=metrics)
    run.stored_metrics_text, run.stored_summary = metrics_text, summary
    run.problems = [as_problem(p) for p in problems]
    return run


def is_problem(problem: Any) -> bool:
    return (
        type(problem) is tuple
        and len(problem) == 4
        and type(problem[0]) is str
        and type(problem[1]) is str
        and type(problem[2]) is str
        and type(problem[3]) is bool
    )


@dataclass
class Table:
    """A score table, its shape and types checked (:meth:`from_data`)."""

    level: tuple[Any, ...]
    series: tuple[str, ...]
    ids: list[Any]
    won: list[Any]
    cats: list[Any]
    probs: list[Any]
    columns: list[tuple[list[Any], list[Any], list[Any]]]

    @classmethod
    def from_data(cls, data: Any, count: int) -> Table | None:
        """The table in ``data`` for ``count`` task folders, or None when it is not what
        :func:`table_of` makes (a miss)."""
        try:
            version, level, series, ids, won, cats, probs, columns = data
        except (TypeError, ValueError):
            return None
        if version != FORMAT or type(series) is not tuple or type(columns) is not tuple:
            return None
        if type(level) is not tuple:
            return None
        rows = (ids, won, cats, probs)
        if any(type(row) is not tuple or len(row) != count for row in rows):
            return None
        if not (
            set(map(type, series)) <= {str}
            and set(map(type, ids)) <= {str, _NONE}
            and set(map(type, won)) <= {bool}
            and set(map(type, cats)) <= {str, _NONE}
            and set(map(type, probs)) <= {tuple}
            and len(columns) == len(series)
        ):
            return None
        for problems in probs:
            if problems and not all(is_problem(problem) for problem in problems):
                return None
        shaped = []
        for column in columns:
            if type(column) is not tuple or len(column) != 3:
                return None
            values, states, errors = column
            if any(type(part) is not tuple or len(part) != count for part in column):
                return None
            if not (
                set(map(type, values)) <= _VALUE_TYPES
                and set(states) <= _STATE_VALUES
                and set(map(type, errors)) <= {bool, _NONE}
            ):
                return None
            shaped.append((list(values), list(states), list(errors)))
        return cls(level, series, list(ids), list(won), list(cats), list(probs), shaped)

    def as_data(self) -> tuple[Any, ...]:
        return (
            FORMAT,
            self.level,
            self.series,
            tuple(self.ids),
            tuple(self.won),
            tuple(self.cats),
            tuple(self.probs),
            tuple((tuple(v), tuple(s), tuple(e)) for v, s, e in self.columns),
        )


def as_problem(data: tuple[Any, ...]) -> LoadProblem:
    return LoadProblem(*data)


def update_rows(
    table: Table,
    scored: list[int],
    fresh: dict[int, tuple[TaskEntry, Any]],
    outcomes: dict[str, list[Any]],
    keys: list[str],
) -> None:
    """The table's rows of the folders read again, as :func:`table_of` would make them."""
    for i, (entry, _) in fresh.items():
        record = entry.record
        table.ids[i] = record.task_id if record is not None else None
        table.probs[i] = entry_problems(entry) if entry.problems else ()
        table.won[i] = False
        table.cats[i] = None
        for values, states, errors in table.columns:
            values[i] = states[i] = errors[i] = None
    for j, i in enumerate(scored):
        if i not in fresh:
            continue
        table.won[i] = True
        table.cats[i] = keys[j]
        for series_id, (values, states, errors) in zip(table.series, table.columns, strict=True):
            outcome = outcomes[series_id][j]
            values[i], states[i], errors[i] = outcome.value, outcome.state, outcome.has_error
