"""The gate against results and paths an attacker chose (issue 48): it writes nothing where
results live, never blocks on an output or a policy that is not a regular file, and reads a
policy file as every file a user hands in; each refusal one line naming the path given."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.gate_policy import PolicyError, parse_policy
from tests.conftest import conformance_run

RUN = "e2e_k1_micro"
MAX_SCOPES = 1000
"""The most ``[[scope]]`` tables a policy may have (docs/commands.md, the gate's policy)."""


def tree_hashes(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (links not followed) and its SHA-256."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    results = tmp_path / "results"
    shutil.copytree(conformance_run(RUN), results / RUN)
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return results


def one_line(err: str) -> str:
    """The one line of an error on stderr (a workflow command around it aside)."""
    lines = [line for line in err.splitlines() if not line.startswith("::")]
    assert len(lines) == 1, err
    return lines[0]


def gate(args: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``inspector gate`` in a process of its own: a write that blocks fails by the timeout."""
    return subprocess.run(
        [sys.executable, "-m", "inspector", "gate", *args],
        capture_output=True, text=True, timeout=timeout, cwd=os.getcwd(), env=os.environ.copy(),
    )  # fmt: skip


@pytest.mark.parametrize("via", ["the file", "a link beside the results"])
def test_the_step_summary_is_never_written_into_a_run(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], via: str,
) -> None:  # fmt: skip
    metrics = root / RUN / "metrics.json"
    summary = metrics
    if via != "the file":
        summary = tmp_path / "summary.md"
        summary.symlink_to(metrics)
    before = tree_hashes(root)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code = main(["gate", str(root)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert one_line(err).startswith(f"inspector: {summary}: inside the results at {root}: ")
    assert tree_hashes(root) == before
    # and the next gate finds the run as it was (usable)
    monkeypatch.delenv("GITHUB_ACTIONS")
    assert main(["gate", str(root)]) == 1
    assert "0 unusable" in capsys.readouterr().out


def test_junit_through_a_link_into_a_run_is_refused(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "report.xml"
    link.symlink_to(root / RUN / "run_info.json")
    before = tree_hashes(root)
    code = main(["gate", str(root), "--junit", str(link)])
    assert code == 2
    assert one_line(capsys.readouterr().err).startswith(f"inspector: {link}: inside the results")
    assert tree_hashes(root) == before


def special_outputs(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    return {
        "fifo": (fifo, "a FIFO"),
        "device": (Path("/dev/full"), "a character device"),
        "folder": (folder, "a directory"),
    }


@pytest.mark.parametrize("output", ["--junit", "GITHUB_STEP_SUMMARY"])
@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_an_output_that_is_not_a_regular_file_is_refused_before_the_gate(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output: str, kind: str
) -> None:
    """A FIFO without a reader blocked the gate after it had finished; /dev/full and a
    folder failed only after every run was checked."""
    path, what = special_outputs(tmp_path)[kind]
    args = [str(root)]
    if output == "--junit":
        args += ["--junit", str(path)]
    else:
        monkeypatch.setenv("GITHUB_ACTIONS", "true")
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(path))
    done = gate(args)
    assert done.returncode == 2 and done.stdout == ""  # refused before any run is read
    assert one_line(done.stderr) == (
        f"inspector: {path}: {what}, not a regular file: the inspector writes only regular files"
    )


def test_the_step_summary_is_appended_to_and_keeps_its_permissions(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    summary.chmod(0o640)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["gate", str(root)]) == 1
    assert summary.read_text(encoding="utf-8").startswith("earlier step\n## inspector gate\n")
    assert summary.stat().st_mode & 0o777 == 0o640


# The policy: from the person running the gate, read as every user file.


@pytest.fixture
def policies(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Policy files that are not policies, and the words saying why."""
    fifo = tmp_path / "policy.fifo"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.toml"
    with huge.open("wb") as handle:  # 300 MB, sparse: nothing is written
        handle.truncate(300 * 1024**2)
    nested = tmp_path / "nested.toml"
    nested.write_text("series = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'series = "caf\xe9"\n')
    scopes = tmp_path / "scopes.toml"
    scopes.write_text("[[scope]]\n" * 50_000, encoding="utf-8")  # 500 kB
    return {
        "fifo": (fifo, "cannot read the policy file: policy.fifo is a FIFO, not a file"),
        "device": (Path("/dev/zero"), "cannot read the policy file: zero is a character device"),
        "huge": (huge, "cannot read the policy file: larger than 1 MiB"),
        "nested": (nested, "not a TOML file: nested too deeply to parse"),
        "not utf-8": (
            latin,
            "cannot read the policy file: not valid UTF-8 (byte 0xe9 at offset 13)",
        ),
        "scopes": (scopes, f"50,000 [[scope]] tables; a policy may have at most {MAX_SCOPES:,}"),
    }


@pytest.mark.parametrize("kind", ["fifo", "device", "huge", "nested", "not utf-8", "scopes"])
def test_a_policy_file_that_cannot_be_one_is_refused_at_once_naming_it(
    root: Path, policies: dict[str, tuple[Path, str]], kind: str
) -> None:
    """A FIFO hung, /dev/zero read until MemoryError, 300 MB were read whole, deep nesting
    reported a RecursionError naming the run, 50,000 scopes took 19 s to pass."""
    path, words = policies[kind]
    started = time.monotonic()
    done = gate([str(root), "--policy", str(path)], timeout=30)
    assert done.returncode == 2 and done.stdout == ""
    assert one_line(done.stderr).startswith(f"inspector: {path}: {words}")
    assert time.monotonic() - started < 10


def test_a_policy_may_have_up_to_the_limit_of_scopes() -> None:
    scope = '[[scope]]\nbenchmark = "b*"\nmax_error_rate = 0.5\n'
    assert len(parse_policy(scope * MAX_SCOPES, "p.toml").scopes) == MAX_SCOPES + 1
    with pytest.raises(PolicyError) as caught:
        parse_policy(scope * (MAX_SCOPES + 1), "p.toml")
    assert str(caught.value) == "p.toml: 1,001 [[scope]] tables; a policy may have at most 1,000"


def test_a_series_glob_matching_nothing_fails_the_gate(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "typo.toml"
    policy.write_text('series = "corect.*"\nmax_error_rate = 0.5\n', encoding="utf-8")
    assert main(["gate", str(root), "--policy", str(policy)]) == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        f"FAIL {RUN}: series 'corect.*': max_error_rate: matched nothing (the run's series: "
        "correct.native@1); limit: 0.5"
    )
