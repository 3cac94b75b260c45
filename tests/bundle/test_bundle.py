"""``inspector bundle``: the page holds the numbers the other commands print (no second
aggregation), keeps result text inert, stays under its size limit saying what it cut, and
is never written inside the results."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from inspector.cli.bundle import script_json
from inspector.cli.main import main
from tests.bundle.hostile import CATEGORY, MESSAGE, TASK_ID, VERIFIER, hostile_run
from tests.conftest import CONFORMANCE, FIXTURE_RUNS

DATA = re.compile(r'<script type="application/json" id="bundle-data">(.*?)</script>', re.S)
RUNS = sorted(p.name for p in CONFORMANCE.iterdir() if (p / "run_info.json").is_file())


def embedded(page: Path) -> dict[str, Any]:
    """The JSON the page embeds (exactly one data element, and it parses)."""
    text = page.read_text(encoding="utf-8")
    (found,) = DATA.findall(text)
    return json.loads(found)  # type: ignore[no-any-return]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def root_bundle(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    page = tmp_path_factory.mktemp("bundle") / "conformance.html"
    assert main(["bundle", str(CONFORMANCE), "-o", str(page)]) == 0
    return embedded(page)


def test_the_root_bundle_has_every_run(root_bundle: dict[str, Any]) -> None:
    assert [run["run"] for run in root_bundle["runs"]] == RUNS
    assert root_bundle["root"] is True


@pytest.mark.parametrize("name", RUNS)
def test_each_run_holds_what_report_stats_and_tasks_print(
    name: str, root_bundle: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    run = next(r for r in root_bundle["runs"] if r["run"] == name)
    path = str(CONFORMANCE / name)
    code, out, _ = run_cli(capsys, "report", path, "--json")
    assert code == 0 and run["report"] == json.loads(out)
    code, out, _ = run_cli(capsys, "stats", path, "--format", "json")
    stats = json.loads(out)
    del stats["flaky"]  # a list as long as the run that the page does not show
    assert code == 0 and run["stats"] == stats
    code, out, _ = run_cli(capsys, "tasks", path, "--series", "all", "--format", "jsonl")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [row for series in run["tasks"].values() for row in series] == rows
    for series_id, bars in run["distribution"].items():  # few distinct values: one bar each
        # the evaluated task values (none for a series scored by a corpus formula)
        mine = [r for r in rows if r["series_id"] == series_id and r["state"] == "evaluated"]
        values = Counter(r["value"] for r in mine if r["value"] is not None)
        if len(values) <= 11:
            assert bars == [[f"{v:.4g}", n] for v, n in sorted(values.items())]
    assert run["check"]["state"] == "ok"  # `check` says ok on every conformance run


def test_the_leaderboard_is_leaderboard_json_with_each_cells_interval(
    root_bundle: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "leaderboard", str(CONFORMANCE), "--format", "json")
    assert code == 0
    cells = root_bundle["leaderboard"]
    assert [{k: v for k, v in c.items() if k not in ("text", "interval")} for c in cells] == (
        json.loads(out)
    )
    for cell in cells:
        code, out, _ = run_cli(capsys, "stats", str(CONFORMANCE / cell["run"]), "--format", "json")
        (series,) = [s for s in json.loads(out)["series"] if s["series_id"] == cell["series_id"]]
        expected = None if series["ci_low"] is None else [series["ci_low"], series["ci_high"]]
        if cell["interval"] != [None, None]:
            assert cell["interval"] == expected
        assert cell["text"].startswith(f"{cell['value']:.4f}") or cell["value"] is None


def test_gate_and_items_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.html"
    code, _, _ = run_cli(capsys, "bundle", str(CONFORMANCE), "-o", str(page))
    assert code == 0 and (embedded(page)["gate"], embedded(page)["items"]) == (None, None)
    code, _, _ = run_cli(capsys, "bundle", str(CONFORMANCE), "-o", str(page), "--gate", "--items")
    assert code == 0
    data = embedded(page)
    _, out, _ = run_cli(capsys, "gate", str(CONFORMANCE), "--format", "json")
    assert data["gate"] == json.loads(out)
    _, out, err = run_cli(capsys, "items", str(CONFORMANCE), "--format", "json")
    said = [line.removeprefix("inspector: left out ").split(": ", 1) for line in err.splitlines()]
    skipped = [{"run": run, "reason": reason} for run, reason in said]
    assert len(skipped) > 1 and data["items"] == {"rows": json.loads(out), "skipped": skipped}


# -- result text stays text -----------------------------------------------------------------


def test_script_json_cannot_end_its_element_nor_start_markup() -> None:
    value = {"</script>": "<!-- <img src=x onerror=alert(1)> & \u2028\u2029 \ud800"}
    text = script_json(value)
    assert not set(text) & set("<>&\u2028\u2029") and text.isascii()
    assert json.loads(text) == value


def test_markup_in_a_task_id_a_category_a_message_is_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.html"
    code, _, err = run_cli(capsys, "bundle", str(hostile_run(tmp_path)), "-o", str(page))
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    for text in (TASK_ID, CATEGORY, MESSAGE, VERIFIER, "<img", "<!--", "<b>", "\u2028"):
        assert text not in html
    assert html.count("</script>") == 2  # the data's and the script's own
    (run,) = embedded(page)["runs"]
    (row,) = [t for t in run["tasks"]["correct.native@1"] if t["task_id"] == TASK_ID]
    assert row["category"] == CATEGORY
    (attempt,) = run["attempts"][TASK_ID]
    assert attempt["issues"][0]["message"] == MESSAGE
    assert attempt["verifier"] == {"text": VERIFIER, "left_out": 0, "size": len(VERIFIER)}
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert policy and "default-src 'none'" in policy[1] and "unsafe-inline" not in policy[1]


# -- size -----------------------------------------------------------------------------------


def test_trajectories_are_cut_to_the_stated_size(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    run = CONFORMANCE / "e2e_k3_pass_hierarchy"
    assert main(["bundle", str(run), "-o", str(page), "--trajectory-chars", "100"]) == 0
    (data,) = embedded(page)["runs"]
    kept = [a["trajectory"] for shown in data["attempts"].values() for a in shown]
    kept = [t for t in kept if t is not None]  # an attempt that recorded no trajectory
    assert len(kept) > 10
    for trajectory in kept:
        assert len(trajectory["text"]) == min(100, trajectory["size"])
        assert trajectory["left_out"] == trajectory["size"] - len(trajectory["text"])
    assert any(t["left_out"] > 0 for t in kept)
    assert "trajectory cut to 100 characters" in embedded(page)["notes"][0]


def test_over_the_limit_the_trajectories_are_cut_first_and_the_page_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = str(CONFORMANCE / "e2e_k3_pass_hierarchy")
    small, whole = tmp_path / "small.html", tmp_path / "whole.html"
    assert main(["bundle", run, "-o", str(small), "--trajectory-chars", "0"]) == 0
    assert main(["bundle", run, "-o", str(whole), "--trajectory-chars", "5000"]) == 0
    limit = (small.stat().st_size + 2000) / 1024**2  # room for less than every trajectory
    assert whole.stat().st_size > small.stat().st_size + 2000
    page = tmp_path / "page.html"
    code, out, _ = run_cli(
        capsys, "bundle", run, "-o", str(page), "--trajectory-chars", "5000", "--max-mb", str(limit)
    )
    assert code == 0
    assert page.stat().st_size <= limit * 1024**2
    data = embedded(page)
    assert "cut shorter than asked (5000 / 1000)" in data["notes"][1]
    assert "cut shorter than asked" in out
    kept = [a["trajectory"] for shown in data["runs"][0]["attempts"].values() for a in shown]
    kept = [t for t in kept if t is not None]
    assert all(len(t["text"]) < 5000 for t in kept) and any(t["left_out"] for t in kept)


def test_a_limit_nothing_fits_in_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.html"
    code, out, err = run_cli(
        capsys, "bundle", str(CONFORMANCE), "-o", str(page), "--max-mb", "0.01"
    )
    assert (code, out, err.count("\n")) == (2, "", 1)
    assert "over --max-mb 0.01" in err and not page.exists()


# -- where it is written --------------------------------------------------------------------


def test_never_inside_the_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "root" / "run"
    run.parent.mkdir()
    import shutil

    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    before = sorted(p for p in (tmp_path / "root").rglob("*"))
    (tmp_path / "link").symlink_to(run / "details")
    for output in (
        run / "page.html",
        tmp_path / "root" / "page.html",
        tmp_path / "link" / "p.html",
    ):
        code, out, err = run_cli(capsys, "bundle", str(tmp_path / "root"), "-o", str(output))
        assert (code, out, err.count("\n")) == (2, "", 1), err
        assert "the inspector never writes there" in err
    assert sorted(p for p in (tmp_path / "root").rglob("*")) == before


def test_written_whole_through_a_temporary_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "out" / "page.html"
    page.parent.mkdir()
    page.write_text("the old page", encoding="utf-8")
    replaced: list[tuple[str, str]] = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (replaced.append((a, b)), real(a, b)))
    code, _, _ = run_cli(capsys, "bundle", str(FIXTURE_RUNS / "k1_micro"), "-o", str(page))
    assert code == 0
    ((temporary, _target),) = [(a, b) for a, b in replaced if os.fspath(b) == str(page.resolve())]
    assert Path(temporary).parent == page.parent.resolve()
    assert os.listdir(page.parent) == ["page.html"]
    assert embedded(page)["runs"][0]["run"] == "k1_micro"
    code, _, err = run_cli(
        capsys, "bundle", str(FIXTURE_RUNS / "k1_micro"), "-o", str(tmp_path / "no" / "p.html")
    )
    assert code == 2
    assert (
        err
        == f"inspector: {tmp_path / 'no' / 'p.html'}: the folder {tmp_path / 'no'} does not exist\n"
    )


def test_a_what_if_plan_is_the_report_of_that_plan_and_not_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, page = str(CONFORMANCE / "e2e_k3_pass_hierarchy"), tmp_path / "page.html"
    code, _, _ = run_cli(capsys, "bundle", run, "-o", str(page), "--k", "1")
    assert code == 0
    (data,) = embedded(page)["runs"]
    code, out, _ = run_cli(capsys, "report", run, "--k", "1", "--json")
    assert data["report"] == json.loads(out)
    assert data["check"]["state"] == "derived"  # a stored pass@3 file says nothing of k=1
