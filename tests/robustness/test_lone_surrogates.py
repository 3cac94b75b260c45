"""Lone surrogate escapes (issue 39): ``"\\ud800x"`` as a category, ``"\\ud83d"`` (an emoji cut
in half) in a final answer. ``json.loads`` accepts both and AgentCompass scores the run,
writing each lone surrogate as three U+FFFD (fixtures/conformance/syn_lone_surrogates, whose
metrics.json and summary.md AgentCompass wrote: test_conformance checks that ``report`` is
byte-identical and ``check`` equal). Every output survives them, and any other text."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.cli.main import main
from inspector.results.file_io import lossy, parse_json
from tests.app.helpers import pilot_test
from tests.conftest import CONFORMANCE, FIXTURE_RUNS

RUN = CONFORMANCE / "syn_lone_surrogates"
FFFD3 = "\ufffd" * 3


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """In-process: capsys's stdout is UTF-8 and refuses a lone surrogate, as a terminal's."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_parsing_carries_what_agentcompass_writes() -> None:
    assert parse_json(b'{"\\ud800x": ["cut \\ud83d", "\\ud83d\\ude00", "\\\\ud800"]}') == {
        FFFD3 + "x": ["cut " + FFFD3, "\U0001f600", "\\ud800"]
    }
    assert lossy("\udc00\ud800") == FFFD3 * 2 and lossy("plain ü") == "plain ü"
    stored = json.loads((RUN / "metrics.json").read_text(encoding="utf-8"))
    assert FFFD3 + "x" in stored["series"][0]["categories"]  # as AgentCompass wrote it


def test_root_commands_read_every_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(RUN, tmp_path / "surrogates")
    shutil.copytree(FIXTURE_RUNS / "k1_micro", tmp_path / "plain")
    code, out, err = _run(capsys, "check", str(tmp_path))
    assert code == 0, out + err
    assert "2 ok" in out or "2 runs: 2 ok" in out, out
    code, out, err = _run(capsys, "leaderboard", str(tmp_path), "--format", "json")
    assert code == 0, err
    assert "0.6364" in out or "0.63" in out, out
    code, out, err = _run(capsys, "check", str(RUN), "--format", "json")
    assert code == 0 and json.loads(out)["status"] == "equal", out + err


@pytest.mark.parametrize("kind", ["eee", "parquet", "csv", "jsonl"])
def test_exports_carry_the_answer(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, "export", str(RUN), "--format", kind, "--out", str(tmp_path))
    assert code == 0, err
    if kind == "parquet":
        import pyarrow.parquet as pq

        tables = [pq.read_table(p).to_pylist() for p in tmp_path.rglob("*.parquet")]
        written = json.dumps(tables, ensure_ascii=False, default=str).encode("utf-8")
    else:
        written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert (FFFD3 + "x").encode("utf-8") in written
    if kind == "eee":  # the only export with answers
        assert ("cut " + FFFD3).encode("utf-8") in written


@pytest.mark.parametrize("text", ["a\ud800", "\ud83d", "cut \udfff end"])
@pilot_test
async def test_the_app_copies_any_text(text: str) -> None:
    from inspector.app.app import InspectorApp

    app = InspectorApp([RUN])
    async with app.run_test():
        app.copy_to_clipboard(text)
        assert app.clipboard == lossy(text) and "\ufffd" in app.clipboard


# Any code point, surrogates included (drawn often: they are 2,048 of 1.1 million).
ANY_TEXT = st.text(
    st.characters(exclude_categories=())
    | st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=()),
    max_size=12,
)


def _write(path: Path, value: object) -> None:
    """As JSON a lone surrogate can be in: escaped (``ensure_ascii``)."""
    path.write_text(json.dumps(value, indent=2) + "\n", encoding="ascii")


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(category=ANY_TEXT, answer=ANY_TEXT, truth=ANY_TEXT)
def test_any_text_survives_every_output(
    category: str, answer: str, truth: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        run = root / "run"
        shutil.copytree(FIXTURE_RUNS / "k1_micro", run)
        (run / "metrics.json").unlink()
        folder = next((run / "details" / "normal").iterdir())
        task = json.loads((folder / "task.json").read_text(encoding="utf-8"))
        task["category"], task["ground_truth"] = category, {truth: truth}
        _write(folder / "task.json", task)
        result = json.loads((folder / "attempt-1" / "result.json").read_text(encoding="utf-8"))
        result["final_answer"] = answer
        _write(folder / "attempt-1" / "result.json", result)
        import sys

        print(ascii((category, answer, truth)), file=sys.__stderr__)
        for argv in (
            ["report", str(run), "--json"],
            ["report", str(run), "--markdown"],
            ["tasks", str(run), "--series", "all", "--format", "jsonl"],
            ["tasks", str(run), "--series", "all", "--format", "csv"],
            ["leaderboard", str(root), "--format", "markdown"],
            *(
                ["export", str(run), "--format", kind, "--out", str(root / kind)]
                for kind in ("eee", "parquet", "csv", "jsonl")
            ),
            ["bundle", str(run), "-o", str(root / "page.html")],
            *(
                ["sql", str(run), "select category from tasks", "--format", kind]
                for kind in ("table", "csv", "json")
            ),
        ):
            code, out, err = _run(capsys, *argv)
            assert code == 0, (argv, err)
        # The recomputation written as the stored file: check says equal, in both formats.
        code, out, _ = _run(capsys, "report", str(run), "--json")
        (run / "metrics.json").write_text(out, encoding="utf-8")
        assert _run(capsys, "check", str(run))[0] == 0
        code, out, err = _run(capsys, "check", str(root), "--format", "json")
        assert code == 0 and json.loads(out)[0]["status"] == "ok", out + err
        exported = (root / "jsonl").rglob("*.tasks.jsonl")
        rows = [
            json.loads(line) for p in exported for line in p.read_text("utf-8").split("\n") if line
        ]
        key = lossy(category).strip() or "__uncategorized__"  # AgentCompass's category key
        assert key in {row["category"] for row in rows}
