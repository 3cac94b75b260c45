"""`inspector errors RUN|ROOT [--against RUN|ROOT]` on the planted root (issue 41): exactly the
planted new error class, and fingerprint counts that add up to the issues screen's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from inspector.answers.items import RunIssues, errors_call
from inspector.cli.main import main
from inspector.overrides import Overrides
from inspector.views.attribution import issue_table
from inspector.views.fingerprints import PREFIX, group
from tests.conftest import FIXTURE_RUNS, open_session
from tests.items.planted import generator, make

KEYS = ["fingerprint", "phase", "code", "example", "attempts", "tasks", "runs", "cut"]
AGAINST_KEYS = [*KEYS, "status", "before", "after", "before_runs", "after_runs"]


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make(tmp_path_factory.mktemp("planted") / "root")


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, object]]:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_against_finds_exactly_the_new_error_class(
    planted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, phase, code = generator().NEW_ERROR
    model = run.split("/")[0]
    rows = run_json(capsys, "errors", str(planted / run), "--against", str(planted / model / "run1"),
                    "--format", "json")  # fmt: skip
    assert all(list(r) == AGAINST_KEYS for r in rows)
    changed = [(r["status"], r["phase"], r["code"]) for r in rows if r["status"] != "same"]
    assert changed == [("new", phase, code)]
    new = rows[0]
    assert (new["before"], new["after"], new["attempts"], new["tasks"], new["runs"]) == (
        0,
        1,
        1,
        1,
        1,
    )
    assert str(new["example"]).startswith("RuntimeError: grader crashed at 0x7f")
    # The other way round the new class is gone, and nothing else moved.
    back = run_json(capsys, "errors", str(planted / model / "run1"), "--against", str(planted / run),
                    "--format", "json")  # fmt: skip
    assert [(r["status"], r["code"]) for r in back if r["status"] != "same"] == [("gone", code)]


def test_a_root_groups_every_run(planted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = run_json(capsys, "errors", str(planted), "--format", "json")
    assert all(list(r) == KEYS for r in rows)
    by_code = {r["code"]: r for r in rows}
    # One fingerprint per planted message kind, whatever its numbers, ids and quotes.
    assert len(rows) == 4
    assert (by_code["model_failed"]["attempts"], by_code["model_failed"]["tasks"],
            by_code["model_failed"]["runs"]) == (12, 1, 6)  # fmt: skip
    assert (by_code["grader_note"]["attempts"], by_code["grader_note"]["runs"]) == (12, 6)
    assert (by_code["model_timeout"]["attempts"], by_code["model_timeout"]["runs"]) == (6, 6)
    assert by_code["verifier_crashed"]["runs"] == 1


def test_sides_with_different_run_counts_compare_attempts_per_run(
    planted: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 48: the root's 6 runs against model-a's 2. model_failed is on 2 attempts of
    every run: 4 → 12 attempts is 2 → 2 per run, the same (it read "grown ×3.00" before)."""
    rows = run_json(capsys, "errors", str(planted), "--against", str(planted / "model-a"),
                    "--format", "json")  # fmt: skip
    status = {r["code"]: (r["status"], r["before"], r["after"]) for r in rows}
    assert status["model_failed"] == ("same", 4, 12)
    assert status["verifier_crashed"] == ("new", 0, 1)
    assert {(r["before_runs"], r["after_runs"]) for r in rows} == {(2, 6)}
    assert main(["errors", str(planted), "--against", str(planted / "model-a")]) == 0
    out = capsys.readouterr().out
    assert "same       4 → 12     ×1.00" in out
    assert out.endswith("runs: 2 before, 6 after; × compares attempts per run\n")
    # As many runs on each side: the plain attempt counts, and the line says so.
    one = str(planted / "model-a" / "run1")
    assert main(["errors", str(planted / "model-b" / "run2"), "--against", one]) == 0
    assert capsys.readouterr().out.endswith("runs: 1 before, 1 after\n")


@pytest.mark.parametrize(
    "run", ["planted", *sorted(p.name for p in FIXTURE_RUNS.iterdir() if p.is_dir())]
)
def test_fingerprint_counts_add_up_to_the_issues_screen(run: str, planted: Path) -> None:
    """Per phase and code, the attempts of its fingerprints are the attempts of the issues
    screen's rows (distinct attempts), when no attempt carries two messages of one code."""
    paths = sorted(planted.glob("*/run*")) if run == "planted" else [FIXTURE_RUNS / run]
    for path in paths:
        session = open_session(path)
        assert session.recomputation is not None
        answer = errors_call(str(path), str(path), Overrides())
        assert isinstance(answer, RunIssues)
        found = [o for o in answer.found if o.source == "issue"]
        per_attempt: dict[tuple[str, str, str, int], set[str]] = {}
        for o in found:
            per_attempt.setdefault((o.phase, o.code, o.task_id, o.attempt), set()).add(o.message)
        ambiguous = {(p, c) for (p, c, _, _), m in per_attempt.items() if len(m) > 1}
        fingerprinted: dict[tuple[str, str], int] = {}
        for g in group(found):
            fingerprinted[(g.phase, g.code)] = fingerprinted.get((g.phase, g.code), 0) + g.attempts
        screen: dict[tuple[str, str], int] = {}
        for row in issue_table(session.recomputation):
            screen[(row.phase, row.code)] = screen.get((row.phase, row.code), 0) + len(row.attempts)
        assert set(fingerprinted) == set(screen)
        for key, count in screen.items():
            if key not in ambiguous:
                assert fingerprinted[key] == count, key


def test_a_long_message_is_cut_and_the_output_says_so(
    planted: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 48: a message longer than PREFIX characters is read up to there: its row says
    ``cut`` (JSON) and the table says how long a message is read."""
    run = tmp_path / "run2"
    shutil.copytree(planted / "model-b" / "run2", run)
    (result,) = [p for p in run.rglob("result.json") if "verifier_crashed" in p.read_text()]
    payload = json.loads(result.read_text())
    long = "RuntimeError: grader crashed in " + "frame " * 2000
    payload["issues"][0]["message"] = long
    result.write_text(json.dumps(payload))
    rows = {r["code"]: r for r in run_json(capsys, "errors", str(run), "--format", "json")}
    crashed = rows.pop("verifier_crashed")
    assert crashed["cut"] is True and crashed["example"] == long[:PREFIX]
    # Nothing volatile in it: the fingerprint is the first PREFIX characters, then <cut>.
    assert crashed["fingerprint"] == f"evaluate/verifier_crashed: {long[:PREFIX]} <cut>"
    assert not any(r["cut"] for r in rows.values())
    assert main(["errors", str(run)]) == 0
    out = capsys.readouterr().out
    assert out.endswith(
        f"1 of them ending in <cut>: messages longer than {PREFIX} characters, read (and "
        "shown) up to there\n"
    )
