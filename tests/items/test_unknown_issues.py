"""An issue the reader does not know (an ERROR issue with a phase AgentCompass does not
know) is counted and named by ``errors``, as ``check`` names it (issue 48): it was left out
without a word, where ``check`` exits 2 and ``items`` says "left out"."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.cli.main import main
from tests.conftest import FIXTURE_RUNS

MESSAGE = "WarpError: the warp core did not start"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """k1_micro with its retail error attempt's issue in an unknown phase."""
    run = tmp_path / "root" / "run"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    (result,) = (run / "details" / "error").glob(
        "taubench_retail_4b4b27df--*/attempt-1/result.json"
    )
    data = json.loads(result.read_text(encoding="utf-8"))
    assert data["issues"][0]["severity"] == "error"
    data["issues"][0].update(phase="warp_drive", message=MESSAGE)
    result.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return tmp_path / "root"


def test_errors_counts_and_names_an_issue_in_an_unknown_phase(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(root)]) == 2
    checked = capsys.readouterr().out.splitlines()[0]
    file = checked.split(": unusable: ")[1].split(": ")[0]
    assert file.startswith("run/details/error/taubench_retail_4b4b27df--")
    assert "phase 'warp_drive' is not one of" in checked

    assert main(["errors", str(root), "--format", "json"]) == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    (row,) = [r for r in rows if r["phase"] == "warp_drive"]
    assert (row["code"], row["example"], row["attempts"], row["tasks"], row["runs"]) == (
        "model_timeout", MESSAGE, 1, 1, 1,
    )  # fmt: skip
    # Named as check names it: the file under the root and what is wrong.
    (said,) = captured.err.splitlines()
    assert said.startswith(
        f"inspector: {file}: attempts.1.issues[0].phase 'warp_drive' is not one of"
    )


def test_errors_of_the_run_itself_counts_it_too(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["errors", str(root / "run")]) == 0
    captured = capsys.readouterr()
    assert f"warp_drive/model_timeout: {MESSAGE}" in captured.out
    assert "phase 'warp_drive'" in captured.err
