"""``inspector check RUN|ROOT``: exit 0 when the stored metrics.json equals the recomputation,
1 when it differs (and says where), 2 when the run is unusable; a results root checks every
run beneath it (:mod:`inspector.cli.check_root`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from inspector.answers.check import checked, stored_differences
from inspector.answers.run import Unusable, load_outputs, say_on_stderr, warnings_in
from inspector.cli.common import EXIT_DIFFERS, EXIT_OK, add_plan_options, overrides_from
from inspector.cli.output import write_exact
from inspector.engine import strict_json
from inspector.engine.errors import EngineError, HierarchyError
from inspector.engine.vocabulary import plural
from inspector.results.discover import is_run
from inspector.views.differences import SAME_CONTENT, same_content
from inspector.views.run_check import UNUSABLE, RunCheck, single_run_json
from inspector.views.visible import visible


def register(subparsers: Any) -> None:
    """Add ``check`` to the ``inspector`` command."""
    check = subparsers.add_parser(
        "check", help="exit 0 when the stored metrics.json equals the recomputation"
    )
    check.add_argument(
        "path", help="a run directory or its URL, or a results root (every run beneath it)"
    )
    check.add_argument(
        "--cached",
        action="store_true",
        help="let the cache stand in for reading unchanged files (faster; says what it used)",
    )
    check.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="json: one object with path, status (equal / differs / unusable), tasks, "
        "differences (where, stored, recomputed), problem, run, warnings, the recomputed "
        "headline and same_content (true: equal, or only the bytes differ) (a results root: "
        "a list of such objects, without path, saying ok for equal)",
    )
    add_plan_options(check)
    check.set_defaults(func=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    if os.path.isdir(args.path) and not is_run(Path(args.path)):
        # A root's checks (worker pools, the runs list, every run's check): only for a root.
        from inspector.cli.check_root import cmd_check_root

        return cmd_check_root(args, overrides_from(args))
    as_json = getattr(args, "format", "text") == "json"
    said: list[str] = []

    def say(line: str) -> None:  # as ever on stderr; the warnings also in the JSON object
        said.append(line)
        say_on_stderr(line)

    try:
        # check reads what it judges: the cache stands in for reading only with --cached.
        outputs, source = load_outputs(args.path, overrides_from(args), cached=args.cached, say=say)
        if args.cached and not as_json:
            print(f"--cached: from the cache: {source or 'nothing (every file was read)'}")
        differences = stored_differences(args.path, outputs)
    except Exception as exc:  # the object is printed whatever went wrong
        if as_json:
            problem = str(exc) if isinstance(exc, Unusable) else f"{args.path}: {exc}"
            if not isinstance(exc, Unusable | EngineError | HierarchyError):
                problem = f"{args.path}: {type(exc).__name__}: {exc}"
            _write_json(RunCheck(args.path, UNUSABLE, problem=problem, warnings=warnings_in(said)))
        raise
    if as_json:
        _write_json(checked(args.path, differences, outputs, warnings_in(said)))
    elif not differences:
        print(
            f"ok: the stored metrics.json equals the recomputation ({plural(outputs.tasks, 'task')})"
        )
    else:
        print(f"metrics.json differs from the recomputation in {len(differences)} places:")
        for difference in differences:
            print(f"  {visible(difference.line(), one_line=True)}")
        if same_content([d.where for d in differences]):
            print(SAME_CONTENT)
    return EXIT_DIFFERS if differences else EXIT_OK


def _write_json(check: RunCheck) -> None:
    """``check RUN --format json``: one object."""
    write_exact(strict_json.dumps(single_run_json(check), indent=2, ensure_ascii=False) + "\n")
