"""A cache file being written when Ctrl-C comes leaves no temporary file behind (issue 48,
item 8): the KeyboardInterrupt goes on, the half-written ``.tmp`` goes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from inspector.loading import remote, store
from inspector.loading.many import Summaries
from inspector.loading.remote import MirrorIndex


def _interrupt(*args: Any, **kwargs: Any) -> None:
    raise KeyboardInterrupt


def test_a_cache_file_interrupted_while_written_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "replace", _interrupt)  # written whole, not yet in place
    with pytest.raises(KeyboardInterrupt):
        store.write_atomically(tmp_path / "cache" / "entry", Summaries({}))
    assert list((tmp_path / "cache").iterdir()) == []


@pytest.mark.parametrize("step", ["write", "replace"])
def test_a_remote_mirror_interrupted_while_written_leaves_no_temporary_file(
    step: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if step == "write":
        monkeypatch.setattr(store.os, "fdopen", _interrupt)  # the index's bytes, as written
    else:
        monkeypatch.setattr(os, "replace", _interrupt)
    with pytest.raises(KeyboardInterrupt):
        store.write_atomically(tmp_path / "index", MirrorIndex("s3://bucket/root", {}))
    if step == "replace":
        with pytest.raises(KeyboardInterrupt):
            remote._store(tmp_path / "tree", "run/metrics.json", b"{}")
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == []
