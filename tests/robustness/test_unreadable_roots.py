"""Nothing unreadable passes (issue 48, item 2): a folder of a root that cannot be read is
named by every command over the root, and unusable for ``check ROOT`` and the gate; a
directory link out of a root is not followed (a link to ``/`` costs nothing) and is named
once; a loop of links costs nothing.

The unreadable folder is tried as an unprivileged user: tests here run as root, which reads
every folder whatever its mode, so the command runs in a forked child that drops to
``nobody`` (uid 65534) first; as any other user the folder's mode is enough.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.results.root_walk import walk_root
from tests.conftest import FIXTURE_RUNS

NOBODY = 65534
CANNOT_DROP = 77  # the child could not become another user


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A folder under /tmp that ``nobody`` may enter (pytest's own are its owner's only)."""
    folder = Path(tempfile.mkdtemp(prefix="inspector-unreadable-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for path in folder.rglob("*"):  # as an unprivileged owner: enter to remove
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(folder, ignore_errors=True)


def unprivileged(
    command: list[str], home: Path, out: Path, environ: dict[str, str]
) -> tuple[int, str, str]:
    """``inspector COMMAND`` (in-process ``main``) in a forked child that is not root:
    ``(exit code, stdout, stderr)``. As root the child becomes ``nobody``; it cannot import
    what this process has not imported (the interpreter's folder may be root's alone), so
    the caller runs the same command here first."""
    stdout, stderr = out / "stdout", out / "stderr"
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 70
        try:
            with stdout.open("w") as sys.stdout, stderr.open("w") as sys.stderr:
                try:
                    if os.geteuid() == 0:
                        os.setgroups([])
                        os.setgid(NOBODY)
                        os.setuid(NOBODY)
                except OSError:
                    os._exit(CANNOT_DROP)
                os.environ.update(environ, HOME=str(home), XDG_CACHE_HOME=str(home / "cache"))
                try:
                    code = main(command)
                except BaseException:
                    traceback.print_exc()
                    code = 71
                sys.stdout.flush()
                sys.stderr.flush()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code == CANNOT_DROP:
        pytest.skip("running as root, and cannot become another user (no CAP_SETUID)")
    return code, stdout.read_text(encoding="utf-8"), stderr.read_text(encoding="utf-8")


def hide(folder: Path) -> None:
    """Make ``folder`` unreadable to the unprivileged child: root's own, for root alone."""
    folder.chmod(0o700 if os.geteuid() == 0 else 0)


@pytest.fixture
def root_with_a_hidden_failure(
    shared_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., tuple[int, str, str]]:
    """A root holding a passing run (``ok``) and a failing one inside ``secret/``, which the
    unprivileged user cannot list; returns ``run(command)`` for a command over the root
    (``under``: over a folder of it instead; ``hidden``: the folder hidden, under the root)."""
    root = shared_tmp / "root"
    shutil.copytree(FIXTURE_RUNS / "compare_a", root / "ok")  # passes the default gate
    shutil.copytree(FIXTURE_RUNS / "k3_pass", root / "secret" / "failing")  # fails it
    home = shared_tmp / "home"
    home.mkdir(mode=0o777)
    home.chmod(0o777)
    out = shared_tmp / "out"
    out.mkdir()
    # Every command reads both runs here first, in this process (INSPECTOR_WORKERS=1), so
    # the child has every module it needs; the child reads with worker processes.
    monkeypatch.setenv("INSPECTOR_WORKERS", "1")
    warmed: set[str] = set()

    def run(command: list[str], under: str = "", hidden: str = "secret") -> tuple[int, str, str]:
        path = str(root / under) if under else str(root)
        if command[0] not in warmed:
            with contextlib.redirect_stdout(sys.stderr):
                main([*command, str(root)])
            warmed.add(command[0])
        hide(root / hidden)
        try:
            return unprivileged([*command, path], home, out, {"INSPECTOR_WORKERS": "2"})
        finally:
            (root / hidden).chmod(0o755)

    run.root = root  # type: ignore[attr-defined]
    return run


def test_gate_of_a_root_with_an_unreadable_folder_exits_2_naming_it(
    root_with_a_hidden_failure: Callable[[list[str]], tuple[int, str, str]],
) -> None:
    code, out, err = root_with_a_hidden_failure(["gate"])
    assert code == 2, out + err  # was 0: "1 runs: 1 pass"
    assert "unusable: secret: folder cannot be read (permission denied)" in out
    assert "0 fail, 1 unusable" in out.splitlines()[-1]
    code, out, err = root_with_a_hidden_failure(["gate", "--format", "json"])
    assert code == 2 and '"secret: folder cannot be read (permission denied)' in out


def test_check_root_exits_2_naming_the_unreadable_folder(
    root_with_a_hidden_failure: Callable[[list[str]], tuple[int, str, str]],
) -> None:
    code, out, err = root_with_a_hidden_failure(["check"])
    assert code == 2, out + err  # was 0: "1 runs: 1 ok"
    assert out.splitlines()[-1].endswith("1 unusable; unusable: secret")
    code, out, _ = root_with_a_hidden_failure(["stats"])
    assert code == 2 and "secret: folder cannot be read (permission denied)" in out


@pytest.mark.parametrize("command", ["items", "errors", "leaderboard"])
def test_every_command_over_the_root_names_the_unreadable_folder(
    root_with_a_hidden_failure: Callable[[list[str]], tuple[int, str, str]], command: str
) -> None:
    code, out, err = root_with_a_hidden_failure([command])
    assert code == 0, out + err
    (line,) = [line for line in err.splitlines() if "secret" in line]
    assert "secret: folder cannot be read (permission denied)" in line


def test_a_link_to_the_file_system_root_costs_nothing_and_is_named_once(
    shared_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = shared_tmp / "root"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", root / "runs" / "k1_micro")
    (root / "runs" / "everything").symlink_to("/")
    listed: list[str] = []
    real_scandir = os.scandir

    def scandir(path: str | os.PathLike[str] = ".") -> object:
        listed.append(os.fspath(path))
        if len(listed) > 50:  # the old search listed the whole file system
            raise AssertionError(f"listed {len(listed)} folders: {listed[-3:]}")
        return real_scandir(path)

    with monkeypatch.context() as patched:
        patched.setattr(os, "scandir", scandir)
        walk = walk_root(root)
    assert [relative for _, relative in walk.runs] == ["runs/k1_micro"]
    assert len(listed) <= 3  # root and runs/: never / nor anything under it
    assert walk.links == [("runs/everything", "/")]

    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "check", str(root)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert time.monotonic() - started < 30
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "1 run: 1 ok, 0 differs, 0 unusable"
    said = [line for line in done.stderr.splitlines() if "everything" in line]
    assert said == [
        f"inspector: {root}/runs/everything: a link out of the root (to /); not followed"
    ]


def test_a_loop_of_links_through_the_outside_costs_nothing(shared_tmp: Path) -> None:
    root, outside = shared_tmp / "root", shared_tmp / "outside"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", root / "a" / "k1_micro")
    shutil.copytree(FIXTURE_RUNS / "compare_a", outside / "elsewhere")
    (root / "a" / "out").symlink_to(outside)  # out of the root...
    (outside / "back").symlink_to(root)  # ...and back in
    (root / "a" / "again").symlink_to(root / "a")  # a loop inside the root
    (root / "self").symlink_to(root / "self")  # a link to itself (ELOOP)
    walk = walk_root(root)
    # The outside run is not the root's: the old search named it "a/out/elsewhere".
    assert [relative for _, relative in walk.runs] == ["a/k1_micro"]
    assert walk.links == [("a/out", str(outside))]
    assert walk.unreadable == []


def test_a_link_inside_the_root_names_a_run_by_its_own_path(shared_tmp: Path) -> None:
    root = shared_tmp / "root"
    shutil.copytree(FIXTURE_RUNS / "k1_micro", root / "runs" / "k1_micro")
    (root / "latest").symlink_to(root / "runs" / "k1_micro")  # sorts before runs/
    shutil.copytree(FIXTURE_RUNS / "compare_a", root / ".hidden" / "compare_a")
    (root / "shown").symlink_to(root / ".hidden" / "compare_a")  # reached by its link only
    walk = walk_root(root)
    # Old: "latest" (the link, first by name), and runs/k1_micro left out as seen.
    assert [relative for _, relative in walk.runs] == ["runs/k1_micro", "shown"]
    assert walk.links == []


def test_a_root_that_cannot_be_read_is_one_line_naming_it(
    root_with_a_hidden_failure: Callable[..., tuple[int, str, str]],
) -> None:
    code, out, err = root_with_a_hidden_failure(["check"], "secret")
    assert code == 2 and out == "", out + err
    secret = root_with_a_hidden_failure.root / "secret"  # type: ignore[attr-defined]
    # Was "no runs here", as if the folder were empty.
    assert err == f"inspector: {secret}: folder cannot be read (permission denied)\n"


def test_a_run_with_a_folder_that_cannot_be_read_is_unusable_whatever_the_policy(
    root_with_a_hidden_failure: Callable[..., tuple[int, str, str]],
) -> None:
    policy = root_with_a_hidden_failure.root.parent / "policy.toml"  # type: ignore[attr-defined]
    policy.write_text("max_invalidated = 100\n", encoding="utf-8")  # every run passes it
    policy.chmod(0o644)
    hidden = "secret/failing/details/error"  # the failing run's error tasks
    code, out, err = root_with_a_hidden_failure(["gate", "--policy", str(policy)], hidden=hidden)
    assert code == 2, out + err  # was 0: the rest of the run passed, the errors unseen
    assert f"unusable: {hidden}: folder cannot be listed (permission denied)" in out
    code, out, err = root_with_a_hidden_failure(["check"], hidden=hidden)
    assert code == 2, out + err  # was 1: "differs", the recomputation of what was read
    assert "part of the run cannot be read, so it is not checked" in out
    code, out, err = root_with_a_hidden_failure(["check"], "secret/failing", hidden=hidden)
    assert code == 2, out + err  # the run alone as well
    assert err.splitlines()[-1].endswith("part of the run cannot be read, so it is not checked")
