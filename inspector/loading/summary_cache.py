"""The runs list of a results root, from its run-level files, kept for the next listing
(issue 16).

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
import hashlib
import os
import stat
import time
from pathlib import Path
from typing import Any

from inspector.loading import task_cache
from inspector.loading.cache_files import code_signature
from inspector.results.discover import (
    RunSummary,
    newest_first,
    run_folders,
    summarize_run,
    task_counts,
)
from inspector.results.problems import LoadProblem

FORMAT = 1
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
    if not task_cache.enabled():
        return newest_first([summarize_run(path, relative) for path, relative in folders])
    file = cache_file(Path(root))
    kept = _load(file)
    found: list[RunSummary] = []
    entries: dict[str, Any] = {}
    for path, relative in folders:
        real = os.path.realpath(path)
        fence = time.time_ns()
        keys = _keys(path)
        entry = kept.get(real)
        summary = _summary(path, relative, entry[1]) if entry and entry[0] == keys else None
        if summary is None:
            summary = summarize_run(path, relative)  # read after the keys were taken
            if keys is not None and not any(task_cache.is_racy(key, fence) for key in keys):
                entry = (keys, _data(summary))
            else:
                entry = None
        if entry is not None:
            entries[real] = entry
        found.append(summary)
    if entries != kept:
        task_cache.write_atomically(file, (FORMAT, code_signature(), entries))
    return newest_first(found)


def cache_file(root: Path) -> Path:
    folder = task_cache.cache_dir()
    if folder is None:
        raise OSError("no user cache folder")
    key = hashlib.sha256(os.path.realpath(root).encode("utf-8", "surrogateescape")).hexdigest()
    return folder / f"{key[:32]}.runs.marshal"


def _keys(run: Path) -> tuple[Any, ...] | None:
    """The keys of the four files, None when one cannot be stat'ed or is a link."""
    keys = []
    for name in FILES:
        key = task_cache.stat_or_absent(os.path.join(run, name))
        if key is None or (key != task_cache.ABSENT and stat.S_ISLNK(key[2])):
            return None
        keys.append(key)
    return tuple(keys)


def _data(summary: RunSummary) -> tuple[Any, ...]:
    problems = tuple(dataclasses.astuple(problem) for problem in summary.problems)
    return (tuple(getattr(summary, name) for name in KEPT), problems)


def _summary(path: Path, relative: str, data: Any) -> RunSummary | None:
    """The summary kept in ``data``, its task folders counted now; None when ``data`` does
    not have the shape :func:`_data` gives (a malformed entry is a miss)."""
    try:
        values, problems = data
        fields = dict(zip(KEPT, values, strict=True))
        kept_problems = tuple(LoadProblem(*problem) for problem in problems)
    except (TypeError, ValueError):
        return None
    plain = (str, int, float, bool, type(None))
    if not all(type(value) in plain for value in values) or not all(
        type(problem.path) is str and type(problem.blocking) is bool for problem in kept_problems
    ):
        return None
    return RunSummary(
        path=path,
        relative=relative,
        namespace=path.parent.name or None,
        task_counts=task_counts(path),
        problems=kept_problems,
        **fields,
    )


def _load(file: Path) -> dict[str, Any]:
    data = task_cache.load_marshal(file)
    if type(data) is not tuple or len(data) != 3 or data[:2] != (FORMAT, code_signature()):
        return {}
    entries = data[2]
    return entries if type(entries) is dict else {}
