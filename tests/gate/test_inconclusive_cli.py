"""INCONCLUSIVE end to end (issue 51 item 4): ``inspector gate --against`` on runs
AgentCompass wrote, through every output: the text lines, JSON's ``verdict``, the Markdown
sections, JUnit XML read back by junitparser (a skipped testcase with the reason) and GitHub
Actions' ``::warning`` annotation after stdout's stop-commands block."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import junitparser
import pytest
from junitparser import xunit2

from inspector.cli.main import main
from tests.conftest import FIXTURE_RUNS, conformance_run

RUN = "e2e_k1_micro"
LINE = (
    "correct.native@1: max_regression: change +0 [-{w}, +{w}] vs limit +0: inconclusive "
    "(95% paired interval, 10 tasks)"
)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run gated against a copy of itself (B − A = 0: its interval holds the limit 0),
    and a run keeping one task (no interval: 1 task evaluated on both sides)."""
    shutil.copytree(conformance_run(RUN), tmp_path / "now" / RUN)
    shutil.copytree(conformance_run(RUN), tmp_path / "before" / RUN)
    one = tmp_path / "one" / RUN
    shutil.copytree(conformance_run(RUN), one)
    kept = sorted((one / "details" / "normal").iterdir())[0]
    for folder in (one / "details").glob("*/*"):
        if folder != kept:
            shutil.rmtree(folder)
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return tmp_path


Capsys = pytest.CaptureFixture[str]


def gate(
    here: Path, capsys: Capsys, policy: str, *args: str, run: str = "now"
) -> tuple[int, str, str]:
    """``inspector gate`` of the run ``run`` against ``before`` under ``policy``."""
    (here / "here" / "p.toml").write_text(policy, encoding="utf-8")
    code = main(["gate", str(here / run), "--against", str(here / "before"), "--policy",
                 "p.toml", *args])  # fmt: skip
    out, err = capsys.readouterr()
    return code, out, err


def width(text: str) -> str:
    """The half-width of the symmetric interval the line shows (not known in advance)."""
    return text.split("[-", 1)[1].split(",", 1)[0]


@pytest.mark.parametrize(("setting", "code"), [("warn", 0), ("fail", 1), ("pass", 0)])
def test_text_says_inconclusive_and_the_policy_decides_the_exit(
    here: Path, capsys: Capsys, setting: str, code: int
) -> None:
    got, out, err = gate(here, capsys, f'max_regression = 0.0\ninconclusive = "{setting}"\n')
    assert got == code, err
    lines = out.splitlines()
    line = f"{RUN}: " + LINE.format(w=width(out)) if setting != "pass" else ""
    expected = {
        "warn": [f"WARN {line}", f"pass {RUN}: 0 passed, 0 failed, 1 skipped; 1 inconclusive"],
        "fail": [f'FAIL {line}; counted as a failure (inconclusive = "fail")'],
        "pass": [f"pass {RUN}: 1 passed, 0 failed, 0 skipped; 1 inconclusive"],
    }[setting]
    assert lines[:-1] == expected
    state = "0 pass, 1 fail" if setting == "fail" else "1 pass, 0 fail"
    assert lines[-1] == f"1 run: {state}, 0 unusable, 1 with an inconclusive rule; policy: p.toml"


def test_no_interval_is_inconclusive_saying_why(here: Path, capsys: Capsys) -> None:
    code, out, _ = gate(here, capsys, "max_regression = 0.05\n", run="one")
    assert code == 0
    assert out.splitlines()[0] == (
        f"WARN {RUN}: correct.native@1: max_regression: change +0.6 vs limit -0.05: inconclusive "
        "(no interval: 1 task evaluated on both sides; a paired interval needs 2)"
        "; where from: +0.6: +0.6 from 9 tasks only in A (Shapley over groups)"
    )


def test_real_runs_give_each_verdict_with_json_verdicts(here: Path, capsys: Capsys) -> None:
    """compare_b against compare_a: headline +0.05 [-0.2231, +0.3148] (``inspector diff``)."""
    a, b = FIXTURE_RUNS / "compare_a", FIXTURE_RUNS / "compare_b"
    for rule_name, limit, status, verdict in [
        ("max_regression", 0.3, "pass", "pass"),
        ("max_regression", 0.1, "skipped", "inconclusive"),
        ("min_improvement", 0.4, "fail", "fail"),
        ("min_improvement", 0.0, "skipped", "inconclusive"),
    ]:
        (here / "here" / "p.toml").write_text(f"{rule_name} = {limit}", encoding="utf-8")
        code = main(["gate", str(b), "--against", str(a), "--policy", "p.toml", "--format", "json"])
        data = json.loads(capsys.readouterr().out)
        (rule,) = data["runs"][0]["rules"]
        assert (code, rule["status"], rule["verdict"]) == (int(status == "fail"), status, verdict)
        assert set(rule) >= {"rule", "status", "failures", "detail"}  # the keys it always had
        assert rule["kind"] == "measured"
        threshold = -limit if rule_name == "max_regression" else limit
        line = (f"{b}: correct.native@1: {rule_name}: change +0.05 [-0.2231, +0.3148] vs limit "
                f"{threshold:+g}: {verdict} (95% paired interval, 20 tasks)")  # fmt: skip
        where = ("; where from: +0.05: +0.1583 from 3 flips up, −0.1056 from 2 flips down, "
                 "−0.002778 from 2 tasks now evaluated (Shapley over groups)")  # fmt: skip
        assert line + where in [
            f"{b}: {rule['detail']}".replace(": change", f": {rule_name}: change"),
            *rule["failures"],
        ]
        assert rule["warnings"] == ([line + where] if verdict == "inconclusive" else [])


def test_junit_carries_inconclusive_as_a_skipped_testcase_with_the_reason(
    here: Path, capsys: Capsys
) -> None:
    report = here / "gate.xml"
    code, out, _ = gate(here, capsys, "max_regression = 0.0\nmax_error_rate = 0.5\n", "--junit",
                        str(report))  # fmt: skip
    assert code == 0
    line = f"{RUN}: " + LINE.format(w=width(out))
    for flavour in (junitparser, xunit2):
        suites = flavour.JUnitXml.fromfile(str(report))
        cases = {case.name: case for suite in suites for case in suite}
        assert sorted(cases) == ["max_error_rate", "max_regression"]
        (result,) = cases["max_regression"].result
        assert isinstance(result, junitparser.Skipped)
        assert result.message == line and result.text == line
        assert cases["max_error_rate"].is_passed
        (suite,) = suites
        assert (suite.tests, suite.skipped, suite.failures) == (2, 1, 0)
    code, _, _ = gate(
        here, capsys, 'max_regression = 0.0\ninconclusive = "fail"\n', "--junit", str(report)
    )
    (result,) = next(iter(next(iter(junitparser.JUnitXml.fromfile(str(report)))))).result
    assert code == 1 and isinstance(result, junitparser.Failure)
    assert result.message == f'{line}; counted as a failure (inconclusive = "fail")'
    code, _, _ = gate(
        here, capsys, 'max_regression = 0.0\ninconclusive = "pass"\n', "--junit", str(report)
    )
    (case,) = next(iter(junitparser.JUnitXml.fromfile(str(report))))
    assert code == 0 and case.is_passed  # counted as a pass, saying what it measured
    assert case.system_out == line.removeprefix(f"{RUN}: ").replace(": max_regression", "")


def test_github_actions_gets_a_warning_annotation_after_the_block(
    here: Path, capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = here / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out, err = gate(here, capsys, "max_regression = 0.0\nmax_error_rate = 0.1\n")
    assert code == 1  # 3 errors in 10 tasks: an infrastructure failure beside it
    lines = out.splitlines()
    block_end = lines.index(f"::{lines[0].removeprefix('::stop-commands::')}::")
    commands = lines[block_end + 1 :]
    assert [c.split(" ", 1)[0] for c in commands] == ["::error", "::warning"]
    escaped = (f"{RUN}: " + LINE.format(w=width(out))).replace("%", "%25")
    assert commands[1] == (
        f"::warning title=inspector gate%3A max_regression inconclusive::{escaped}"
    )
    assert "::warning" not in err
    assert lines[1].startswith(f"FAIL {RUN}: correct.native@1: max_error_rate: ")
    assert lines[2].startswith(f"WARN {RUN}: correct.native@1: max_regression: ")
    written = summary.read_text(encoding="utf-8")
    infrastructure = written.index("### Infrastructure failures")
    inconclusive = written.index("### Inconclusive (warnings)")
    assert infrastructure < inconclusive and "### Measured regressions" not in written
    assert ": max_error_rate: " in written[infrastructure:inconclusive]
    assert ": max_regression: " in written[inconclusive:]


def test_show_policy_documents_inconclusive(here: Path, capsys: Capsys) -> None:
    assert main(["gate", str(here / "now"), "--show-policy"]) == 0
    out = capsys.readouterr().out
    assert 'inconclusive = "warn"' in out
    assert "INCONCLUSIVE when it holds the threshold" in out
    assert "# min_improvement = " in out
