"""Every count on the issues screen counts distinct attempts / tasks (issue 37 item 7).

Hypothesis generates runs whose attempts carry any number of issues (the same code twice,
several codes, none) and checks each count against the attempts themselves, not against
the attribution code.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.engine.model import Attempt, Issue, TaskRecord
from inspector.views.attribution import issue_table, issue_totals

from .helpers import rescore

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

ISSUES = st.builds(
    Issue,
    st.sampled_from(("fatal", "error", "warning")),
    st.sampled_from(("run", "evaluate")),
    st.sampled_from(("model_failed", "evaluate_failed")),
    st.just("m"),
)


@st.composite
def runs(draw: st.DrawFn) -> list[TaskRecord]:
    k = draw(st.integers(1, 3))
    tasks = []
    for n in range(draw(st.integers(1, 6))):
        indices = draw(st.sets(st.integers(1, k), max_size=k))
        attempts = {
            i: Attempt(
                index=i,
                status="completed",
                metrics=draw(st.sampled_from(({}, {"correct": True}, {"correct": False}))),
                issues=tuple(draw(st.lists(ISSUES, max_size=3))),
            )
            for i in sorted(indices)
        }
        tasks.append(TaskRecord(f"t{n}", None, k, "avg", attempts, {}))
    return tasks


@given(runs())
@SETTINGS
def test_issue_counts_equal_distinct_attempts(tasks: list[TaskRecord]) -> None:
    k = tasks[0].plan_k
    rec = rescore(tasks, k=k)
    rows = issue_table(rec)
    carrying = {(t.task_id, i) for t in tasks for i, a in t.attempts.items() if a.issues}
    assert issue_totals(rows) == (len(carrying), len({t for t, _ in carrying}))
    for row in rows:
        key = (row.severity, row.phase, row.code)
        expected = {
            (t.task_id, i)
            for t in tasks
            for i, a in t.attempts.items()
            if key in {(x.severity, x.phase, x.code) for x in a.issues}
        }
        assert len(row.attempts) == len(expected) and set(row.attempts) == expected
        assert len(row.task_ids) == len({t for t, _ in expected})
        for ids in row.pushed.values():
            assert len(ids) == len(set(ids)) and set(ids) <= set(row.task_ids)
