"""``inspector leaderboard ROOT``: models × benchmarks of the recomputed runs under a results
root (the board itself: :mod:`inspector.views.leaderboard`)."""

from __future__ import annotations

import sys
from typing import Any

from inspector.answers.root import board_of_root
from inspector.answers.run import Unusable
from inspector.cli.common import add_plan_options, overrides_from
from inspector.cli.output import write_exact
from inspector.results.problems import RunReadError
from inspector.views.leaderboard import FORMATS, export
from inspector.views.visible import visible


def cmd_leaderboard(args: Any) -> int:
    """``inspector leaderboard ROOT [--format csv|markdown|json]``."""
    try:
        board = board_of_root(args.path, overrides_from(args))
    except RunReadError as exc:
        raise Unusable(str(exc)) from None
    if not board.cells:
        raise Unusable(f"{args.path}: no runs here (a run has run_info.json or a details/ folder)")
    text = export(board, args.format)
    if args.format == "csv" and sys.stdout.isatty():
        # Names from result files on a terminal: shown, never obeyed.
        text = "\n".join(visible(line, one_line=True) for line in text.splitlines()) + "\n"
    write_exact(text)
    return 0


def register(subparsers: Any) -> None:
    """Add ``leaderboard`` to the ``inspector`` command."""
    parser = subparsers.add_parser(
        "leaderboard",
        help="models × benchmarks of the recomputed runs under a results root",
        description=(
            "Recompute and check every run under ROOT (as `inspector check ROOT`) and print "
            "one cell per model and benchmark: the recomputed headline of the newest "
            "completed run, ✓ when every run behind the cell matches its stored "
            "metrics.json (≠ one differs, ! one cannot be recomputed), and its error / "
            "unavailable / invalidated counts."
        ),
    )
    parser.add_argument("path", help="a results root")
    parser.add_argument("--format", choices=FORMATS, default="markdown")
    add_plan_options(parser)
    parser.set_defaults(func=cmd_leaderboard)
