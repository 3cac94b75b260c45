"""``inspector report RUN``: metrics.json or summary.md, exactly as AgentCompass writes them."""

from __future__ import annotations

import argparse
from typing import Any

from inspector.answers.run import load_outputs
from inspector.cli.common import EXIT_OK, add_plan_options, overrides_from
from inspector.cli.output import write_exact


def register(subparsers: Any) -> None:
    """Add ``report`` to the ``inspector`` command."""
    report = subparsers.add_parser(
        "report", help="print the recomputed report (metrics.json or summary.md)"
    )
    report.add_argument("path", help="a run directory or its URL (s3://, gs://, az://, https://)")
    fmt = report.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="as metrics.json (default)")
    fmt.add_argument("--markdown", action="store_true", help="as summary.md")
    add_plan_options(report)
    report.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    outputs, _ = load_outputs(args.path, overrides_from(args))
    write_exact(outputs.markdown() if args.markdown else outputs.metrics_json)
    return EXIT_OK
