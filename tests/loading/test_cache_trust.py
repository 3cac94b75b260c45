"""The store trusts only its owner, and each of its files its checksum.

A cache answers with numbers the inspector prints as the run's: an entry in a folder
another user owns or can write is that user's numbers. Such a cache is not used (one line
on stderr names the folder) and the run is read from its files; an entry whose content
does not match its checksum is a miss.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from inspector.loading import remote, store
from inspector.results.problems import RunReadError
from tests.conftest import ROOT
from tests.loading.helpers import copy_run, report_file, run_cli, stored_data, write_data

PLANTED = json.dumps({"planted": 0.9999999999999999})
FOREIGN = 65534  # nobody


@pytest.fixture(autouse=True)
def _warned_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each folder is named once per process; a test's folder may have an earlier one's path."""
    monkeypatch.setattr(store, "_warned", set())


def _plant(run: Path) -> Path:
    """The run's report cache file with every stored report replaced by :data:`PLANTED`,
    a well-formed entry with a valid checksum (what another user would write)."""
    path = report_file(run)
    data = stored_data(path)
    data[2] = {key: [*value[:2], PLANTED, *value[3:]] for key, value in data[2].items()}
    stat = path.stat()
    write_data(path, data)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    return path


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> tuple[Path, str, str]:  # type: ignore[no-untyped-def]
    """A run, its report read from its files (stdout, stderr), and a cache in
    ``tmp_path/shared`` whose report entry was replaced and is used while trusted."""
    run = copy_run(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "shared"))
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    _, out, err = run_cli(["report", str(run), "--json"], capsys)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    assert run_cli(["report", str(run), "--json"], capsys)[1] == out  # fills the cache
    _plant(run)
    assert run_cli(["report", str(run), "--json"], capsys)[1].strip() == PLANTED  # used
    return run, out, err


def _chown_tree(folder: Path, uid: int) -> None:
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, uid, -1, follow_symlinks=False)


def _cache(tmp_path: Path) -> Path:
    return tmp_path / "shared" / "agentcompass-inspector"


def _entry(cache: Path) -> Path:
    """The report cache file (the one run's) in the cache folder."""
    (path,) = (cache / "runs").glob("*/report")
    return path


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="making a folder foreign needs root")

REFUSED: dict[str, tuple[Callable[[Path], Path], bool]] = {
    # how the cache is made untrusted -> (the folder or file named, needs root)
    "another user's cache folder": (
        lambda cache: (_chown_tree(cache, FOREIGN), cache)[1],
        True,
    ),
    "another user's runs folder in the user's": (
        lambda cache: (_chown_tree(cache / "runs", FOREIGN), cache / "runs")[1],
        True,
    ),
    "another user's entry in the user's folder": (
        lambda cache: (_chown_tree(_entry(cache), FOREIGN), _entry(cache))[1],
        True,
    ),
    "the user's cache folder, writable by the group": (
        lambda cache: (cache.chmod(0o775), cache)[1],
        False,
    ),
    "the user's runs folder, writable by all": (
        lambda cache: ((cache / "runs").chmod(0o777), cache / "runs")[1],
        False,
    ),
    "the user's entry, writable by all": (
        lambda cache: (_entry(cache).chmod(0o666), _entry(cache))[1],
        False,
    ),
}


@pytest.mark.parametrize("how", sorted(REFUSED))
def test_a_planted_entry_in_an_untrusted_place_is_not_used(
    how: str, planted: tuple[Path, str, str], tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    make_untrusted, root_only = REFUSED[how]
    if root_only and os.geteuid() != 0:
        pytest.skip("making a folder or file foreign needs root")
    run, out, err = planted
    named = make_untrusted(_cache(tmp_path))
    code, again, again_err = run_cli(["report", str(run), "--json"], capsys)
    assert (code, again) == (0, out)
    new = [line for line in again_err.splitlines() if line not in err.splitlines()]
    assert len(new) == 1, again_err
    assert str(named) in new[0] and "not used" in new[0] and new[0].startswith("inspector: ")


def test_an_entry_whose_checksum_does_not_match_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    """The entry keeps its shape (valid msgpack, the right structure) but its content
    no longer matches the checksum stored with it: the run is read from its files."""
    run = copy_run(tmp_path)
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    _, out, err = run_cli(["report", str(run), "--json"], capsys)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    run_cli(["report", str(run), "--json"], capsys)
    path = report_file(run)
    digest = path.read_bytes()[-store.DIGEST :]
    _plant(run)
    opened = store.checked_record(path)  # well-formed, its checksum its own
    assert opened is not None
    opened[0].close()
    raw = path.read_bytes()
    path.write_bytes(raw[: -store.DIGEST] + digest)  # the old checksum, the new content
    assert store.checked_record(path) is None
    assert run_cli(["report", str(run), "--json"], capsys) == (0, out, err)


def test_cache_files_are_private_to_the_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    """Folders the inspector makes are 0700 and its files 0600, whatever the umask."""
    run = copy_run(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "shared"))
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    old = os.umask(0o002)  # a user-private-group umask: new folders would be 0775
    try:
        run_cli(["report", str(run), "--json"], capsys)
    finally:
        os.umask(old)
    cache = _cache(tmp_path)
    modes = {p.relative_to(cache).as_posix(): p.stat().st_mode & 0o777 for p in cache.rglob("*")}
    assert modes and cache.stat().st_mode & 0o777 == 0o700
    assert all(
        mode == (0o700 if (cache / name).is_dir() else 0o600) for name, mode in modes.items()
    )
    assert run_cli(["report", str(run), "--json"], capsys)[2] == ""  # used: no warning


@needs_root
def test_no_mirror_in_another_users_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    """A remote run's mirror is read as the run: it is never kept where another user can
    write; the URL is refused with a reason, the folder named on stderr."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "shared"))
    folder = _cache(tmp_path) / "remote"
    folder.mkdir(parents=True)
    _chown_tree(_cache(tmp_path), FOREIGN)
    with pytest.raises(RunReadError, match="not only yours"):
        remote.mirrors_dir("s3://bucket/run")
    assert str(_cache(tmp_path)) in capsys.readouterr().err


def test_worker_processes_do_not_repeat_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``check ROOT --cached`` checks runs in worker processes: the cache folder is named
    once, by the command, not once more by each worker."""
    root = tmp_path / "root"
    root.mkdir()
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        copy_run(tmp_path / name).rename(root / name)
    cache = _cache(tmp_path)
    (cache / "runs").mkdir(parents=True)
    cache.chmod(0o777)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "XDG_CACHE_HOME": str(tmp_path / "shared"),
        "INSPECTOR_WORKERS": "2",
        "INSPECTOR_CACHE": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "check", str(root), "--cached"],
        env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("not used") == 1, done.stderr
    assert f"cache folder {cache} not used" in done.stderr
