"""One door: opening a run goes through ``inspector.loading`` only, and the loading
layer's behaviour depends on what its callers say, not on guesses.

The import contracts (pyproject.toml, checked by tests/layers) keep the app, the command
line and the session away from reader processes and caches; this checks the source for
the habits the issue names.
"""

from __future__ import annotations

import re
from pathlib import Path

from inspector import loading
from inspector.loading import door
from tests.conftest import ROOT, conformance_run

PACKAGE = ROOT / "inspector"


def _sources(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(folder.rglob("*.py"))
    }


def test_no_behaviour_depends_on_the_thread_count() -> None:
    found = [name for name, text in _sources(PACKAGE).items() if "active_count" in text]
    assert found == []


def test_no_worker_rewrites_the_environment() -> None:
    """But a reader process takes its pool maker's, whole, as a fork would have given it
    (the fork server's children start with the server's: ``test_reader_environment``)."""
    assignment = re.compile(r"os\.environ(\[[^]]*\]\s*=|\.pop\(|\.update\(|\.setdefault\()")
    found = {
        name: assignment.findall(text)
        for name, text in _sources(PACKAGE).items()
        if assignment.search(text)
    }
    # results_read names what a command reads for the length of the command (its readers
    # inherit it as above) and puts back what was there: the cache is never kept inside it.
    assert found == {
        "inspector/loading/processes.py": [".update("],
        "inspector/loading/store.py": ["[RESULTS_READ] =", ".pop(", "[RESULTS_READ] ="],
    }
    assert "os.environ.update(environ)" in (PACKAGE / "loading" / "processes.py").read_text()


def test_no_module_names_another_by_a_string() -> None:
    """Reader processes preload what the loading package hands them as modules."""
    quoted = re.compile(r"[\"']inspector\.[a-z_.]+[\"']")
    found = {
        name: quoted.findall(text)
        for name, text in _sources(PACKAGE / "loading").items()
        if quoted.search(text)
    }
    assert found == {}


def test_caches_and_processes_live_only_in_loading() -> None:
    used = re.compile(
        r"^\s*(from|import) +(multiprocessing|concurrent|marshal|inspector\.loading\."
        r"(readers|processes|pending|tasks|index|store))|gc\.freeze\(|ProcessPoolExecutor",
        re.MULTILINE,
    )
    found = {
        name: used.findall(text)
        for name, text in _sources(PACKAGE).items()
        if not name.startswith("inspector/loading/") and used.search(text)
    }
    assert found == {}


def test_the_door_reports_its_events_in_order(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import shutil

    run = tmp_path / "run"
    shutil.copytree(conformance_run("e2e_k1_micro"), run)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    events: list[loading.Event] = []
    first = loading.read(run, preview=True, on_event=events.append)
    assert isinstance(first, loading.Loaded) and first.cache_hits == 0
    assert [type(e) for e in events][-1] is loading.Loaded
    assert all(isinstance(e, loading.Progress) for e in events[:-1])
    assert [e.done for e in events[:-1]] == sorted(e.done for e in events[:-1])
    import time

    time.sleep(0.1)  # what was just copied is racy: stamped too close to the read
    loading.read(run)  # kept now
    events.clear()
    again = loading.read(run, preview=True, on_event=events.append)
    assert isinstance(events[0], loading.CachedReport)
    assert isinstance(again, loading.Loaded) and again.cache_hits == len(again.session.run.entries)
    assert events[0].outputs.metrics_json == again.session.metrics_json()
    answer = loading.answer(run)
    assert isinstance(answer, loading.CachedReport)
    assert answer.outputs.metrics_json == again.session.metrics_json()
    failed = loading.read(tmp_path / "nothing")
    assert isinstance(failed, loading.Failed) and "no such directory" in failed.message


def test_the_apps_preview_comes_unchecked_then_checked_or_outdated(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """In the app the cached report comes first without a check of the files, then the
    check's answer: the report again, checked, or Outdated when a file changed (here one
    result.json rewritten with its old modification time put back); the read follows."""
    import os
    import shutil
    import time

    run = tmp_path / "run"
    shutil.copytree(conformance_run("e2e_k1_micro"), run)
    monkeypatch.setenv("INSPECTOR_CACHE", "1")
    monkeypatch.setattr(door, "_in_app", True)  # as loading.start_app() says
    loading.read(run, preview=True)
    time.sleep(0.1)  # what was just copied is racy: stamped too close to the read
    loading.read(run, preview=True)  # kept now
    events: list[loading.Event] = []
    loaded = loading.read(run, preview=True, on_event=events.append)
    first, second = events[:2]
    assert isinstance(first, loading.CachedReport) and not first.checked
    assert isinstance(second, loading.CachedReport) and second.checked
    assert isinstance(loaded, loading.Loaded) and events[-1] is loaded
    assert first.outputs.metrics_json == loaded.session.metrics_json()

    result = sorted(run.glob("details/*/*/attempt-1/result.json"))[0]
    info = result.stat()
    text = result.read_text(encoding="utf-8")
    flipped = (
        text.replace("true", "tru3", 1) if "true" in text else text.replace("false", "fals3", 1)
    )
    assert flipped != text
    result.write_text(flipped, encoding="utf-8")
    os.utime(result, ns=(info.st_atime_ns, info.st_mtime_ns))
    events.clear()
    loaded = loading.read(run, preview=True, on_event=events.append)
    assert isinstance(events[0], loading.CachedReport) and not events[0].checked
    assert isinstance(events[1], loading.Outdated)
    assert not any(isinstance(e, loading.CachedReport) and e.checked for e in events)
    assert isinstance(loaded, loading.Loaded)
