"""What the last check of every run on the runs screen found, shown at once the next time
the screen lists them, marked as cached, while every run is checked again (issue 16).

Checking that hundreds of runs are unchanged (one ``lstat`` of every file each report
depends on, :mod:`inspector.loading.snapshot`) takes seconds. Meanwhile the runs screen may
show what the last check found, *marked as cached*, for a run whose **anchor** is unchanged:
the key (as git's index keys files, :func:`~inspector.results.file_io.stat_key`) of each
run-level file and of each folder that lists the task folders (``details/`` and its state
folders). A task added, removed or renamed changes such a folder; a run-level file rewritten
changes its own key. A task file edited in place changes neither — which is why this is only
ever shown marked as cached, and the full check always follows and replaces it. Nothing that
judges a run (``inspector check``, the leaderboard's cells) uses it.

One file per screen (its roots) in the user's cache folder: each run's real path → its
anchor, taken before the check that was made, and that check (as in ``check --format
json``), under the inspector's code signature and the plan's key. An anchor with a time
stamp too recent to tell (racy) is not kept; a malformed file or entry is a miss. Nothing is
ever written under a run. ``INSPECTOR_CACHE=0`` disables it with the other caches.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inspector.loading import store
from inspector.loading.records import Recalled
from inspector.loading.reports import own_plan_key
from inspector.overrides import Overrides
from inspector.results.layout import TASK_STATES
from inspector.results.listing import RUN_FILES
from inspector.views.run_check import RunCheck

ANCHORED = (*RUN_FILES, "details", *(f"details/{state}" for state in TASK_STATES))
"""What an anchor holds the keys of, under the run."""

Anchor = tuple[int, ...]


def anchor(run: str) -> Anchor | None:
    """The anchor of the run at ``run`` now, or None when a file cannot be stat'ed or a
    time stamp is too recent to tell (then nothing is shown or kept for it)."""
    fence = time.time_ns()
    keys: list[int] = []
    for rel in ANCHORED:
        key = store.stat_or_absent(f"{run}/{rel}")
        if key is None or store.is_racy(key, fence):
            return None
        keys += key
    return tuple(keys)


def recall(
    roots: Sequence[Path], overrides: Overrides | None, runs: Sequence[str]
) -> tuple[dict[str, RunCheck], dict[str, Anchor]]:
    """What the last check found for each of ``runs`` (paths as listed) whose anchor is
    unchanged, and every run's anchor now (to :func:`keep` with the checks made next)."""
    anchors = {run: a for run in runs if (a := anchor(run)) is not None}
    entries = _load(roots, overrides)
    found: dict[str, RunCheck] = {}
    for run, now in anchors.items():
        entry = entries.get(os.path.realpath(run))
        if entry is not None and entry[0] == now:
            check = _check(entry[1])
            if check is not None:
                found[run] = check
    return found, anchors


def keep(
    roots: Sequence[Path],
    overrides: Overrides | None,
    checks: Mapping[str, RunCheck],
    anchors: Mapping[str, Anchor],
) -> None:
    """Remember ``checks`` (by run path as listed), each with the anchor taken before it
    was made; runs without an anchor are left out. Never fails."""
    file = _file(roots, overrides)
    if file is None:
        return
    entries = {
        os.path.realpath(run): (anchors[run], json.dumps(check.as_json(), ensure_ascii=False))
        for run, check in checks.items()
        if run in anchors
    }
    store.write_atomically(file, Recalled(entries))


def _check(text: str) -> RunCheck | None:
    try:
        return RunCheck.from_json(json.loads(text))
    except ValueError:
        return None


def _file(roots: Sequence[Path], overrides: Overrides | None) -> Path | None:
    plan = own_plan_key(overrides)
    if plan is None or not store.enabled():
        return None
    names = [os.path.realpath(root) for root in roots] + [plan]
    return store.run_folder(names[0]).with_name(store.name_of(*names) + ".checks")


def _load(roots: Sequence[Path], overrides: Overrides | None) -> dict[str, Any]:
    file = _file(roots, overrides)
    found = store.load(file, Recalled) if file is not None else None
    return found.runs if found is not None else {}
