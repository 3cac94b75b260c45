"""The snapshot check stats every file relative to the run's folder (one descriptor), or by
its full path when that folder cannot be opened: either way it sees what an ``lstat`` of
the full path sees, in both halves of a check split with a forked child."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from inspector.cli import main as cli
from inspector.loading import index as snapshot
from inspector.loading import reports, store
from tests.conftest import conformance_run
from tests.loading.helpers import replace_keeping_mtime


def _replace_keeping_times(path: Path) -> None:
    """What ``cp -p`` / ``rsync -a`` over the file do: new contents of the same size
    through a temporary file, the old times put back."""
    data = path.read_bytes()
    changed = data.replace(b"1", b"0", 1) if b"1" in data else data.replace(b"0", b"1", 1)
    assert len(changed) == len(data) and changed != data
    replace_keeping_mtime(path, changed)


@pytest.mark.parametrize("opened", [True, False], ids=["relative-to-the-run", "full-paths"])
def test_a_replaced_file_is_seen_through_links_and_a_relative_path(
    opened: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The run given by a relative path through a link: the unchanged run is unchanged,
    and each result.json replaced with the same size and its old times put back is found,
    at its own position, in either half (the first, the middle one, the last)."""
    monkeypatch.setattr(snapshot, "FORK_MIN", 2)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    real = tmp_path / "real"
    shutil.copytree(conformance_run("e2e_k1_micro"), real, symlinks=True)
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    run = Path("link")
    time.sleep(store.FINE_GRANULARITY_NS / 1e9 + 0.01)  # no file racy at the read
    assert cli.main(["report", str(run), "--json"]) == 0
    capsys.readouterr()
    loaded = reports._load(run)
    assert loaded is not None, "the run was not cached"
    snap = loaded.index
    if not opened:
        refused = []

        def refuse(path: object, flags: int, *args: object, **kwargs: object) -> int:
            if flags & os.O_DIRECTORY:
                refused.append(path)
                raise PermissionError(13, "Permission denied", path)
            return original(path, flags, *args, **kwargs)  # type: ignore[arg-type]

        original = os.open
        monkeypatch.setattr(os, "open", refuse)
    found = snapshot.check(run, snap)
    assert found is not None and not found.changed
    every = snapshot.rels(snap, found.listing) or []
    results = [r for r in every if r.endswith("/result.json")]
    targets = [results[0], results[len(results) // 2], results[-1]]
    for count, rel in enumerate(targets, 1):
        _replace_keeping_times(run / rel)
        found = snapshot.check(run, snap)
        assert found is not None
        assert found.changed == {every.index(r) for r in targets[:count]}, rel
    if not opened:
        assert refused, "the run's folder was opened after all"
