"""`inspector gate` on a results root of runs AgentCompass wrote (fixtures/conformance) and
a tampered copy of one (issue 42): exit codes, the lines, the policy's errors and look-up,
JUnit XML read back by parsing it, GitHub Actions' outputs."""

from __future__ import annotations

import json
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import junitparser
import pytest
from junitparser import xunit2

from inspector.cli.main import main
from inspector.gate_policy import DEFAULT_POLICY
from tests.cli.test_check_root import tamper_headline
from tests.conftest import conformance_run

RUNS = ("e2e_k1_micro", "e2e_k3_avg_category_mean", "e2e_k3_pass_hierarchy")
TAMPERED = "tampered/e2e_k1_micro"
POLICY = """\
require_stored_equal = true
require_finished = true
max_error_rate = 0.3
min_evaluated = 10
"""


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The results, gated from the folder ``here`` beside them holding the policy."""
    results = tmp_path / "results"
    for name in RUNS:
        shutil.copytree(conformance_run(name), results / name)
    shutil.copytree(conformance_run("e2e_k1_micro"), results / TAMPERED)
    tamper_headline(results / TAMPERED)
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "inspector-gate.toml").write_text(POLICY, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "here")
    return results


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["gate", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_tampered_run_fails_one_rule_in_one_line(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([str(root)], capsys)
    assert code == 1, err
    lines = out.splitlines()
    assert lines[:3] == [f"pass {name}: 4 passed, 0 failed, 0 skipped" for name in RUNS]
    assert lines[3].startswith(
        f"FAIL {TAMPERED}: run: require_stored_equal: stored metrics.json differs from the "
        "recomputation in 1 place (first: correct.native@1 value: stored "
    )
    assert lines[3].endswith("); limit: equal")
    assert lines[4] == "4 runs: 3 pass, 1 fail, 0 unusable; policy: inspector-gate.toml"


def test_every_run_passing_exits_0(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(root / "tampered")
    code, out, _ = run([str(root)], capsys)
    assert code == 0
    assert out.splitlines()[-1].startswith("3 runs: 3 pass, 0 fail, 0 unusable")


def test_one_run_given_itself_is_named_as_given(root: Path, capsys: pytest.CaptureFixture[str]):
    code, out, _ = run([str(root / TAMPERED), "--policy", "inspector-gate.toml"], capsys)
    assert code == 1
    assert out.startswith(f"FAIL {root / TAMPERED}: run: require_stored_equal: ")


def test_a_real_limit_passes_at_it_and_fails_past_it(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "p.toml"
    policy.write_text("max_error_rate = 0.29", encoding="utf-8")  # the runs have 3 of 10
    code, out, _ = run([str(root / "e2e_k1_micro"), "--policy", str(policy)], capsys)
    assert code == 1
    assert out.splitlines()[0] == (
        f"FAIL {root / 'e2e_k1_micro'}: correct.native@1: max_error_rate: error rate 0.3 "
        "(3 of 10 tasks); limit: 0.29"
    )


def test_an_unusable_run_exits_2_and_is_named(root: Path, capsys: pytest.CaptureFixture[str]):
    (root / "e2e_k1_micro" / "run_info.json").write_text('{"run_id": "cut', encoding="utf-8")
    code, out, _ = run([str(root)], capsys)
    assert code == 2
    assert "unusable: e2e_k1_micro/run_info.json: not valid JSON" in out
    assert out.splitlines()[-1].startswith("4 runs: 2 pass, 1 fail, 1 unusable")


def test_no_runs_and_no_folder_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([str(tmp_path)], capsys)
    assert code == 2 and err.startswith(f"inspector: {tmp_path}: no runs here")
    code, _, err = run([str(tmp_path / "nothing")], capsys)
    assert code == 2 and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("max_eror_rate = 0.1", "unknown key 'max_eror_rate' (rules: "),
        ('[[scope]]\nbenchmark = "x"\nseries_glob = "*"', "unknown key 'scope[1].series_glob'"),
        ("max_error_rate = 0.1\nmax_error_rate = ", "not a TOML file: "),
        ("max_error_rate = 1.5", "max_error_rate: Input should be less than or equal to 1"),
        ('require_finished = "yes"', "require_finished: Input should be a valid boolean"),
    ],
)
def test_a_bad_policy_exits_2_naming_the_file_and_the_key(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(text, encoding="utf-8")
    code, out, err = run([str(root), "--policy", str(policy)], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"inspector: {policy}: {message}")
    assert len(err.splitlines()) == 1


def test_a_missing_policy_file_is_named(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run([str(root), "--policy", "no-such.toml"], capsys)
    assert code == 2 and err.startswith("inspector: no-such.toml: cannot read the policy file")


def test_the_policy_is_the_one_named_then_here_then_the_defaults(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([str(root), "--show-policy"], capsys)[1] == f"# policy: inspector-gate.toml\n{POLICY}"
    named = tmp_path / "named.toml"
    named.write_text("min_evaluated = 11\n", encoding="utf-8")
    assert run([str(root), "--show-policy", "--policy", str(named)], capsys)[1] == (
        f"# policy: {named}\nmin_evaluated = 11\n"
    )
    code, out, _ = run([str(root), "--policy", str(named)], capsys)  # only the rule it names
    # Five headline series (e2e_k3_avg_category_mean has two), each failing this rule alone.
    assert code == 1 and out.count("FAIL ") == 5 and out.count(": min_evaluated: ") == 5
    Path("inspector-gate.toml").unlink()
    code, out, _ = run([str(root), "--show-policy"], capsys)
    assert code == 0 and out.endswith(DEFAULT_POLICY)
    assert out.startswith("# policy: the defaults (no inspector-gate.toml found")


def test_a_policy_the_results_carry_is_never_obeyed_unless_named(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 48: results holding their own empty policy (no rules: everything passes) do not
    pass by it, neither from beside the runs nor from the folder the gate runs in."""
    (root / "inspector-gate.toml").write_text("# nothing checked\n", encoding="utf-8")
    code, out, err = run([str(root)], capsys)
    assert code == 1 and out.splitlines()[-1].endswith("; policy: inspector-gate.toml")
    assert f"FAIL {TAMPERED}: run: require_stored_equal: " in out
    assert err == (
        f"inspector: warning: {root}/inspector-gate.toml: not used: a policy inside the results "
        "is used only when named with --policy\n"
    )
    code, out, _ = run([str(root), "--show-policy"], capsys)
    assert out.splitlines()[:2] == [
        "# policy: inspector-gate.toml",
        f"# {root}/inspector-gate.toml: not used: a policy inside the results is used only "
        "when named with --policy",
    ]
    monkeypatch.chdir(root)  # the current folder is inside the results: its file is passed over
    code, out, _ = run([str(root)], capsys)
    assert code == 1 and out.splitlines()[-1].endswith(
        "; policy: the defaults (inspector-gate.toml lies inside the results gated: a policy "
        "there is used only when named with --policy)"
    )
    code, out, _ = run([str(root), "--show-policy"], capsys)
    assert out.endswith(DEFAULT_POLICY)
    code, out, err = run([str(root), "--policy", "inspector-gate.toml"], capsys)  # named: used
    assert code == 0 and out.splitlines()[-1] == (
        "4 runs: 4 pass, 0 fail, 0 unusable; policy: inspector-gate.toml"
    )
    assert err == ""


def test_the_defaults_judge_the_real_runs(root: Path, capsys: pytest.CaptureFixture[str]):
    Path("inspector-gate.toml").unlink()
    code, out, _ = run([str(root)], capsys)
    assert code == 1
    # AgentCompass's e2e runs have 3 errors in 10 tasks: above the default 10 %.
    assert f"FAIL {RUNS[0]}: correct.native@1: max_error_rate: error rate 0.3 (3 of 10 tasks); " \
        "limit: 0.1" in out.splitlines()


def junit_of(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    report = tmp_path / "gate.xml"
    code, _, _ = run([str(root), "--junit", str(report)], capsys)
    assert code == 1
    return report


def test_junit_has_one_testcase_per_run_and_rule(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = junit_of(root, tmp_path, capsys)
    tree = ET.parse(report).getroot()
    assert tree.tag == "testsuites"
    cases = [(c.get("classname"), c.get("name")) for c in tree.iter("testcase")]
    rules = ["require_stored_equal", "require_finished", "max_error_rate", "min_evaluated"]
    assert sorted(cases) == sorted((run, rule) for run in [*RUNS, TAMPERED] for rule in rules)
    assert (tree.get("tests"), tree.get("failures"), tree.get("errors")) == ("16", "1", "0")
    # Read back by junitparser, both its flavours (xunit2: Jenkins' junit-10 schema).
    for flavour in (junitparser, xunit2):
        suites = flavour.JUnitXml.fromfile(str(report))
        failed = [
            (case.classname, case.name, result.message)
            for suite in suites for case in suite for result in case.result
        ]  # fmt: skip
        assert len(failed) == 1
        assert failed[0][:2] == (TAMPERED, "require_stored_equal")
        assert failed[0][2].startswith(f"{TAMPERED}: run: require_stored_equal: stored metrics")
        assert sum(suite.tests for suite in suites) == 16


def test_junit_survives_any_run_name(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = "r\x1b[2J|<&>\"'\u202e\x7f"
    (root / "tampered").rename(root / odd)
    report = junit_of(root, tmp_path, capsys)
    names = {case.classname for suite in junitparser.JUnitXml.fromfile(str(report)) for case in suite}
    assert "r␛[2J|<&>\"'<U+202E>␡/e2e_k1_micro" in names


def test_junit_is_never_written_into_the_results(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run([str(root), "--junit", str(root / "gate.xml")], capsys)
    assert code == 2 and "the inspector never writes there" in err
    assert not (root / "gate.xml").exists()


def test_github_actions_gets_annotations_and_a_step_summary(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out, err = run([str(root)], capsys)
    assert code == 1
    # In the log (stdout not a file) the annotations follow stdout's ::stop-commands:: block
    # (tests/robustness/test_workflow_commands.py); stdout to a file leaves them on stderr.
    lines = out.splitlines()
    block_end = lines.index(f"::{lines[0].removeprefix('::stop-commands::')}::")
    errors = [line for line in lines[block_end:] if line.startswith("::error ")]
    assert len(errors) == 1 and "::error" not in err
    assert errors[0].startswith(
        f"::error title=inspector gate%3A require_stored_equal::{TAMPERED}: run: "
        "require_stored_equal: stored metrics.json differs"
    )
    written = summary.read_text(encoding="utf-8")
    assert written.startswith("earlier step\n## inspector gate\n")  # appended, not replaced
    assert f"| {TAMPERED} | fail | 3 passed, 1 failed, 0 skipped | require_stored_equal |" in written
    assert lines[4].startswith(f"FAIL {TAMPERED}")  # stdout is unchanged inside the block


def test_without_github_actions_nothing_of_it(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    _, _, err = run([str(root)], capsys)
    assert "::error" not in err and not summary.exists()


def test_json_and_markdown(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([str(root), "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 1 and data["exit_code"] == 1
    by_run = {r["run"]: r for r in data["runs"]}
    assert by_run[TAMPERED]["status"] == "fail"
    assert [r["rule"] for r in by_run[TAMPERED]["rules"] if r["status"] == "fail"] == [
        "require_stored_equal"
    ]
    assert {r["status"] for r in by_run[RUNS[0]]["rules"]} == {"pass"}
    code, out, _ = run([str(root), "--format", "markdown"], capsys)
    assert code == 1
    assert out.startswith("## inspector gate\n")
    assert f"| {RUNS[0]} | pass | 4 passed, 0 failed, 0 skipped | — |" in out
    assert "### Failures" in out


def test_against_compares_each_run_with_its_counterpart(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "p.toml"
    policy.write_text("max_regression = 0.0\n", encoding="utf-8")
    code, out, _ = run([str(root), "--policy", str(policy), "--format", "json"], capsys)
    assert code == 0
    assert {r["rules"][0]["detail"] for r in json.loads(out)["runs"]} == {"needs --against"}
    code, out, _ = run(
        [str(root), "--policy", str(policy), "--against", str(root), "--format", "json"], capsys
    )
    assert code == 0
    details = {r["run"]: r["rules"][0]["detail"] for r in json.loads(out)["runs"]}
    # a run beside itself: change 0, a symmetric interval around it that is not a point
    # (the comparison's MOVER interval: the correlation of the sides is shrunk below 1),
    # holding the limit 0: INCONCLUSIVE (issue 51), a warning under the default
    found = re.fullmatch(
        r"correct\.native@1: change \+0 \[-(\S+), \+(\S+)\] vs limit \+0: inconclusive "
        r"\(95% paired interval, 10 tasks\)",
        details[RUNS[0]],
    )
    assert found is not None and found[1] == found[2] and float(found[1]) > 0


def test_against_finds_a_new_error_fingerprint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before, now = tmp_path / "before", tmp_path / "now"
    for side in (before, now):
        shutil.copytree(conformance_run("e2e_k1_micro"), side / "e2e_k1_micro")
    (result,) = (now / "e2e_k1_micro" / "details" / "error").glob("chat_v1_7--*/attempt-1/result.json")
    data = json.loads(result.read_text(encoding="utf-8"))
    data["issues"][0]["message"] = "HTTP 429: RateLimitError: quota 7 exceeded"
    result.write_text(json.dumps(data), encoding="utf-8")
    policy = tmp_path / "p.toml"
    policy.write_text("max_new_error_fingerprints = 0\nmax_fingerprint_growth = 0.0", encoding="utf-8")
    code, out, _ = run([str(now), "--policy", str(policy), "--against", str(before)], capsys)
    assert code == 1
    assert out.splitlines()[0] == (
        "FAIL e2e_k1_micro: run: max_new_error_fingerprints: 1 new error fingerprint "
        "(run/model_failed: HTTP <n>: RateLimitError: quota <n> exceeded); limit: 0"
    )
    assert len(out.splitlines()) == 2  # no fingerprint grew: growth passes
    code, out, _ = run([str(before), "--policy", str(policy), "--against", str(before)], capsys)
    assert code == 0, out


def test_forbid_derived_plan_fails_a_what_if_plan_and_a_derived_metrics_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "e2e_k3_avg_category_mean"
    shutil.copytree(conformance_run("e2e_k3_avg_category_mean"), run_dir)
    policy = tmp_path / "p.toml"
    policy.write_text("forbid_derived_plan = true", encoding="utf-8")
    code, out, _ = run([str(run_dir), "--policy", str(policy)], capsys)
    assert code == 0, out
    code, out, _ = run([str(run_dir), "--policy", str(policy), "--k", "1"], capsys)
    assert code == 1
    assert out.splitlines()[0].startswith(
        f"FAIL {run_dir}: run: forbid_derived_plan: scored with a derived plan ("
    )
    # A metrics.json the inspector derived, published as if AgentCompass had written it.
    assert main(["report", str(run_dir), "--k", "1", "--json"]) == 0
    derived = capsys.readouterr().out
    (run_dir / "metrics.json").write_text(derived, encoding="utf-8")
    code, out, _ = run([str(run_dir), "--policy", str(policy)], capsys)
    assert code == 1
    assert out.splitlines()[0] == (
        f"FAIL {run_dir}: run: forbid_derived_plan: the stored metrics.json carries "
        "extra.inspector_derived_plan (a derived plan); limit: the run's own plan"
    )


def test_github_actions_with_stdout_in_a_file_gets_annotations_on_stderr(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    report = tmp_path / "gate.json"
    with report.open("w", encoding="utf-8") as handle, monkeypatch.context() as patch:
        patch.setattr(sys, "stdout", handle)
        code = main(["gate", str(root), "--format", "json"])
    err = capsys.readouterr().err
    assert code == 1 and json.loads(report.read_text(encoding="utf-8"))["exit_code"] == 1
    assert [line for line in err.splitlines() if line.startswith("::error ")] != []


def test_a_run_with_no_task_evaluated_fails_the_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run whose task folders are all gone, its metrics.json written to match (the
    null headline AgentCompass writes for no tasks), passed the default gate: every rate
    rule skipped with "no tasks" and nothing else looked at the count."""
    empty = tmp_path / "empty_run"
    shutil.copytree(conformance_run("e2e_k1_micro"), empty)
    for state in (empty / "details").iterdir():
        for task in state.iterdir():
            shutil.rmtree(task)
    assert main(["report", str(empty), "--json"]) == 0
    metrics = capsys.readouterr().out
    assert json.loads(metrics)["series"][0]["counts"]["total"] == 0
    (empty / "metrics.json").write_text(metrics, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # no inspector-gate.toml here: the defaults
    code, out, err = run([str(empty)], capsys)
    assert code == 1, out + err
    assert "min_evaluated: 0 evaluated of 0 tasks" in out, out
