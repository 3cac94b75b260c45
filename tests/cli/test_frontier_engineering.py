"""frontier_engineering's medal and rank tables are recomputed, never copied (issue 39).

The runs are AgentCompass's own (``fixtures/conformance/syn_frontier_engineering_*``: written
in its layout, ``metrics.json`` / ``summary.md`` from its ``summary`` path);
``fixtures/frontier_engineering/k3_avg_scored_at_k1.*`` is what AgentCompass writes for the
k=3 run's attempt 1 scored at k=1. The table paths AgentCompass writes into ``extra`` name its
own installation; the fixtures' were made neutral (``/opt/agentcompass/...``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from inspector.cli.main import main
from tests.conftest import CONFORMANCE, ROOT

K1 = CONFORMANCE / "syn_frontier_engineering_k1"
K3 = CONFORMANCE / "syn_frontier_engineering_k3_avg"
AT_K1 = ROOT / "fixtures" / "frontier_engineering"
# What the inspector writes for the tables' paths when there is no stored metrics.json (docs/commands.md).
DEFAULT_PATHS = {
    "podium_csv": "agentcompass/benchmarks/frontier_engineering/data/medal_podium.csv",
    "baseline_csv": "agentcompass/benchmarks/frontier_engineering/data/rank_baseline.csv",
}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def copy(run: Path, tmp_path: Path) -> Path:
    target = tmp_path / run.name
    shutil.copytree(run, target)
    return target


def edit_metrics(run: Path, change: Any) -> None:
    path = run / "metrics.json"
    stored = json.loads(path.read_text(encoding="utf-8"))
    change(stored)
    path.write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def with_default_paths(document: dict[str, Any]) -> dict[str, Any]:
    for table in ("frontier_engineering_medal", "frontier_engineering_rank"):
        for entry in document["extra"][table].values():
            for key, value in DEFAULT_PATHS.items():
                if key in entry:
                    entry[key] = value
    return document


def series(document: dict[str, Any], series_id: str) -> dict[str, Any]:
    return next(s for s in document["series"] if s["series_id"] == series_id)


def test_the_fixtures_have_medal_series_and_medals() -> None:
    """The cases exercise what they are for: medal series present, medals won."""
    for run, reducer, sid in (
        (K1, "native", "medal_score.native@1"),
        (K3, "avg", "medal_score.avg@3"),
    ):
        stored = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
        assert series(stored, sid)["value"] > 0
        assert sum(stored["extra"]["frontier_engineering_medal"][reducer]["counts"].values()) >= 3
        assert stored["extra"]["frontier_engineering_rank"][reducer]["status"] == "partial"


def test_a_tampered_medal_value_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy(K1, tmp_path)
    edit_metrics(run, lambda m: series(m, "medal_score.native@1").__setitem__("value", 0.99))
    code, out, _ = run_cli(capsys, "check", str(run))
    assert code == 1, out
    assert "medal_score.native@1 value: stored 0.99, recomputed 0.3" in out
    code, out, _ = run_cli(capsys, "report", str(run), "--json")
    assert code == 0
    assert series(json.loads(out), "medal_score.native@1")["value"] == 0.3
    assert out == (K1 / "metrics.json").read_text(encoding="utf-8")


def test_a_tampered_medal_count_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy(K1, tmp_path)

    def five_silver(m: dict[str, Any]) -> None:
        counts = m["extra"]["frontier_engineering_medal"]["native"]["counts"]
        assert counts["silver"] == 0
        counts["silver"] = 5

    edit_metrics(run, five_silver)
    code, out, _ = run_cli(capsys, "check", str(run))
    assert code == 1, out
    assert "frontier_engineering_medal.native.counts.silver: stored 5, recomputed 0" in out


@pytest.mark.parametrize("cached", [False, True], ids=["check", "check --cached"])
def test_a_medal_value_tampered_after_a_cached_read_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cached: bool
) -> None:
    run = copy(K1, tmp_path)
    assert run_cli(capsys, "check", str(run))[0] == 0  # read, scored and cached as it was
    edit_metrics(run, lambda m: series(m, "medal_score.native@1").__setitem__("value", 0.99))
    code, out, _ = run_cli(capsys, "check", str(run), *(["--cached"] if cached else []))
    assert code == 1, out
    assert "medal_score.native@1 value: stored 0.99, recomputed 0.3" in out


def test_a_tampered_rank_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = copy(K3, tmp_path)
    edit_metrics(
        run,
        lambda m: m["extra"]["frontier_engineering_rank"]["avg"]["candidate"].__setitem__(
            "avg_task_rank", 1.0
        ),
    )
    code, out, _ = run_cli(capsys, "check", str(run))
    assert code == 1, out
    assert "frontier_engineering_rank.avg.candidate.avg_task_rank: stored 1.0" in out


@pytest.mark.parametrize("fixture", [K1, K3], ids=lambda p: p.name)
def test_report_without_metrics_json_is_agentcompass_own(
    fixture: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy(fixture, tmp_path)
    (run / "metrics.json").unlink()
    (run / "summary.md").unlink()
    code, out, err = run_cli(capsys, "report", str(run), "--json")
    assert code == 0, err
    expected = with_default_paths(json.loads((fixture / "metrics.json").read_text("utf-8")))
    assert json.loads(out) == expected
    assert out == json.dumps(expected, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    code, out, _ = run_cli(capsys, "report", str(run), "--markdown")
    assert code == 0
    assert out == (fixture / "summary.md").read_text(encoding="utf-8")


def test_a_k1_what_if_computes_its_own_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--k 1` of the k=3 run equals AgentCompass scoring attempt 1 at k=1 (its own tables,
    not the avg@3 ones), apart from the derived-plan label."""
    run = copy(K3, tmp_path)
    code, out, err = run_cli(capsys, "report", str(run), "--k", "1", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["extra"].pop("inspector_derived_plan")["plan"] == "k=1"
    expected = json.loads((AT_K1 / "k3_avg_scored_at_k1.metrics.json").read_text(encoding="utf-8"))
    assert report == expected
    assert "avg" not in report["extra"]["frontier_engineering_medal"]
    code, out, _ = run_cli(capsys, "report", str(run), "--k", "1", "--markdown")
    assert code == 0
    title = out.partition("\n")[0]
    expected_md = (AT_K1 / "k3_avg_scored_at_k1.summary.md").read_text(encoding="utf-8")
    assert expected_md.startswith(title + "\n")
    assert out.endswith(expected_md.split("\n## Metrics\n", 1)[1])


def test_without_its_tables_the_run_is_refused_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing is carried over instead: a broken installation refuses the run (exit 2),
    naming the missing table; check never says ok over it."""
    from inspector.results import reference

    run = copy(K1, tmp_path)
    monkeypatch.setattr(reference, "FOLDER", "data/nowhere")
    reference.frontier_tables.cache_clear()
    try:
        for command in ("report", "check"):
            code, out, err = run_cli(capsys, command, str(run))
            assert code == 2, (command, out, err)
            assert "inspector/data/nowhere/medal_podium.csv" in out + err
            assert not out.startswith("ok")
    finally:
        monkeypatch.undo()
        reference.frontier_tables.cache_clear()
