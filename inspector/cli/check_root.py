"""``inspector check ROOT``: every run under a results root, checked in parallel.

Each run goes through the single-run check (:func:`inspector.answers.root.check_one`, with its
rules and caches), in a pool of worker processes bounded by the cores. The result of a run is
a :class:`~inspector.views.run_check.RunCheck`: ``ok``, ``differs`` (with every difference) or
``unusable`` (with the file and the reason). Exit code: 2 when any run is unusable, else 1
when any differs, else 0.
"""

from __future__ import annotations

import argparse
import sys

from inspector.answers.root import check_root
from inspector.answers.run import Unusable
from inspector.engine import strict_json
from inspector.overrides import Overrides
from inspector.results.problems import RunReadError
from inspector.views.run_check import exit_code, summary_line


def cmd_check_root(args: argparse.Namespace, overrides: Overrides) -> int:
    """``inspector check ROOT``: one line per run and a summary (or ``--format json``)."""
    try:
        checks = check_root(args.path, overrides, cached=getattr(args, "cached", False))
    except RunReadError as exc:
        raise Unusable(str(exc)) from None
    if not checks:
        raise Unusable(f"{args.path}: no runs here (a run has run_info.json or a details/ folder)")
    if getattr(args, "format", "text") == "json":
        strict_json.dump(
            [check.as_json() for check in checks], sys.stdout, ensure_ascii=False, indent=2
        )
        sys.stdout.write("\n")
    else:
        for check in checks:
            print(check.line())
        print(summary_line(checks))
    return exit_code(checks)
