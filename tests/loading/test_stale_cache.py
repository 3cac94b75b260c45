"""A store that ordinary tools cannot fool.

Each test rewrites one ``attempt-1/result.json`` after the cache was filled, keeping what
the old cache key looked at (size and modification time) — the way AgentCompass writes
(temp file + ``os.replace``), the way ``cp -p`` / ``rsync -a`` / a backup restore write, and
within one time stamp tick of the read — and checks that ``report``, ``check`` and the
app's reload show the new numbers, as a read without any cache does.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from inspector.app.app import InspectorApp
from tests.app.helpers import pilot_test, settle
from tests.loading.helpers import (
    copy_preserving,
    copy_run,
    first_result,
    flipped_same_size,
    replace_keeping_mtime,
    run_cli,
)

COMMANDS = (["report", "--json"], ["report", "--markdown"], ["check"], ["check", "--cached"])


def answers(run: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[int, str, str]]:
    out = []
    for command in COMMANDS:
        code, stdout, stderr = run_cli([command[0], str(run), *command[1:]], capsys)
        if command[-1] == "--cached":  # its first line says what the cache gave
            stdout = stdout.partition("\n")[2]
        out.append((code, stdout, stderr))
    return out


def uncached(run: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> list:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    try:
        return answers(run, capsys)
    finally:
        monkeypatch.setenv("INSPECTOR_CACHE", "1")


@pytest.mark.parametrize("rewrite", ["os.replace", "cp -p"])
def test_same_size_rewrite_with_the_old_mtime_is_seen(
    rewrite: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    run = copy_run(tmp_path)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    before = answers(run, capsys)  # fills both caches
    assert answers(run, capsys) == before

    result = first_result(run)
    data = flipped_same_size(result)
    if rewrite == "os.replace":
        replace_keeping_mtime(result, data)
    else:
        copy_preserving(result, data, tmp_path)
    expected = uncached(run, monkeypatch, capsys)
    assert expected[0][1] != before[0][1], "the rewrite must change the report"
    assert answers(run, capsys) == expected


def _coarse(info: os.stat_result) -> os.stat_result:
    """``info`` as a file system with whole-second time stamps reports it."""
    fields = {
        name: getattr(info, name) // 10**9 * 10**9
        for name in ("st_atime_ns", "st_mtime_ns", "st_ctime_ns")
    }
    fields.update({name[:-3]: float(value // 10**9) for name, value in fields.items()})
    return os.stat_result(tuple(info[:10]), fields)


def test_rewrite_within_one_time_stamp_tick_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    """On a file system with whole-second stamps, a same-size rewrite in place within the
    second of the read leaves every part of the key unchanged (inode, size, mtime, ctime):
    only the racy-file rule (not caching what was stamped as it was read) catches it."""
    run = copy_run(tmp_path)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    for name in ("lstat", "fstat", "stat"):
        real = getattr(os, name)
        monkeypatch.setattr(
            os,
            name,
            lambda *a, _real=real, **k: _coarse(_real(*a, **k)),  # type: ignore[misc]
        )
    result = first_result(run)
    data = flipped_same_size(result)
    original = result.read_bytes()
    for _ in range(5):
        while time.time() % 1 > 0.3:  # start early in a second
            time.sleep(0.02)
        second = time.time() // 1
        with open(result, "r+b") as handle:  # the file as AgentCompass left it, just now
            handle.write(original)
        key = _key(result)
        answers(run, capsys)  # read and cached, in the same second
        with open(result, "r+b") as handle:
            handle.write(data)
        if time.time() // 1 == second and _key(result) == key:
            break
    else:
        pytest.skip("the machine was too slow to stay within one second")
    expected = uncached(run, monkeypatch, capsys)
    assert answers(run, capsys) == expected


def _key(path: Path) -> tuple[int, ...]:
    info = os.lstat(path)
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _headline(app: InspectorApp) -> str:
    session = app.session
    assert session is not None and session.recomputation is not None
    return session.metrics_json()


@pilot_test
async def test_the_apps_reload_shows_the_rewrite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = copy_run(tmp_path)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    for _ in range(2):  # the second open comes from the cache
        app = InspectorApp([run])
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            before = _headline(app)
    result = first_result(run)
    app = InspectorApp([run])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert _headline(app) == before
        replace_keeping_mtime(result, flipped_same_size(result))
        await pilot.press("r")
        await settle(pilot)
        after = _headline(app)
    from inspector.results.reader import read_run
    from inspector.session import score_run

    assert after == score_run(read_run(run)).metrics_json() != before


def test_a_signature_is_racy_exactly_when_one_of_its_files_is() -> None:
    """The folder-wide answer (one look at the newest stamp for an old folder) is the
    answer file by file, for stamps on both sides of each granularity, whole seconds
    (coarse file systems) and not."""
    from inspector.loading import index, store

    fence = 1_700_000_000_000_000_000 + 123_456_789
    offsets = [
        -10 * store.COARSE_GRANULARITY_NS,
        -store.COARSE_GRANULARITY_NS - 1,
        -store.COARSE_GRANULARITY_NS,
        -store.COARSE_GRANULARITY_NS + 1,
        -store.FINE_GRANULARITY_NS - 1,
        -store.FINE_GRANULARITY_NS,
        -1,
        0,
        5,
    ]
    stamps = sorted(
        {fence + offset for offset in offsets}
        | {(fence + offset) // 1_000_000_000 * 1_000_000_000 for offset in offsets}
    )
    for mtime in stamps:
        for ctime in stamps:
            old = ("old", 1, 2, 0o100644, 10, stamps[0], stamps[0])
            new = ("new", 1, 3, 0o100644, 10, mtime, ctime)
            for sig in ((new,), (old, new), (new, old)):
                expected = any(store.is_racy(item[1:], fence) for item in sig)
                packed = index.pack(item[1:] for item in sig)
                assert packed is not None and index.racy(packed, fence) is expected, (mtime, ctime)
