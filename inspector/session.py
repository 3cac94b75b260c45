"""A run as the inspector sees it: read, its plan resolved, recomputed, compared with what
is stored.

Reading is done by :mod:`inspector.results` (fast, through :mod:`inspector.loading`, the
one door that opens runs), scoring by :mod:`inspector.engine`; this module only wires
them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from inspector.engine.errors import EngineError, ObservationError
from inspector.engine.plan import Plan
from inspector.engine.recomputation import Recomputation, recompute
from inspector.engine.reduction import ReductionStream
from inspector.engine.report import dumps_metrics_json
from inspector.overrides import Overrides
from inspector.resolve import resolve_plan
from inspector.results.problems import LoadProblem
from inspector.results.reader import Run
from inspector.views.differences import Difference, compare_reports

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


@dataclass
class Session:
    """A run as the inspector sees it."""

    run: Run
    recomputation: Recomputation | None = None
    # Why the run could not be recomputed (AgentCompass would refuse it too), one line.
    refusal: str | None = None
    refusal_path: str = ""
    differences: list[Difference] = field(default_factory=list)

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
        assert self.recomputation is not None
        from inspector.engine.render import markdown_text, render_summary_markdown

        plan = self.recomputation.plan
        text = render_summary_markdown(plan.model_id, plan.benchmark_id, self.recomputation.report)
        if not plan.derived:
            return text
        title, rest = text.split("\n", 1)
        heading = f"## Derived plan: {markdown_text(plan.derived)}\n\n{DERIVED_NOTE}"
        return f"{title}\n\n{heading}\n{rest}"


def reduction_stream(run: Run, overrides: Overrides | None) -> ReductionStream | None:
    """A reduction stream for the plan the run-level files give, if they give one without
    the tasks (the usual case; otherwise the tasks are reduced after reading)."""
    if run.blocking_problems:
        return None
    try:
        plan = resolve_plan(run.run_info, run.params, run.stored_metrics, (), overrides)
    except (EngineError, KeyError, TypeError, ValueError):
        return None
    return ReductionStream(plan.contract, plan.k, plan.strategy)


def score_run(
    run: Run, overrides: Overrides | None = None, *, stream: ReductionStream | None = None
) -> Session:
    """Resolve the plan and recompute (``stream``: reductions made while reading)."""
    session = Session(run=run)
    blocking = run.blocking_problems
    if blocking:
        session.refusal = blocking[0].message
        session.refusal_path = blocking[0].path
        return session
    try:
        plan = resolve_plan(run.run_info, run.params, run.stored_metrics, run.tasks, overrides)
        session.recomputation = recompute(
            run.tasks, plan, stored_metrics=run.stored_metrics, stream=stream
        )
    except ObservationError as exc:
        session.refusal = f"{exc.task_id + ': ' if exc.task_id else ''}{exc}"
        session.refusal_path = exc.source or "details"
    except (EngineError, KeyError, TypeError, ValueError) as exc:
        session.refusal = str(exc) or type(exc).__name__
        session.refusal_path = "run_info.json"
    if (
        session.recomputation is not None
        and run.stored_metrics is not None
        and overrides in (None, Overrides())
    ):
        session.differences = compare_reports(
            run.stored_metrics, json.loads(session.metrics_json())
        )
    return session
