"""The README's sample of ``inspector diff`` is what the command prints on the fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def test_the_diff_sample_is_what_diff_prints(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    everyday = readme.split("\n## Every day\n", 1)[1].split("\n## ", 1)[0]
    sample = [line[4:] for line in everyday.split("**`diff`**", 1)[1].splitlines()]
    sample = [line for line in sample if line.startswith("series delta") or "can detect" in line]
    runs = ROOT / "fixtures" / "runs"
    assert main(["diff", str(runs / "compare_a"), str(runs / "compare_b")]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert len(sample) == 2
    assert all(line in printed for line in sample)
