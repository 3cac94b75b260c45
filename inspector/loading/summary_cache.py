"""The runs list of a results root, from its run-level files, kept for the next listing.

Listing a root reads every run's ``run_info.json`` (which can be large), ``params.json``,
``progress.json`` and ``metrics.json``; the runs screen lists a root every time it opens.
What those four files give (:func:`~inspector.results.discover.summarize_run`, all but the
task counts) is kept in one file per root in the user's cache folder, with each file's key
as git's index keys files (:func:`~inspector.results.file_io.stat_key`, taken before the
file was read) and the inspector's code signature. A run's entry is used only while all four
keys are unchanged; its task folders are counted again each time (a listing, no file read).
A link among the four files, or a file written too recently to tell (racy), is not kept.
Nothing is ever written under a run. ``INSPECTOR_CACHE=0`` disables it with the others.
"""

from __future__ import annotations

import dataclasses
import os
import stat
import time
from pathlib import Path
from typing import Any

from inspector.loading import store
from inspector.loading.records import Summaries, Summary, load_problem, problem_rec
from inspector.results.discover import (
    RunSummary,
    newest_first,
    run_folders,
    summarize_run,
    task_counts,
)

FILES = ("run_info.json", "params.json", "progress.json", "metrics.json")
"""What :func:`~inspector.results.discover.summarize_run` reads."""
KEPT = tuple(
    f.name
    for f in dataclasses.fields(RunSummary)
    if f.name not in ("path", "relative", "namespace", "task_counts", "problems")
)
"""The fields kept as they are (the path-derived ones and the counts are not kept)."""


def find_runs(root: Path | str, folders: list[tuple[Path, str]] | None = None) -> list[RunSummary]:
    """:func:`inspector.results.find_runs`, with the unchanged runs' summaries from the cache
    (``folders``: the run folders when the root was searched already).

    Raises:
        RunReadError: ``root`` is not a readable directory.
    """
    folders = run_folders(root) if folders is None else folders
    if not store.enabled():
        return newest_first([summarize_run(path, relative) for path, relative in folders])
    file = cache_file(Path(root))
    kept = _load(file)
    found: list[RunSummary] = []
    entries: dict[str, Summary] = {}
    for path, relative in folders:
        real = os.path.realpath(path)
        fence = time.time_ns()
        keys = _keys(path)
        entry = kept.get(real)
        summary = _summary(path, relative, entry) if entry and entry.keys == keys else None
        if summary is None:
            summary = summarize_run(path, relative)  # read after the keys were taken
            if keys is not None and not any(store.is_racy(key, fence) for key in keys):
                entry = _record(keys, summary)
            else:
                entry = None
        if entry is not None:
            entries[real] = entry
        found.append(summary)
    if entries != kept:
        store.write_atomically(file, Summaries(entries))
    return newest_first(found)


def cache_file(root: Path) -> Path:
    return store.run_folder(root).with_suffix(".runs")


def _keys(run: Path) -> tuple[Any, ...] | None:
    """The keys of the four files, None when one cannot be stat'ed or is a link."""
    keys = []
    for name in FILES:
        key = store.stat_or_absent(os.path.join(run, name))
        if key is None or (key != store.ABSENT and stat.S_ISLNK(key[2])):
            return None
        keys.append(key)
    return tuple(keys)


def _record(keys: tuple[Any, ...], summary: RunSummary) -> Summary | None:
    try:
        return Summary(
            keys,
            *(getattr(summary, name) for name in KEPT),
            tuple(problem_rec(p) for p in summary.problems),
        )
    except (TypeError, ValueError):
        return None


def _summary(path: Path, relative: str, kept: Summary) -> RunSummary:
    """The summary kept, its task folders counted now."""
    return RunSummary(
        path=path,
        relative=relative,
        namespace=path.parent.name or None,
        task_counts=task_counts(path),
        problems=tuple(load_problem(p) for p in kept.problems),
        **{name: getattr(kept, name) for name in KEPT},
    )


def _load(file: Path) -> dict[str, Any]:
    found = store.load(file, Summaries)
    return found.runs if found is not None else {}
