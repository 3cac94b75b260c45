"""What the command line prints about a run never carries the run's control characters.

A folder name or an issue message can hold ESC sequences, bidirectional overrides or line
breaks; in warnings, errors and check output they are shown as visible stand-ins, and every
warning stays on one line. The report itself (stdout of ``report``) keeps AgentCompass's
bytes: that is data, not a message.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.views.visible import visible
from tests.conftest import FIXTURE_RUNS

HOSTILE_NAME = "evil\x1b[2J\x1b]0;pwned\x07\u202egnp.exe\nsecond-line--" + "0" * 64


def test_visible_makes_controls_visible() -> None:
    assert visible("a\x1b[31mb") == "a␛[31mb"
    assert visible("bell\x07") == "bell␇"
    assert visible("rtl\u202eoverride") == "rtl<U+202E>override"
    assert visible("zero\u200bwidth") == "zero<U+200B>width"
    assert visible("two\nlines") == "two\nlines"
    assert visible("two\nlines", one_line=True) == "two␊lines"
    assert visible("plain text, ünïcödé") == "plain text, ünïcödé"


@pytest.mark.parametrize("cache", ["0", "1"])
def test_warnings_name_hostile_folders_visibly(
    cache: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("INSPECTOR_CACHE", cache)
    run = tmp_path / "run"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
    (run / "details" / "normal" / HOSTILE_NAME).mkdir()  # no task.json: a warning names it
    for _ in range(2):  # the second time from the report cache, when it is on
        assert main(["report", str(run)]) == 0
        err = capsys.readouterr().err
        warnings = [line for line in err.splitlines() if "evil" in line]
        assert len(warnings) == 1, err
        assert "␛[2J" in warnings[0] and "<U+202E>" in warnings[0] and "␊second-line" in warnings[0]
        for raw in ("\x1b", "\x07", "\u202e"):
            assert raw not in err


def test_errors_name_hostile_paths_visibly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no\x1b[31mrun"
    assert main(["report", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err and "␛[31m" in err
