"""What ``inspector check`` found for one run: :class:`RunCheck` and its recomputed
:class:`Headline`. Plain data, shared by the command line, the runs screen and
the leaderboard. Pure: no textual, no rich, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.engine.vocabulary import COUNTS, plural
from inspector.views.differences import SAME_CONTENT, same_content
from inspector.views.visible import visible

OK, DIFFERS, UNUSABLE = "ok", "differs", "unusable"
UNSTORED = "unstored"
"""Not a status ``check`` prints (the run is ``unusable`` there: nothing to check against)
but a state the runs screen and the leaderboard show: recomputed, with no readable stored
metrics.json."""
NO_STORED_REPORT = "no stored report"
EXIT_OK, EXIT_DIFFERS, EXIT_UNUSABLE = 0, 1, 2


@dataclass(frozen=True)
class Headline:
    """The headline series of a report: its value and counts."""

    series_id: str
    value: float | None
    """``value``, or ``reference_value`` when the evaluation failed (``is_reference``)."""
    is_reference: bool
    counts: tuple[int, ...]
    """In the order of :data:`COUNTS`."""
    interval: tuple[float, float] | None = None
    """The headline's interval, once the statistics exist; None until then."""

    def count(self, name: str) -> int:
        return self.counts[COUNTS.index(name)]

    def as_json(self) -> dict[str, Any]:
        return {
            "series_id": self.series_id,
            "value": self.value,
            "is_reference": self.is_reference,
            "counts": dict(zip(COUNTS, self.counts, strict=True)),
            "interval": list(self.interval) if self.interval is not None else None,
        }


def headline_of(metrics: Any) -> Headline | None:
    """The headline series of a metrics.json document (None when it has none)."""
    series = metrics.get("series") if isinstance(metrics, dict) else None
    for item in series if isinstance(series, list) else []:
        if isinstance(item, dict) and item.get("role") == "headline":
            value, reference = item.get("value"), item.get("reference_value")
            uses_reference = not _is_number(value) and _is_number(reference)
            raw = item.get("counts")
            counts: dict[str, Any] = raw if isinstance(raw, dict) else {}
            return Headline(
                series_id=str(item.get("series_id")),
                value=reference if uses_reference else value if _is_number(value) else None,
                is_reference=uses_reference,
                counts=tuple(n if type(n := counts.get(name)) is int else 0 for name in COUNTS),
            )
    return None


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)


@dataclass(frozen=True)
class RunCheck:
    """What ``check`` found for one run (``run``: its path under the root, or as given)."""

    run: str
    status: str
    differences: tuple[tuple[str, Any, Any], ...] = ()
    """``(where, stored, recomputed)`` for every difference, in report order."""
    problem: str | None = None
    """Why the run is unusable: the file and the reason, one line."""
    tasks: int | None = None
    warnings: tuple[str, ...] = field(default=())
    """Load warnings (file: message) that did not stop the check."""
    headline: Headline | None = None
    """The recomputed headline series (None when the run is unusable)."""

    @property
    def state(self) -> str:
        """:attr:`status`, or :data:`UNSTORED` for a run recomputed (it has a headline)
        without a readable stored metrics.json to check it against."""
        return UNSTORED if self.status == UNUSABLE and self.headline is not None else self.status

    @property
    def same_content(self) -> bool | None:
        """Whether the stored metrics.json has the recomputation's content: equal, or
        different in its bytes alone (:data:`~inspector.views.differences.SAME_CONTENT`);
        None for an unusable run."""
        if self.status == UNUSABLE:
            return None
        return same_content([where for where, _, _ in self.differences])

    def as_json(self) -> dict[str, Any]:
        """The run's object in ``check --format json`` (``same_content`` last: derived
        from the differences)."""
        return {
            "run": self.run,
            "status": self.status,
            "differences": [
                {"where": where, "stored": stored, "recomputed": recomputed}
                for where, stored, recomputed in self.differences
            ],
            "problem": self.problem,
            "tasks": self.tasks,
            "warnings": list(self.warnings),
            "headline": self.headline.as_json() if self.headline is not None else None,
            "same_content": self.same_content,
        }

    def line(self) -> str:
        """``run: status`` and the first difference or the problem, for a terminal."""
        if self.status == OK:
            detail = f" ({'?' if self.tasks is None else plural(self.tasks, 'task')})"
        elif self.status == DIFFERS:
            where, stored, recomputed = self.differences[0]
            more = len(self.differences) - 1
            detail = f": {where}: stored {stored!r}, recomputed {recomputed!r}"
            detail += f" (and {more} more)" if more else ""
            detail += f" ({SAME_CONTENT})" if self.same_content else ""
        else:
            detail = f": {self.problem}"
        return visible(f"{self.run}: {self.status}{detail}", one_line=True)


SINGLE_RUN_KEYS = ("path", "status", "tasks", "differences", "problem")
"""``check RUN --format json``'s keys, in their order (scripts read them: kept as they were
before ``check ROOT`` existed)."""
SINGLE_RUN_EQUAL = "equal"
"""``check RUN --format json``'s status for a match (scripts match on it, so it stays); a
run's line and object in ``check ROOT`` say ``ok``. differs / unusable are the same."""


def single_run_json(check: RunCheck) -> dict[str, Any]:
    """``check RUN --format json``: its own keys first (``path``: the run as given), then
    those of a run's object in ``check ROOT --format json`` it lacked. The status words are
    ``equal`` / ``differs`` / ``unusable`` (:data:`SINGLE_RUN_EQUAL`)."""
    whole = check.as_json()
    data = {"path": check.run}
    data.update((key, whole[key]) for key in SINGLE_RUN_KEYS[1:])
    if check.status == OK:
        data["status"] = SINGLE_RUN_EQUAL
    data.update((key, value) for key, value in whole.items() if key not in data)
    return data


def exit_code(checks: Sequence[RunCheck]) -> int:
    statuses = {check.status for check in checks}
    if UNUSABLE in statuses:
        return EXIT_UNUSABLE
    return EXIT_DIFFERS if DIFFERS in statuses else EXIT_OK


def summary_line(checks: Sequence[RunCheck]) -> str:
    """``N runs: a ok, b differ, c unusable`` and which runs are not ok."""
    counts = {
        status: [c.run for c in checks if c.status == status] for status in (OK, DIFFERS, UNUSABLE)
    }
    line = (
        f"{plural(len(checks), 'run')}: {len(counts[OK])} ok, {len(counts[DIFFERS])} differs, "
        f"{len(counts[UNUSABLE])} unusable"
    )
    for status, label in ((DIFFERS, "differs"), (UNUSABLE, "unusable")):
        if counts[status]:
            line += f"; {label}: " + ", ".join(counts[status])
    return visible(line, one_line=True)
