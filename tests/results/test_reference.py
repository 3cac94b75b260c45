"""The reference tables the inspector ships (frontier_engineering's; issue 39): read from the
package data, handed to the engine with the plan, their provenance kept from a stored report."""

from __future__ import annotations

import csv
import io
import os
from importlib import resources
from pathlib import Path

import pytest

from inspector.engine.errors import PlanError
from inspector.engine.reference import BASELINE_CSV, PODIUM_CSV
from inspector.loading import store
from inspector.results import reference
from inspector.results.reference import frontier_tables, reference_for
from tests.conftest import ROOT

DATA = ROOT / "inspector" / "data" / "frontier_engineering"


def test_the_tables_are_agentcompass_figures_under_a_header() -> None:
    """Each file names its source and licence; the rows parse as AgentCompass reads them."""
    for name in ("medal_podium.csv", "rank_baseline.csv", "v1_lite_tasks.txt"):
        text = (DATA / name).read_text(encoding="utf-8")
        header = [line for line in text.splitlines() if line.startswith("#")]
        assert "AgentCompass 1.0.1" in header[0] and "Apache License 2.0" in header[1], name
    assert "inspector/data/frontier_engineering/medal_podium.csv" in (ROOT / "NOTICE").read_text()
    tables = frontier_tables()
    assert len(tables.podium) == 47 and len(tables.lite_labels) == 10
    assert ("EngDesign", 27.0, 27.0, 27.0) in tables.podium
    assert len({task for task, _, _ in tables.rank_rows}) == 40
    assert "GLM-5" in tables.rank_models and "" not in tables.rank_models
    podium = (DATA / "medal_podium.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO("".join(podium.splitlines(True)[4:]))))
    assert [r["Task"] for r in rows] == [task for task, *_ in tables.podium]


def test_the_package_holds_them() -> None:
    files = resources.files("inspector").joinpath("data", "frontier_engineering")
    assert sorted(f.name for f in files.iterdir()) == [
        "medal_podium.csv",
        "rank_baseline.csv",
        "v1_lite_tasks.txt",
    ]


def test_only_frontier_engineering_gets_tables() -> None:
    assert reference_for("scicode", None) is None
    assert reference_for("frontier_engineering", None) is not None


def test_stored_paths_are_kept_and_the_default_names_agentcompass_package() -> None:
    bare = reference_for("frontier_engineering", None)
    assert bare is not None
    assert (bare.podium_csv, bare.baseline_csv) == (PODIUM_CSV, BASELINE_CSV)
    assert PODIUM_CSV == "agentcompass/benchmarks/frontier_engineering/data/medal_podium.csv"
    stored = {
        "extra": {
            "frontier_engineering_medal": {"avg": {"podium_csv": "/x/medal_podium.csv"}},
            "frontier_engineering_rank": {"avg": {"baseline_csv": "/x/rank_baseline.csv"}},
        }
    }
    kept = reference_for("frontier_engineering", stored)
    assert kept is not None
    assert (kept.podium_csv, kept.baseline_csv) == ("/x/medal_podium.csv", "/x/rank_baseline.csv")
    assert kept.podium == bare.podium  # the figures never come from the stored file
    odd = {"extra": {"frontier_engineering_medal": {"avg": {"podium_csv": 7}}}}
    assert reference_for("frontier_engineering", odd).podium_csv == PODIUM_CSV  # type: ignore[union-attr]


def test_a_missing_table_is_a_refusal_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reference, "FOLDER", "data/nowhere")
    frontier_tables.cache_clear()
    try:
        with pytest.raises(PlanError, match=r"inspector/data/nowhere/medal_podium.csv"):
            frontier_tables()
    finally:
        monkeypatch.undo()
        frontier_tables.cache_clear()
    assert frontier_tables().podium


def test_a_report_cached_with_other_tables_is_not_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every cache file's code signature covers the reference tables, not only the code."""
    package = tmp_path / "inspector"
    (package / "data" / "frontier_engineering").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    table = package / "data" / "frontier_engineering" / "medal_podium.csv"
    table.write_text("Task,Gold\n")
    import inspector

    monkeypatch.setattr(inspector, "__file__", str(package / "__init__.py"))
    signature = store.code_signature.__wrapped__
    before = signature()
    table.write_text("Task,Gold\nA,1.0\n")
    os.utime(table, ns=(1, 1))
    assert signature() != before
