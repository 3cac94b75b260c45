"""``inspector stats ROOT``: the statistics of every run under a results root, in one process.

Each run is read through the loading door (:func:`inspector.answers.run.load_session`, as
``inspector stats RUN`` reads it) one after the other, so that the intervals of many runs can
be audited at once. JSON shape: a list, by path, of ``{"run": <path under the root>,
"series": [... as ``stats RUN --format json`` ...]}``, or ``{"run", "problem"}`` for a run
that cannot be read or scored (the one-line reason, naming the file). Table and Markdown:
each run's tables under its path. Exit 0 when every run had statistics, 2 when any had a
problem (as ``check ROOT`` exits 2 when any run is unusable).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

from inspector.answers.run import Unusable, load_session, say_on_stderr, say_root
from inspector.cli.common import ALL_SERIES, EXIT_OK, EXIT_UNUSABLE, overrides_from
from inspector.cli.tables import line
from inspector.engine import strict_json
from inspector.engine.errors import EngineError, HierarchyError
from inspector.engine.recomputation import Recomputation
from inspector.results.problems import RunReadError
from inspector.results.root_walk import walk_root
from inspector.views.run_stats import RunStats, run_stats
from inspector.views.visible import visible


def cmd_stats_root(
    args: argparse.Namespace,
    stats_json: Callable[[Recomputation, RunStats], dict[str, Any]],
    write_stats: Callable[..., None],
) -> int:
    """Every run under ``args.path``, written by ``stats RUN``'s own ``stats_json`` and
    ``write_stats`` (passed in: this module does not import the command's)."""
    try:
        walk = walk_root(args.path)
    except RunReadError as exc:
        raise Unusable(str(exc)) from None
    for link in walk.link_lines(args.path):
        say_root(link)
    runs = walk.runs
    if not runs and not walk.unreadable:
        raise Unusable(f"{args.path}: no runs here (a run has run_info.json or a details/ folder)")
    overrides = overrides_from(args)
    as_json = args.format == "json"
    answers: list[dict[str, Any]] = []
    problems = 0
    for index, (path, relative) in enumerate(runs):

        def say(line: str, path: str = str(path), relative: str = relative) -> None:
            say_on_stderr(_under_root(line, path, relative))

        try:
            session = load_session(str(path), overrides, say=say)
            rec = session.recomputation
            assert rec is not None
            ids = None if args.series == ALL_SERIES else [args.series]
            result: RunStats | str = run_stats(rec, series_ids=ids, confidence=args.confidence)
        except (Unusable, EngineError, HierarchyError) as exc:
            result = _under_root(str(exc), str(path), relative)
        except Exception as exc:  # never a traceback for one bad run, as check ROOT
            if os.environ.get("INSPECTOR_DEBUG"):
                raise
            result = f"{relative}: {type(exc).__name__}: {exc}"
        if isinstance(result, str):
            problems += 1
            answers.append({"run": relative, "problem": result})
            if not as_json:
                sys.stdout.write(("\n" if index else "") + visible(f"{relative}: {result}") + "\n")
            continue
        if as_json:
            answers.append({"run": relative, "series": stats_json(rec, result)["series"]})
        else:
            markdown = args.format == "markdown"
            h = "# " if markdown else "== "
            said = line(relative, markdown=markdown)
            sys.stdout.write(("\n" if index else "") + f"{h}{said}\n\n")
            write_stats(sys.stdout, rec, result, markdown=args.format == "markdown")
    lines = walk.unreadable_lines()
    for index, ((relative, _), problem) in enumerate(zip(walk.unreadable, lines, strict=True)):
        problems += 1  # its runs are not known: as a run that cannot be read
        answers.append({"run": relative, "problem": problem})
        if not as_json:
            sys.stdout.write(("\n" if runs or index else "") + visible(problem) + "\n")
    if as_json:
        text = strict_json.dumps(answers, indent=2, ensure_ascii=False, sort_keys=True)
        sys.stdout.write(text + "\n")
    return EXIT_UNUSABLE if problems else EXIT_OK


def _under_root(text: str, path: str, relative: str) -> str:
    """A message naming the run's files under the root (as check ROOT names them)."""
    return relative + text[len(path) :] if text.startswith(path) else text
