"""What the runs screen shows at once for a root checked before (issue 16): the last check
of a run whose anchor (run-level files, the folders listing its task folders) is unchanged,
marked as cached — and nothing for a run changed in any way the anchor sees."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from inspector.answers.root import check_root
from inspector.loading import many as check_cache
from inspector.loading import store
from inspector.overrides import Overrides
from inspector.views.run_check import RunCheck
from tests.loading.helpers import (
    first_result,
    flipped_same_size,
    settle_time_stamps,
    stored_data,
    write_data,
)
from tests.results_root import MICRO, PASS, make_results_root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = make_results_root(tmp_path)
    settle_time_stamps()
    return root


def kept_checks(root: Path) -> dict[str, RunCheck]:
    """Check every run under ``root`` and keep the checks, as the runs screen does (the
    anchors taken before the checks)."""
    runs = sorted(str(info.parent) for info in root.glob("*/*/run_info.json"))
    _, anchors = check_cache.recall([root], Overrides(), runs)
    checks = {str(root / c.run): c for c in check_root(str(root), Overrides())}
    check_cache.keep([root], Overrides(), checks, anchors)
    return checks


def recalled(root: Path, checks: dict[str, RunCheck]) -> dict[str, RunCheck]:
    return check_cache.recall([root], Overrides(), list(checks))[0]


def test_an_unchanged_root_recalls_every_check_as_it_was(root: Path) -> None:
    checks = kept_checks(root)
    assert len(checks) == 9 and {c.status for c in checks.values()} == {"ok", "differs", "unusable"}
    assert recalled(root, checks) == checks


def rewrite_in_place(path: Path) -> None:
    """Other bytes into the same inode, size and modification time kept."""
    before = path.stat()
    data = path.read_bytes()
    with open(path, "r+b") as handle:
        handle.write(data.replace(b"0", b"1", 1) if b"0" in data else data[::-1])
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def remove_a_task(run: Path) -> None:
    shutil.rmtree(sorted((run / "details" / "normal").iterdir())[0])


def rename_a_task(run: Path) -> None:
    task = sorted((run / "details" / "normal").iterdir())[0]
    os.replace(task, task.with_name(task.name + "x"))


def move_a_task_to_error(run: Path) -> None:
    task = sorted((run / "details" / "normal").iterdir())[0]
    (run / "details" / "error").mkdir(exist_ok=True)
    os.replace(task, run / "details" / "error" / task.name)


def add_a_task(run: Path) -> None:
    task = sorted((run / "details" / "normal").iterdir())[0]
    shutil.copytree(task, run / "details" / "normal" / ".new")
    os.replace(run / "details" / "normal" / ".new", task.with_name(task.name + "copy"))


def replace_run_info(run: Path) -> None:
    info = run / "run_info.json"
    before = info.stat()
    (run / "tmp").write_bytes(info.read_bytes())
    os.replace(run / "tmp", info)
    os.utime(info, ns=(before.st_atime_ns, before.st_mtime_ns))


def add_summary(run: Path) -> None:
    (run / "summary.md").write_text("# edited\n", encoding="utf-8")


EDITS: dict[str, Callable[[Path], None]] = {
    "metrics.json rewritten in place": lambda run: rewrite_in_place(run / "metrics.json"),
    "params.json rewritten in place": lambda run: rewrite_in_place(run / "params.json"),
    "run_info.json replaced, time kept": replace_run_info,
    "summary.md written": add_summary,
    "a task removed": remove_a_task,
    "a task renamed": rename_a_task,
    "a task moved to error/": move_a_task_to_error,
    "a task added (os.replace)": add_a_task,
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_change_the_anchor_sees_shows_no_cached_check(root: Path, edit: str) -> None:
    checks = kept_checks(root)
    EDITS[edit](root / PASS)
    settle_time_stamps()
    again = recalled(root, checks)
    assert str(root / PASS) not in again
    assert again == {path: c for path, c in checks.items() if path != str(root / PASS)}


def test_a_task_file_edited_in_place_is_only_caught_by_the_check(root: Path) -> None:
    """The limit of the anchor, and why a recalled check is only ever shown marked as
    cached until the run is checked again: a result.json rewritten in place (size and
    modification time kept) changes no folder and no run-level file."""
    checks = kept_checks(root)
    result = first_result(root / MICRO)
    data = flipped_same_size(result)
    before = result.stat()
    with open(result, "r+b") as handle:
        handle.write(data)
    os.utime(result, ns=(before.st_atime_ns, before.st_mtime_ns))
    settle_time_stamps()
    assert recalled(root, checks)[str(root / MICRO)] == checks[str(root / MICRO)]
    now = {c.run: c for c in check_root(str(root), Overrides())}
    assert checks[str(root / MICRO)].status == "ok" and now[MICRO].status == "differs"


def test_a_file_written_too_recently_to_tell_is_not_anchored(root: Path) -> None:
    (root / MICRO / "summary.md").write_text("# now\n", encoding="utf-8")
    assert check_cache.anchor(str(root / MICRO)) is None
    checks = kept_checks(root)
    assert str(root / MICRO) not in recalled(root, checks)
    settle_time_stamps()
    assert check_cache.anchor(str(root / MICRO)) is not None


def test_another_plan_or_no_cache_keeps_nothing(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks = kept_checks(root)
    runs = list(checks)
    assert check_cache.recall([root], Overrides(k=1), runs)[0] == {}
    monkeypatch.setenv("INSPECTOR_CACHE", "0")
    assert check_cache.recall([root], Overrides(), runs)[0] == {}


def _entries(change):  # type: ignore[no-untyped-def]
    """A spoiler: each entry of the file changed by ``change``, the file otherwise valid."""

    def spoil(path: Path) -> None:
        (entries,) = stored_data(path)
        write_data(path, [{k: change(v) for k, v in entries.items()}])

    return spoil


def _write(raw: bytes):  # type: ignore[no-untyped-def]
    return lambda path: path.write_bytes(raw)


def _another_version(path: Path) -> None:
    raw = path.read_bytes()
    assert raw.startswith(store.MAGIC)
    path.write_bytes(raw.replace(store.MAGIC, b"inspector-store/0\n", 1))


@pytest.mark.parametrize(
    "spoil",
    [
        _write(b"not msgpack"),
        _another_version,
        lambda path: write_data(path, [["a list"]]),
        _entries(lambda v: [v[0]]),
        _entries(lambda v: [v[0], "{"]),
        _entries(lambda v: [v[0], v[1].replace('"status": "ok"', '"status": "fine"')]),
    ],
    ids=["garbage", "format", "entries", "entry shape", "json", "status word"],
)
def test_a_malformed_cache_file_or_entry_is_a_miss(root: Path, spoil) -> None:  # type: ignore[no-untyped-def]
    checks = kept_checks(root)
    (file,) = Path(os.environ["XDG_CACHE_HOME"]).rglob("*.checks")
    spoil(file)
    again = recalled(root, checks)
    assert all(again[path] == checks[path] for path in again)
    assert not any(c.status == "ok" for c in again.values())
