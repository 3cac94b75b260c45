"""A session is built once per open (issue 12): the plan resolved once when the run-level
files give it whole, the stored-vs-recomputed comparison made only when asked, a derived
plan a new session, never a change to the old one."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

import inspector.resolve as resolve_module
import inspector.session as session_module
from inspector.engine.recomputation import recompute
from inspector.engine.reduction_stream import PlannedStream
from inspector.engine.whatif import derived
from inspector.resolve import reduction_stream
from inspector.results.reader import read_run
from inspector.session import score_run
from tests.conftest import FIXTURE_RUNS


class Calls:
    """Counts the calls of one function :mod:`inspector.session` calls, wherever it is
    called from (``resolve_plan`` is called by :mod:`inspector.resolve` too)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
        self.count = 0
        real = getattr(session_module, name)

        def counted(*args: object, **kwargs: object) -> object:
            self.count += 1
            return real(*args, **kwargs)

        for module in (resolve_module, session_module):
            monkeypatch.setattr(module, name, counted, raising=module is session_module)


def test_a_plan_the_run_level_files_give_is_resolved_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = read_run(FIXTURE_RUNS / "k3_avg_hierarchy")
    resolved = Calls(monkeypatch, "resolve_plan")
    stream = reduction_stream(run, None)
    assert isinstance(stream, PlannedStream) and resolved.count == 1
    stream.add(run.tasks)
    session = score_run(run, None, stream=stream)
    assert resolved.count == 1
    assert session.recomputation is not None and session.recomputation.plan == stream.plan
    assert session.metrics_json() == score_run(run).metrics_json()


def test_a_plan_that_needs_the_tasks_is_resolved_when_they_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k3_avg_hierarchy", run_dir)
    info = json.loads((run_dir / "run_info.json").read_text("utf-8"))
    del info["request"]["execution"]["attempts"]  # k and strategy: from the tasks' attempt_plan
    (run_dir / "run_info.json").write_text(json.dumps(info), "utf-8")
    run = read_run(run_dir)
    resolved = Calls(monkeypatch, "resolve_plan")
    stream = reduction_stream(run, None)
    assert stream is not None and not isinstance(stream, PlannedStream)
    session = score_run(run, None, stream=stream)
    assert resolved.count == 2
    assert session.recomputation is not None
    assert (session.recomputation.plan.k, session.recomputation.plan.strategy) == (3, "avg")


def test_the_stored_report_is_compared_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    compared = Calls(monkeypatch, "metrics_differences")
    run = read_run(FIXTURE_RUNS / "k3_avg_hierarchy")
    session = score_run(run)
    assert compared.count == 0
    assert session.differences == [] and compared.count == 1
    assert session.differences == [] and compared.count == 1  # worked out once


def test_a_stored_report_that_disagrees_is_found(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run_dir)
    stored = json.loads((run_dir / "metrics.json").read_text("utf-8"))
    stored["series"][0]["counts"]["total"] += 1
    (run_dir / "metrics.json").write_text(json.dumps(stored), "utf-8")
    wheres = [d.where for d in score_run(read_run(run_dir)).differences]
    assert any("counts" in where and "total" in where for where in wheres), wheres


def test_a_derived_plan_is_a_new_session(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k3_avg_hierarchy", run_dir)
    stored = json.loads((run_dir / "metrics.json").read_text("utf-8"))
    stored["series"][0]["counts"]["total"] += 1
    (run_dir / "metrics.json").write_text(json.dumps(stored), "utf-8")
    session = score_run(read_run(run_dir))
    assert session.recomputation is not None and session.differences
    with pytest.raises(dataclasses.FrozenInstanceError):
        session.recomputation = None  # type: ignore[misc]
    rec, _ = derived(session.recomputation, k=1, strategy="avg")
    k1 = session.with_plan(rec)
    assert k1.recomputation is rec and k1.run is session.run
    assert k1.differences == []  # another plan's report is not the stored one's to compare
    assert session.recomputation.plan.k == 3 and session.differences
    # A session built around a derived recomputation never compares it with the stored file.
    assert session_module.Session(session.run, rec).differences == []
    assert recompute(session.run.tasks, session.recomputation.plan).report == (
        session.recomputation.report
    )
