"""`inspector errors RUN|ROOT [--against RUN|ROOT]` on the planted root (issue 41): exactly the
planted new error class, and fingerprint counts that add up to the issues screen's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.loading import open_session
from inspector.overrides import Overrides
from inspector.root_items import root_errors
from inspector.views.attribution import issue_table
from inspector.views.fingerprints import group
from tests.conftest import FIXTURE_RUNS
from tests.items.planted import generator, make

KEYS = ["fingerprint", "phase", "code", "example", "attempts", "tasks", "runs"]


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
    assert all(list(r) == [*KEYS, "status", "before", "after"] for r in rows)
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


def test_grown_with_ratio(planted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = run_json(capsys, "errors", str(planted), "--against", str(planted / "model-a"),
                    "--format", "json")  # fmt: skip
    status = {r["code"]: (r["status"], r["before"], r["after"]) for r in rows}
    assert status["model_failed"] == ("grown", 4, 12)
    assert status["verifier_crashed"] == ("new", 0, 1)
    assert main(["errors", str(planted), "--against", str(planted / "model-a")]) == 0
    assert "grown      4 → 12     ×3.00" in capsys.readouterr().out


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
        found, _ = root_errors(str(path), Overrides())
        found = [o for o in found if o.source == "issue"]
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
