"""Text from result files never becomes a GitHub Actions workflow command (issue 48, item 5).

The runner reads each line of a step's stdout and stderr (a line ends at ``\\n``, ``\\r`` or
``\\r\\n``, as .NET's ``ReadLine``) and runs ``::command::data`` at its start (after white
space) or the legacy ``##[command]data`` anywhere in it, unless a ``::stop-commands::TOKEN``
line came before and ``::TOKEN::`` has not yet ended it (actions/runner,
``ActionCommandManager.TryProcessCommand``). :class:`Runner` below does what the runner does,
counting every name as a command (the runner knows a few dozen): each text command's stdout,
with task ids ``::error::x`` and ``x\\r::error title=x::y``, an issue message with a carriage
return and run folders named like commands, must run no command but the inspector's own, and
every line of it must be inside a block. stderr lines are never inside a block (the runner
reads stderr and stdout on separate threads): none of them may read as a command at all.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from inspector.cli.main import main
from tests.conftest import FIXTURE_RUNS
from tests.robustness.renamed_tasks import copy_with_task_ids

LINE_BREAK = re.compile(r"\r\n|\r|\n")
OURS = re.compile(r"::stop-commands::[0-9a-f]{32}|::error title=inspector gate%3A .*")
"""The workflow commands the inspector writes itself: its blocks and the gate's annotations."""
TASK_IDS = {
    "taubench_retail_4b4b27df": "::error::x",
    "taubench_telecom_fd442edb": "x\r::error title=x::y",
}
MESSAGE = "boom\r::add-mask::secret ##[warning]legacy"
RUN_A, RUN_B = "::error::run a", "run ##[error]b"


class Runner:
    """GitHub's runner, reading one stream of one step."""

    def __init__(self) -> None:
        self.token: str | None = None
        self.ran: list[str] = []
        """Every workflow command run (the inspector's own included)."""
        self.outside: list[str] = []
        """Every other line read while commands were not stopped."""

    @staticmethod
    def command(line: str) -> tuple[str, str] | None:
        stripped = line.lstrip()
        if stripped.startswith("::") and (end := stripped.find("::", 2)) >= 0:
            return stripped[2:end].split(" ", 1)[0], stripped[end + 2 :]
        if (start := line.find("##[")) >= 0 and (end := line.find("]", start)) >= 0:
            return line[start + 3 : end].split(" ", 1)[0], line[end + 1 :]
        return None

    def read(self, text: str) -> Runner:
        for line in LINE_BREAK.split(text):
            found = self.command(line)
            if self.token is not None:  # stopped: only the token resumes
                if found is not None and found[0].lower() == self.token.lower():
                    self.token = None
                continue
            if found is None:
                if line.strip():
                    self.outside.append(line)
                continue
            self.ran.append(line)
            if found[0].lower() == "stop-commands":
                self.token = found[1]
        return self


def _hostile_run(run: Path, *, flip: bool) -> None:
    def edit(result: dict[str, Any]) -> None:
        if result.get("issues"):
            result["issues"][0]["message"] = MESSAGE
        elif flip:  # run B differs from run A: diff names the task
            result["metrics"]["correct"] = not result["metrics"]["correct"]

    copy_with_task_ids(run, TASK_IDS, edit)
    (run / "details" / "normal" / "::warning::stray ##[error]folder").mkdir()  # a warning


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("workflow") / "root"
    _hostile_run(root / RUN_A, flip=False)
    _hostile_run(root / RUN_B, flip=True)
    return root


def commands(root: Path, out: Path) -> list[list[str]]:
    a, b, r = str(root / RUN_A), str(root / RUN_B), str(root)
    return [
        ["report", a], ["report", a, "--markdown"], ["report", a, "--json"],
        ["check", a], ["check", b], ["check", r], ["check", a, "--format", "json"],
        ["tasks", a], ["tasks", a, "--format", "csv"], ["tasks", a, "--format", "jsonl"],
        ["diff", a, b], ["stats", a], ["stats", r],
        ["leaderboard", r], ["leaderboard", r, "--format", "csv"],
        ["leaderboard", r, "--format", "json"],
        ["items", r], ["items", r, "--format", "csv"], ["items", r, "--format", "json"],
        ["errors", r], ["errors", a, "--against", b], ["errors", r, "--format", "csv"],
        ["errors", r, "--format", "json"],
        ["gate", r], ["gate", r, "--format", "markdown"], ["gate", r, "--format", "json"],
        ["export", a, "--format", "csv", "--out", str(out)],
    ]  # fmt: skip


COUNT = len(commands(Path("r"), Path("o")))


@pytest.mark.parametrize("index", range(COUNT))
def test_every_command_keeps_result_text_inside_a_stop_commands_block(
    index: int,
    root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    argv = commands(root, tmp_path)[index]
    main(argv)
    out, err = capsys.readouterr()
    assert out.strip(), (argv, err)
    stdout = Runner().read(out)
    assert stdout.outside == [], argv  # every line inside a block
    assert [line for line in stdout.ran if not OURS.fullmatch(line)] == [], argv
    assert stdout.token is None, argv  # the block is ended
    assert Runner().read(err).ran == [], argv  # stderr: no command, in or out of a block
    if argv[0] == "gate":  # the gate's annotations still run, after the block
        assert any(line.startswith("::error title=inspector gate") for line in stdout.ran)


def test_result_text_is_in_the_outputs_checked(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The test above sees the hostile texts: the task ids, the message and the folder."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    seen = ""
    for argv in commands(root, tmp_path):
        main(argv)
        out, err = capsys.readouterr()
        seen += out + err
    for text in (*TASK_IDS.values(), MESSAGE, RUN_A, "::warning::stray"):
        assert text in seen or text.replace("\r", "␍") in seen, text


def test_a_stop_token_is_random_per_command(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    tokens = set()
    for _ in range(2):
        main(["tasks", str(root / RUN_A)])
        first = capsys.readouterr().out.splitlines()[0]
        assert re.fullmatch(r"::stop-commands::[0-9a-f]{32}", first)
        tokens.add(first)
    assert len(tokens) == 2


def test_stdout_redirected_to_a_file_is_left_exact(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``report --json > file`` in a workflow is metrics.json byte for byte: no block (the
    file is not the log)."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    run = FIXTURE_RUNS / "k1_micro"
    target = tmp_path / "metrics.json"
    with target.open("w", encoding="utf-8") as handle, monkeypatch.context() as patch:
        patch.setattr(sys, "stdout", handle)
        assert main(["report", str(run), "--json"]) == 0
    assert target.read_bytes() == (run / "metrics.json").read_bytes()


def test_without_github_actions_nothing_is_added(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["report", str(FIXTURE_RUNS / "k1_micro"), "--json"])
    assert (
        capsys.readouterr().out.encode()
        == (FIXTURE_RUNS / "k1_micro" / "metrics.json").read_bytes()
    )


def test_a_stderr_line_never_reads_as_a_command() -> None:
    from inspector.views.visible import inert_in_workflow_log

    for line in ("::error::x", "  ::add-mask::s", "\u3000::error::x", "a ##[warning]b ##[error]c"):
        shown = inert_in_workflow_log(line)
        assert Runner.command(shown) is None, shown
        assert shown.replace("<U+003A>", ":").replace("<U+005B>", "[") == line
    assert inert_in_workflow_log("inspector: warning: a::b") == "inspector: warning: a::b"


def test_a_real_pipe_is_wrapped_and_a_real_file_is_not(root: Path, tmp_path: Path) -> None:
    """What the runner gives a step (a pipe) against ``> file``, through the file descriptor."""
    env = {**os.environ, "GITHUB_ACTIONS": "true"}
    argv = [sys.executable, "-m", "inspector", "tasks", str(root / RUN_A), "--format", "csv"]
    piped = subprocess.run(argv, env=env, stdout=subprocess.PIPE, check=False).stdout.decode()
    assert Runner().read(piped).outside == [] and "::error::x" in piped
    target = tmp_path / "tasks.csv"
    with target.open("wb") as handle:
        subprocess.run(argv, env=env, stdout=handle, check=False)
    filed = target.read_bytes().decode()
    start, inside = piped.split("\n", 1)
    token = start.removeprefix("::stop-commands::")
    assert "stop-commands" not in filed and filed + f"::{token}::\n" == inside
