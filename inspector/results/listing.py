"""The task folders of a run, as AgentCompass lists them (spec §1.7), and the run-level
files a report depends on. Light on purpose: reopening an unchanged run needs only this."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, cast

from inspector.results.layout import FINAL_STATES, RUNNING, TASK_STATES, relpath
from inspector.results.problems import RULE_NO_DETAILS, RULE_OLD_FLAT, LoadProblem
from inspector.results.run_files import RunFiles

StateName = Literal["normal", "error", "fatal", "running", "v2"]


RUN_FILES = ("run_info.json", "params.json", "metrics.json", "summary.md")
"""The run-level files a report depends on."""


def running_files(folder: str) -> list[str]:
    """What an unpublished ``running/`` entry is read from (for its problems)."""
    return [folder, f"{folder}/task.json"]


def listing_key(
    candidates: list[tuple[str, StateName]], running: list[str], problems: list[LoadProblem]
) -> tuple[Any, ...]:
    """The task folder listing as comparable data."""
    return (
        tuple(candidates),
        tuple(running),
        tuple((p.path, p.message, p.rule, p.blocking) for p in problems),
    )


def list_task_folders(root: Path) -> tuple[Any, ...]:
    """:func:`listing_key` of a run directory as it is now."""
    problems: list[LoadProblem] = []
    candidates, running = task_folders(RunFiles(root), problems)
    return listing_key(candidates, running, problems)


def task_folders(
    files: RunFiles, problems: list[LoadProblem]
) -> tuple[list[tuple[str, StateName]], list[str]]:
    """Candidates in ``layout.result_files`` order (normal, error, fatal, v2) and running folders."""
    details = "details"
    refused = files.link_load_problem(details, strict=True, blocking=True)
    if refused is not None:
        problems.append(refused)
        return [], []
    names, problem = files.subdirs(details)
    if problem is not None:
        problems.append(problem)
    elif not names and not files.exists(details):
        message = (
            "missing: the run has no details/ folder, so no task results; AgentCompass"
            " reports it as an empty run"
        )
        problems.append(LoadProblem(details, message, RULE_NO_DETAILS, False))
    candidates: list[tuple[str, StateName]] = []
    running: list[str] = []
    # Final states first and running/ last: a task published while we list is then
    # missed (until the next read) rather than seen twice.
    for state in (*FINAL_STATES, RUNNING):
        if state not in names:
            continue
        folder = relpath(details, state)
        refused = files.link_load_problem(folder, strict=True, blocking=True)
        if refused is not None:
            problems.append(refused)
            continue
        children, problem = files.subdirs(folder)
        if problem is not None:
            problems.append(problem)
        # relpath(folder, child), inline: both parts are names, never empty (a call per
        # task folder is a fifth of the listing that a reopen's check starts with).
        prefix = f"{folder}/"
        if state == RUNNING:
            running = [prefix + child for child in children]
        else:
            final = cast(StateName, state)  # one of FINAL_STATES
            candidates.extend([(prefix + child, final) for child in children])
    for name in names:
        if name not in TASK_STATES or files.is_file(relpath(details, name, "task.json")):
            candidates.append((relpath(details, name), "v2"))
    flat = files.files(details, ".json")
    if flat:
        message = f"holds {len(flat)} older flat detail file(s) (*.json); AgentCompass 1.0.1 does not read them"
        problems.append(LoadProblem(details, message, RULE_OLD_FLAT, False))
    return candidates, running


def repr_pieces(listing: Any) -> Iterator[str]:
    """``repr(listing)`` in pieces (a tuple's tuples of 2 items or more taken apart): a
    digest of a large run's listing without its whole repr (100 MB at a million folders)."""
    if type(listing) is not tuple or len(listing) < 2:
        yield repr(listing)
        return
    for number, part in enumerate(listing):
        yield ", " if number else "("
        if type(part) is not tuple or len(part) < 2:
            yield repr(part)
            continue
        for at in range(0, len(part), 4096):
            yield (", " if at else "(") + ", ".join(map(repr, part[at : at + 4096]))
        yield ")"
    yield ")"
