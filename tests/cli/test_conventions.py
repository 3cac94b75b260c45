"""The command line behaves as users of ruff, pytest or git expect.

Run as a real process (``python -m inspector``), since exit statuses, pipes and terminals
are what is tested.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from inspector import __version__
from tests.conftest import FIXTURE_RUNS, ROOT

COMMANDS = [
    "report",
    "check",
    "serve",
    "tasks",
    "diff",
    "export",
    "stats",
    "leaderboard",
    "items",
    "errors",
    "gate",
    "bundle",
    "sql",
]
RUN = FIXTURE_RUNS / "k1_micro"


def inspector(
    *argv: str, cwd: Path | None = None, **options: object
) -> subprocess.CompletedProcess[str]:
    options.setdefault("stdin", subprocess.DEVNULL)
    options.setdefault("capture_output", True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "inspector", *argv], cwd=cwd or ROOT, env=env,
        text=True, timeout=120, **options,
    )  # type: ignore[call-overload]  # fmt: skip


def test_an_unknown_command_or_missing_path_is_one_line_and_exit_2(tmp_path: Path) -> None:
    for word in ("reprot", str(tmp_path / "no-such-run")):
        done = inspector(word, RUN.as_posix(), cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr == f"inspector: no such command or run directory: {word}\n"
        assert done.stdout == ""


def test_the_app_refuses_to_start_without_a_terminal() -> None:
    """``inspector RUN </dev/null | cat``: one line and exit 2, nothing written to the pipe."""
    done = inspector(str(RUN))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "needs a terminal" in done.stderr
    assert "inspector report PATH" in done.stderr


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version(flag: str) -> None:
    done = inspector(flag)
    assert (done.returncode, done.stdout) == (0, f"inspector {__version__}\n")
    from importlib.metadata import version

    assert version("agentcompass-inspector") == __version__


def test_help_names_every_command_and_the_app_options() -> None:
    done = inspector("--help")
    assert done.returncode == 0
    for word in [*COMMANDS, "--watch", "--version", "-V", "--print-completion", "PATH"]:
        assert word in done.stdout, word
    from inspector.cli.main import COMMANDS as DECLARED
    from inspector.cli.main import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.dest == "command"]
    assert sorted(sub.choices) == sorted(COMMANDS) == sorted(DECLARED)
    for name, command in sub.choices.items():
        text = inspector(name, "--help").stdout
        for action in command._actions:
            for option in action.option_strings:
                assert option in text, (name, option)


def test_a_bad_option_shows_a_usage_line_with_every_command() -> None:
    for argv in (["report", "--bogus", str(RUN)], ["--bogus"]):
        done = inspector(*argv)
        assert done.returncode == 2
        assert "{" + ",".join(COMMANDS) + "}" in done.stderr
        assert "unrecognized arguments: --bogus" in done.stderr


def test_check_format_json(tmp_path: Path) -> None:
    equal = inspector("check", str(RUN), "--format", "json")
    assert equal.returncode == 0
    data = json.loads(equal.stdout)
    # The keys of issue 13 first (its status word "equal" kept for scripts), then those of
    # a run of `check ROOT`.
    assert list(data) == [
        "path", "status", "tasks", "differences", "problem", "run", "warnings", "headline",
        "same_content",
    ]  # fmt: skip
    assert {key: data[key] for key in list(data)[:6]} == {
        "path": str(RUN), "status": "equal", "tasks": 13, "differences": [], "problem": None,
        "run": str(RUN),
    }  # fmt: skip
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    stored = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    stored["series"][0]["counts"]["total"] += 1
    (run / "metrics.json").write_text(json.dumps(stored), encoding="utf-8")
    differs = inspector("check", str(run), "--format", "json")
    assert differs.returncode == 1
    data = json.loads(differs.stdout)
    assert data["status"] == "differs" and data["problem"] is None
    assert data["same_content"] is False  # a number changed
    series = stored["series"][0]
    assert data["differences"] == [{
        "where": f"{series['series_id']} counts.total",
        "stored": series["counts"]["total"],
        "recomputed": series["counts"]["total"] - 1,
    }]  # fmt: skip
    unusable = inspector("check", str(tmp_path / "gone"), "--format", "json")
    assert unusable.returncode == 2
    data = json.loads(unusable.stdout)
    assert data["status"] == "unusable" and data["differences"] == [] and data["tasks"] is None
    assert data["problem"] == f"{tmp_path / 'gone'}: no such directory"
    assert data["headline"] is None and data["warnings"] == [] and data["same_content"] is None
    assert unusable.stderr == f"inspector: {data['problem']}\n"
    text = inspector("check", str(run))
    assert text.returncode == 1 and text.stdout.startswith("metrics.json differs")
    assert "same content" not in text.stdout


def test_check_says_when_only_the_bytes_differ(tmp_path: Path) -> None:
    """A metrics.json reformatted (indent 4) but equal in content still differs (exit 1:
    AgentCompass's writer is canonical), and check says no number changed."""
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    stored = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    (run / "metrics.json").write_text(json.dumps(stored, indent=4, sort_keys=True), "utf-8")
    text = inspector("check", str(run))
    assert text.returncode == 1
    lines = text.stdout.splitlines()
    assert lines[0] == "metrics.json differs from the recomputation in 1 places:"
    assert lines[1].startswith("  metrics.json line 2: ")
    assert lines[2:] == ["same content, different bytes"]
    data = json.loads(inspector("check", str(run), "--format", "json").stdout)
    assert data["status"] == "differs" and data["same_content"] is True
    assert [d["where"] for d in data["differences"]] == ["metrics.json line 2"]
    root = inspector("check", str(tmp_path))
    assert root.returncode == 1
    assert root.stdout.splitlines()[0].endswith("(same content, different bytes)")
    (item,) = json.loads(inspector("check", str(tmp_path), "--format", "json").stdout)
    assert (item["status"], item["same_content"]) == ("differs", True)
    equal = json.loads(inspector("check", str(RUN), "--format", "json").stdout)
    assert (equal["status"], equal["same_content"]) == ("equal", True)


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completion_script_completes_commands_and_options() -> None:
    done = inspector("--print-completion", "bash")
    assert done.returncode == 0
    script = done.stdout
    for word in [*COMMANDS, "--format", "--watch", "--markdown", "--strategy"]:
        assert word in script, word
    # What bash does on `inspector rep<TAB>` and `inspector check --fo<TAB>`.
    probe = (
        "source /dev/stdin; complete -p inspector; "
        "COMP_WORDS=(inspector rep); COMP_CWORD=1; _shtab_inspector inspector rep inspector; "
        'echo "${COMPREPLY[@]}"; '
        "COMP_WORDS=(inspector check --fo); COMP_CWORD=2; _shtab_inspector inspector --fo check; "
        'echo "${COMPREPLY[@]}"'
    )
    shell = subprocess.run(["bash", "-c", probe], input=script, capture_output=True, text=True)
    assert shell.returncode == 0, shell.stderr
    lines = shell.stdout.splitlines()
    assert lines[0].startswith("complete ") and lines[0].endswith(" inspector")
    assert [line.split() for line in lines[1:]] == [["report"], ["--format"]]


@pytest.mark.parametrize(
    ("argv", "status"),
    [
        (["diff", str(FIXTURE_RUNS / "compare_a"), str(FIXTURE_RUNS / "compare_b")], 1),
        (["diff", str(FIXTURE_RUNS / "compare_a"), str(FIXTURE_RUNS / "compare_a")], 0),
        (["report", str(RUN)], 0),
        (["tasks", str(RUN), "--format", "csv"], 0),
    ],
    ids=["diff-differs", "diff-equal", "report", "tasks"],
)
def test_a_closed_pipe_does_not_change_the_exit_status(argv: list[str], status: int) -> None:
    """``inspector diff A B | head`` exits as ``inspector diff A B`` does, without a traceback."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte is written
    try:
        done = inspector(*argv, stdout=write, capture_output=False, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert done.returncode == status
    assert done.stderr == ""
