"""A run as the inspector sees it: read, its plan resolved (once), recomputed; compared with
what is stored when someone asks.

Reading is done by :mod:`inspector.results` (fast, through :mod:`inspector.loading`, the
one door that opens runs), scoring by :mod:`inspector.engine`; this module only wires
them. A :class:`Session` is frozen: a derived plan is a new session made from this one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from inspector.engine.errors import EngineError, ObservationError
from inspector.engine.plan import Plan
from inspector.engine.recomputation import Recomputation, recompute
from inspector.engine.reduction_stream import PlannedStream, ReductionStream
from inspector.engine.report import dumps_metrics_json
from inspector.overrides import Overrides
from inspector.resolve import resolve_plan
from inspector.results.problems import LoadProblem
from inspector.results.reader import Run
from inspector.views.differences import Difference, compare_reports, metrics_differences

DERIVED_KEY = "inspector_derived_plan"
DERIVED_NOTE = (
    "A what-if plan the inspector derived from this run's attempts: "
    "AgentCompass did not score the run this way."
)


def derived_label(plan: Plan) -> dict[str, Any]:
    """What a derived plan's outputs carry to say so (``extra.inspector_derived_plan``)."""
    return {
        "derived": plan.derived,
        "plan": plan.label,
        "note": DERIVED_NOTE,
        "contract": plan.sources.get("contract", ""),
    }


@dataclass(frozen=True)
class Session:
    """A run as the inspector sees it.

    Attributes:
        run: What the reader found.
        recomputation: The report and every task's reduction (None: refused).
        refusal: Why the run could not be recomputed (AgentCompass would refuse it too).
        refusal_path: The file the refusal is about, under the run.
        own_plan: Scored with the run's own plan (no override): only then is the stored
            metrics.json comparable with the recomputation (:attr:`differences`).
    """

    run: Run
    recomputation: Recomputation | None = None
    refusal: str | None = None
    refusal_path: str = ""
    own_plan: bool = True

    @cached_property
    def differences(self) -> list[Difference]:
        """Where the stored metrics.json and the recomputation disagree, worked out the first
        time someone asks (the overview's banner, ``check``); none for another plan."""
        rec = self.recomputation
        if rec is None or rec.plan.derived or self.run.stored_metrics is None or not self.own_plan:
            return []
        text, stored_text = self.metrics_json(), self.run.stored_metrics_text
        if stored_text is None:  # pragma: no cover - read with its stored_metrics
            return compare_reports(self.run.stored_metrics, json.loads(text))
        return metrics_differences(stored_text, self.run.stored_metrics, text, json.loads(text))

    def with_plan(self, recomputation: Recomputation) -> Session:
        """The same run under another (derived) plan's recomputation."""
        return replace(self, recomputation=recomputation, own_plan=False)

    @property
    def problems(self) -> list[LoadProblem]:
        return self.run.problems

    @property
    def benchmark_id(self) -> str:
        return self.recomputation.plan.benchmark_id if self.recomputation else ""

    def metrics_json(self) -> str:
        """The report as metrics.json; a derived plan carries its label in ``extra``.

        The label goes in the report's ``extra`` (under :data:`DERIVED_KEY`) because that is
        the one free-form mapping of AgentCompass's ``MetricReport``: the document still
        loads as a ``MetricReport``, and a reader that looks at the report cannot miss it.
        """
        assert self.recomputation is not None
        report = self.recomputation.report
        plan = self.recomputation.plan
        if plan.derived:
            report = replace(report, extra={**report.extra, DERIVED_KEY: derived_label(plan)})
        return dumps_metrics_json(report)

    def summary_markdown(self) -> str:
        """summary.md; a derived plan gets a ``## Derived plan`` heading under the title."""
        # Only here: tabulate and importlib.metadata, for summary.md alone.
        from inspector.engine.render import markdown_text, render_summary_markdown

        assert self.recomputation is not None
        plan = self.recomputation.plan
        text = render_summary_markdown(plan.model_id, plan.benchmark_id, self.recomputation.report)
        if not plan.derived:
            return text
        title, rest = text.split("\n", 1)
        heading = f"## Derived plan: {markdown_text(plan.derived)}\n\n{DERIVED_NOTE}"
        return f"{title}\n\n{heading}\n{rest}"


def score_run(
    run: Run, overrides: Overrides | None = None, *, stream: ReductionStream | None = None
) -> Session:
    """Resolve the plan (unless ``stream`` holds it already) and recompute (``stream``:
    reductions made while reading)."""
    own_plan = overrides in (None, Overrides())
    blocking = [problem for problem in run.problems if problem.blocking]
    if blocking:
        return Session(run, refusal=blocking[0].message, refusal_path=blocking[0].path)
    try:
        if isinstance(stream, PlannedStream) and stream.overrides == overrides:
            plan = stream.plan
        else:
            plan = resolve_plan(run.run_info, run.params, run.stored_metrics, run.tasks, overrides)
        recomputation = recompute(run.tasks, plan, stream=stream)
    except ObservationError as exc:
        refusal = f"{exc.task_id + ': ' if exc.task_id else ''}{exc}"
        return Session(run, refusal=refusal, refusal_path=exc.source or "details")
    except (EngineError, KeyError, TypeError, ValueError) as exc:
        return Session(run, refusal=str(exc) or type(exc).__name__, refusal_path="run_info.json")
    except RecursionError:  # a plan too deeply nested for the engine
        return Session(run, refusal="nested too deeply to score", refusal_path="run_info.json")
    return Session(run, recomputation, own_plan=own_plan)
