"""Store files are only ever a faster way to the same answer.

A store file of another version or shape — valid msgpack holding other structures, or
records with the wrong types — is a miss, checked before use: never an exception, never
a made-up task problem. A cache that cannot be written leaves nothing behind, and nothing
is cached when there is no user cache folder.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.loading import store
from tests.loading.helpers import (
    copy_run,
    report_file,
    run_cli,
    stored_data,
    task_store_data,
    task_store_file,
    write_data,
    write_task_store,
)

COMMANDS = (["report", "--json"], ["report", "--markdown"], ["check", "--cached"], ["tasks"])


def outputs(run: Path, capsys) -> list[tuple[int, str, str]]:  # type: ignore[no-untyped-def]
    out = []
    for command in COMMANDS:
        code, stdout, stderr = run_cli([command[0], str(run), *command[1:]], capsys)
        if command[-1] == "--cached":
            stdout = stdout.partition("\n")[2]
        out.append((code, stdout, stderr))
    return out


def _task_entries(data: Any, change) -> Any:  # type: ignore[no-untyped-def]
    root, entries = data
    first = sorted(entries)[0]
    files, where, entry = entries[first]
    entries = dict(entries)
    entries[first] = [*change(files, where, list(entry))]
    return [root, entries]


def _wrong_status_type(files, where, entry):  # type: ignore[no-untyped-def]
    entry[4][4][0][1] = 7  # an attempt's status: an int, not a string
    return (files, where, entry)


def _fake_problem(files, where, entry):  # type: ignore[no-untyped-def]
    entry[7] = [[1, 2, 3, 4]]  # a "problem" of numbers
    return (files, where, entry)


def _short_entry(files, where, entry):  # type: ignore[no-untyped-def]
    return (files, where, entry[:3])


def _bad_signature(files, where, entry):  # type: ignore[no-untyped-def]
    return ([["x", "y"]], where, entry)


TASK_CACHE_DAMAGE = {
    "another structure": lambda data: [1, 2, 3],
    "entries not a mapping": lambda data: [data[0], [["a", "b"]]],
    "wrong types in a record": lambda data: _task_entries(data, _wrong_status_type),
    "a problem of the wrong types": lambda data: _task_entries(data, _fake_problem),
    "a short entry": lambda data: _task_entries(data, _short_entry),
    "a malformed signature": lambda data: _task_entries(data, _bad_signature),
}
REPORT_CACHE_DAMAGE = {
    "another structure": lambda data: {"a": 1},
    "a snapshot of other shape": lambda data: [data[0], [b"x", [1, 2], [1, 2, 3]], *data[2:]],
    "attempts of other types": lambda data: [
        data[0],
        [data[1][0], ["x"] * len(data[1][1]), data[1][2]],
        *data[2:],
    ],
    "outputs of other types": lambda data: [
        *data[:2],
        {key: [1, 2, 3, 4, 5, 6] for key in data[2]},
        *data[3:],
    ],
    "outputs that are not a mapping": lambda data: [*data[:2], [1], *data[3:]],
}


@pytest.mark.parametrize("damage", sorted(TASK_CACHE_DAMAGE))
def test_a_malformed_task_cache_is_a_miss(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    run = copy_run(tmp_path)
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    expected = outputs(run, capsys)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    assert outputs(run, capsys) == expected  # fills the caches
    path = task_store_file(run)
    write_task_store(path, TASK_CACHE_DAMAGE[damage](task_store_data(path)))
    report_file(run).unlink()  # the task store is what answers now
    assert outputs(run, capsys) == expected


@pytest.mark.parametrize("damage", sorted(REPORT_CACHE_DAMAGE))
def test_a_malformed_report_cache_is_a_miss(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    run = copy_run(tmp_path)
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    expected = outputs(run, capsys)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    assert outputs(run, capsys) == expected
    path = report_file(run)
    write_data(path, REPORT_CACHE_DAMAGE[damage](stored_data(path)))
    assert outputs(run, capsys) == expected


INDEX_DAMAGE = ("a snapshot of other shape", "attempts of other types")
APP_PREVIEW_DAMAGE = {
    **REPORT_CACHE_DAMAGE,
    "another run": lambda data: ["/elsewhere", *data[1:]],
}


@pytest.fixture
def in_app() -> Iterator[None]:
    """Reads in between are the app's (its shared readers, the preview first)."""
    from inspector import loading

    loading.start_app()
    yield
    loading.stop_app()


@pytest.mark.parametrize("damage", [*sorted(APP_PREVIEW_DAMAGE), "another code signature"])
def test_a_malformed_report_cache_gives_the_app_no_preview(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_app: None
) -> None:
    """The app's first preview is taken without checking the run's files; a cache file
    of another version, code or shape still gives none (and no error), and the run is read.
    The preview reads the file's head only: a damaged index is found by the check."""
    from inspector import loading

    run = copy_run(tmp_path)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    first = loading.read(run, preview=True)
    assert isinstance(first, loading.Loaded)
    path = report_file(run)
    data = stored_data(path)
    shown: list[Any] = []
    preview = loading.read(run, preview=True, on_event=shown.append)
    assert isinstance(preview, loading.Loaded)
    # Undamaged, the store gives the app its first preview unchecked.
    assert any(isinstance(e, loading.CachedReport) and not e.checked for e in shown)
    if damage == "another code signature":
        write_data(path, data, signature="other code")
    else:
        write_data(path, APP_PREVIEW_DAMAGE[damage](data))
    events: list[Any] = []
    again = loading.read(run, preview=True, on_event=events.append)
    cached = [event for event in events if isinstance(event, loading.CachedReport)]
    if damage in INDEX_DAMAGE:  # the preview reads the file's head, not its index: the
        # check finds the damage (the preview said outdated, never confirmed)
        assert not any(event.checked for event in cached)
        assert any(isinstance(event, loading.Outdated) for event in events)
    else:
        assert cached == []
    assert isinstance(again, loading.Loaded)
    assert again.session.metrics_json() == first.session.metrics_json()


def _cache_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_a_cache_that_cannot_be_written_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    """A full disk: writing fails half way; the temporary files are removed."""
    run = copy_run(tmp_path)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    real_fdopen = store.os.fdopen

    class FullDisk:
        def __init__(self, handle: Any) -> None:
            self.handle = handle

        def __enter__(self) -> FullDisk:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

        def write(self, data: bytes) -> int:
            self.handle.write(data[:7])
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store.os, "fdopen", lambda fd, mode: FullDisk(real_fdopen(fd, mode)))
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    expected = outputs(run, capsys)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    assert outputs(run, capsys) == expected
    assert _cache_files(tmp_path / "cache") == []


def test_a_read_only_cache_folder_is_no_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    """The cache folder's place is a file: nothing can be created there (also as root)."""
    run = copy_run(tmp_path)
    blocker = tmp_path / "cache"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    expected = outputs(run, capsys)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    assert outputs(run, capsys) == expected
    assert blocker.read_text() == "not a folder"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "run"]


@pytest.mark.parametrize("xdg", [None, "", "relative/cache"])
def test_no_home_means_no_cache(
    xdg: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    """``HOME=''`` and no (absolute) ``XDG_CACHE_HOME``: nothing is cached anywhere,
    neither under ``/.cache`` nor under the current folder."""
    run = copy_run(tmp_path)
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", "")
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    root_cache = Path("/.cache/agentcompass-inspector")
    before = _cache_files(root_cache)
    first = outputs(run, capsys)
    assert outputs(run, capsys) == first
    assert not store.enabled()
    assert _cache_files(root_cache) == before
    assert list(work.rglob("*")) == []
