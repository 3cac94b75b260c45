"""The checks on a task's attempts that abort AgentCompass's aggregation (spec §6.3 step 1,
§10 item 13): an attempt index outside 1..k, an unknown status, an undeclared metric or an
observation of the wrong type. A failed check raises
:class:`~inspector.engine.errors.ObservationError` naming the file it was written in.
"""

from __future__ import annotations

from inspector.engine.contract import MetricContract
from inspector.engine.errors import ObservationError
from inspector.engine.model import STATUSES, Attempt, TaskRecord


def attempt_file(task: TaskRecord, index: int) -> str:
    """The ``result.json`` of attempt ``index``: ``attempt-N/`` beside the task's ``task.json``.

    Falls back to ``task.source`` when that is not a ``task.json`` path.
    """
    folder, _, name = task.source.rpartition("/")
    if name != "task.json":
        return task.source
    return f"{folder}/attempt-{index}/result.json" if folder else f"attempt-{index}/result.json"


def validate_task(task: TaskRecord, contract: MetricContract, k: int) -> None:
    """The checks that abort AgentCompass's aggregation (spec §6.3 step 1, §10 item 13).

    A bad status or observation names the attempt's ``result.json``, where it was written.
    An attempt that passes every check by its first, cheapest test (an int index in range, a
    known status, a dict of declared metrics of exactly the right types) is not checked
    again; any other goes through the full checks, which raise the same errors in the same
    order.
    """
    for index, attempt in task.attempts.items():
        if (
            type(index) is int
            and 1 <= index <= k
            and attempt.status in STATUSES
            and contract.accepts_plainly(attempt.metrics)
        ):
            continue
        _validate_attempt(task, index, attempt, contract, k)


def _validate_attempt(
    task: TaskRecord, index: int, attempt: Attempt, contract: MetricContract, k: int
) -> None:
    """One attempt through every check of :func:`validate_task`."""
    if isinstance(index, bool) or not isinstance(index, int) or not 1 <= index <= k:
        raise ObservationError(
            f"attempt {index} is outside 1..{k}", task_id=task.task_id, source=task.source
        )
    if attempt.status not in STATUSES:
        raise ObservationError(
            f"attempt {index} has unknown status {attempt.status!r}",
            task_id=task.task_id,
            source=attempt_file(task, index),
        )
    try:
        contract.validate_observations(attempt.metrics, task_id=task.task_id)
    except ObservationError as exc:
        # The file is named only when needed: this runs for every attempt of a run.
        exc.source = attempt_file(task, index)
        raise
